// MirrorMaker 2, unmodified (issue 10), in dedicated mode
// (org.apache.kafka.connect.mirror.MirrorMaker with an mm2.properties): one
// topic replicated from Apache Kafka into the target, and one from the target
// into Apache Kafka, at the same time. MM2 creates its own internal topics on
// both sides (configs/offsets/status, offset-syncs, checkpoints: compacted).
// Every record arrives with its key and value, in its partition, in order,
// including records produced while MM2 runs.
// The target is RUNNEL_TEST_TARGET (Runnel by default; with 'kafka' both sides are Kafka).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTopic } from '../../helpers/java.js';
import { startKafka, type KafkaBroker } from '../../helpers/kafka.js';
import { waitFor, type ManagedProcess } from '../../helpers/procs.js';
import { startTarget, type Target } from '../../helpers/target.js';
import { compileAppClasses, produceKeyed, readKeyed, spawnJavaApp, unlessDied, type KeyedRecord } from './support.js';

// Cluster aliases in mm2.properties; DefaultReplicationPolicy names a copy <source alias>.<topic>.
const KAFKA = 'kafka';
const TARGET = 'runnel';
const FROM_KAFKA = 'orders';
const FROM_TARGET = 'payments';
const PARTITIONS = 2;

let kafka: KafkaBroker;
let target: Target;
let mm2: ManagedProcess | undefined;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-mm2-'));

beforeAll(async () => {
  let classes: string;
  [kafka, target, classes] = await Promise.all([
    startKafka({ heap: '512m' }),
    startTarget({
      runnel: { env: { RUNNEL_LOG_CLEANER_BACKOFF_MS: '500' }, args: ['--set', 'group.initial.rebalance.delay.ms=0'] },
    }),
    compileAppClasses(),
  ]);
  // The source topics exist (with data) before MM2 starts, so its first topic
  // scan finds them; later records are mirrored live.
  await Promise.all([createTopic(kafka.bootstrap, FROM_KAFKA, PARTITIONS), createTopic(target.bootstrap, FROM_TARGET, PARTITIONS)]);
  await Promise.all([
    produceKeyed(kafka.bootstrap, FROM_KAFKA, records('order', 0, 200)),
    produceKeyed(target.bootstrap, FROM_TARGET, records('payment', 0, 200)),
  ]);

  const props: Record<string, string | number | boolean> = {
    clusters: `${KAFKA}, ${TARGET}`,
    [`${KAFKA}.bootstrap.servers`]: kafka.bootstrap,
    [`${TARGET}.bootstrap.servers`]: target.bootstrap,
    [`${KAFKA}->${TARGET}.enabled`]: true,
    [`${KAFKA}->${TARGET}.topics`]: FROM_KAFKA,
    [`${TARGET}->${KAFKA}.enabled`]: true,
    [`${TARGET}->${KAFKA}.topics`]: FROM_TARGET,
    // Single-node clusters on both sides.
    'replication.factor': 1,
    'checkpoints.topic.replication.factor': 1,
    'heartbeats.topic.replication.factor': 1,
    'offset-syncs.topic.replication.factor': 1,
    'offset.storage.replication.factor': 1,
    'status.storage.replication.factor': 1,
    'config.storage.replication.factor': 1,
    // Short test timings.
    'offset.flush.interval.ms': 1000,
    'emit.heartbeats.interval.seconds': 1,
    'emit.checkpoints.interval.seconds': 1,
    'refresh.topics.interval.seconds': 5,
    'refresh.groups.interval.seconds': 5,
    'session.timeout.ms': 6000,
    'heartbeat.interval.ms': 1000,
    'scheduled.rebalance.max.delay.ms': 0,
    // Neither side has an authorizer here (Runnel answers DescribeAcls with
    // SECURITY_DISABLED, as Kafka does), so there are no ACLs to sync.
    'sync.topic.acls.enabled': false,
  };
  const propsFile = path.join(dir, 'mm2.properties');
  fs.writeFileSync(propsFile, Object.entries(props).map(([k, v]) => `${k}=${v}`).join('\n') + '\n');
  mm2 = spawnJavaApp('mirror-maker', 'org.apache.kafka.connect.mirror.MirrorMaker', [propsFile], {
    classpath: [classes],
    jvmArgs: ['-Xmx512m'],
    logLevel: 'INFO',
  });
});

afterAll(async () => {
  await mm2?.stop(20_000);
  await Promise.allSettled([target?.stop(), kafka?.stop()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** `n` records `<prefix>-<i>` => `<prefix> #<i> ...`, keyed so they spread over the partitions. */
function records(prefix: string, from: number, n: number): [string, string][] {
  return Array.from({ length: n }, (_, j) => {
    const i = from + j;
    return [`${prefix}-${i}`, `${prefix} #${i} ${'v'.repeat(i % 29)}`];
  });
}

/** Per partition, the (key, value) sequence in offset order. */
function byPartition(rs: KeyedRecord[]): string[][] {
  const out: string[][] = Array.from({ length: PARTITIONS }, () => []);
  for (const r of rs) out[r.partition]!.push(`${r.key}=${r.value}`);
  return out;
}

/** Waits until `copy` (on `copyBootstrap`) holds as many records as `source`, then compares them partition by partition. */
async function expectMirrored(srcBootstrap: string, source: string, copyBootstrap: string, copy: string): Promise<void> {
  const want = byPartition(await readKeyed(srcBootstrap, source));
  const total = want.reduce((s, p) => s + p.length, 0);
  let got: string[][] = [];
  await waitFor(`${copy} mirrored (${total} records)`, async () => {
    got = byPartition(await readKeyed(copyBootstrap, copy));
    return got.reduce((s, p) => s + p.length, 0) >= total;
  }, { proc: mm2, timeoutMs: 60_000, intervalMs: 500 }).catch(unlessDied(mm2));
  expect(got, `${source} -> ${copy}; MM2 log ${mm2?.logFile}`).toEqual(want);
}

describe(`MirrorMaker 2 between Apache Kafka and ${process.env.RUNNEL_TEST_TARGET ?? 'runnel'}`, () => {
  it('copies a topic from Kafka into the target and one from the target into Kafka', async () => {
    const t0 = Date.now();
    await Promise.all([
      expectMirrored(kafka.bootstrap, FROM_KAFKA, target.bootstrap, `${KAFKA}.${FROM_KAFKA}`),
      expectMirrored(target.bootstrap, FROM_TARGET, kafka.bootstrap, `${TARGET}.${FROM_TARGET}`),
    ]);
    console.log(`[apps/mm2] initial records mirrored both ways in ${Date.now() - t0} ms`);
  });

  it('mirrors records produced while it runs', async () => {
    const t0 = Date.now();
    await Promise.all([
      produceKeyed(kafka.bootstrap, FROM_KAFKA, records('order', 200, 100)),
      produceKeyed(target.bootstrap, FROM_TARGET, records('payment', 200, 100)),
    ]);
    await Promise.all([
      expectMirrored(kafka.bootstrap, FROM_KAFKA, target.bootstrap, `${KAFKA}.${FROM_KAFKA}`),
      expectMirrored(target.bootstrap, FROM_TARGET, kafka.bootstrap, `${TARGET}.${FROM_TARGET}`),
    ]);
    console.log(`[apps/mm2] live records mirrored both ways in ${Date.now() - t0} ms`);
  });
});
