// Exactly-once copy under crashes (issue 11): Kafka's own system-test tool
// org.apache.kafka.tools.TransactionalMessageCopier reads an input partition
// (read_committed consumer, manual assign) and, per poll, writes the records
// to the same partition of the output topic and commits the consumed position
// in the same transaction (sendOffsetsToTransaction -> AddOffsetsToTxn +
// TxnOffsetCommit). It is SIGKILLed mid-run several times; each restart with
// the same transactional.id fences the dead instance (InitProducerId bumps the
// epoch and aborts its open transaction) and resumes from the group's
// committed offset. A read_committed reader of the output must then see every
// input record exactly once; read_uncommitted may see aborted duplicates.
// Runs against Apache Kafka too (RUNNEL_TEST_TARGET=kafka). COPIER_LOG=info
// keeps the copiers' client INFO logs (in .cache/test-logs/*txn-copier-N.log).
import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JAVA_CP, javaCds, log4jConfig } from '../../helpers/java.js';
import { runCommand, sleep, spawnManaged, waitFor, type ManagedProcess } from '../../helpers/procs.js';
import { startTarget, type Target } from '../../helpers/target.js';

const { Kafka, logLevel } = kafkajs;

const INPUT = 'copier-in';
const OUTPUT = 'copier-out';
const GROUP = 'copier-group';
const TXN_ID = 'copier-txn';
const RECORDS = 3000;
const KILLS = 3;
const key = (i: number): string => `k${String(i).padStart(5, '0')}`;
const value = (i: number): string => `v${i}-${'x'.repeat(i % 37)}`;

// The coordinator looks for timed-out transactions twice a second (default 10 s).
const SETTINGS = { 'transaction.abort.timed.out.transaction.cleanup.interval.ms': 500, 'group.initial.rebalance.delay.ms': 0 };
let target: Target;
const procs: ManagedProcess[] = [];

beforeAll(async () => {
  target = await startTarget({
    runnel: { args: Object.entries(SETTINGS).flatMap(([k, v]) => ['--set', `${k}=${v}`]) },
    kafka: { props: SETTINGS },
  });
}, 300_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => p.kill()));
  await target?.stop();
});

function copier(n: number): ManagedProcess {
  const p = spawnManaged(`txn-copier-${n}`, 'java', [
    '-Xmx192m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', ...javaCds(true).args, `-Dlog4j2.configurationFile=${log4jConfig(process.env.COPIER_LOG === 'info' ? 'INFO' : 'WARN')}`,
    '-cp', JAVA_CP, 'org.apache.kafka.tools.TransactionalMessageCopier',
    '--broker-list', target.bootstrap,
    '--input-topic', INPUT, '--input-partition', '0', '--output-topic', OUTPUT,
    '--transactional-id', TXN_ID, '--consumer-group', GROUP,
    // Small transactions: many commits and aborts, and a kill lands inside an open one.
    '--transaction-size', '50',
    // -1: copy up to the input's end offset as of start, from the committed position.
    '--max-messages', '-1',
    '--use-group-metadata', '--enable-random-aborts',
    // A restarted copier reads its start position (OffsetFetch, require_stable since its consumer is
    // read_committed) BEFORE initTransactions. If the killed instance died between TxnOffsetCommit and
    // EndTxn, the group's offset is pending and the broker answers UNSTABLE_OFFSET_COMMIT until that
    // transaction ends, which here only the coordinator's timeout does (Kafka behaves the same): keep it short.
    '--transaction-timeout', '5000',
  ]);
  procs.push(p);
  return p;
}

/** Highest `consumed` the copier reported in its JSON progress lines (counts since its own start). */
function progress(p: ManagedProcess): number {
  let consumed = 0;
  for (const line of p.tail(20_000).split('\n')) {
    const m = /"consumed":\s*(\d+)/.exec(line);
    if (m) consumed = Math.max(consumed, Number(m[1]));
  }
  return consumed;
}

/** kcat reading all of `topic` partition 0 to its end, as key/value pairs. */
async function readAll(isolation: 'read_committed' | 'read_uncommitted'): Promise<Array<[string, string]>> {
  const r = await runCommand('kcat', ['-C', '-b', target.bootstrap, '-t', OUTPUT, '-p', '0', '-o', 'beginning', '-e', '-q',
    '-X', `isolation.level=${isolation}`, '-f', '%k\t%s\n'], { timeoutMs: 60_000, logName: `kcat-${isolation}` });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t') as [string, string]);
}

describe('TransactionalMessageCopier', () => {
  it('copies every record exactly once across SIGKILLs and restarts', async () => {
    const t0 = Date.now();
    const kafka = new Kafka({ clientId: 'copier-setup', brokers: [target.bootstrap], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: INPUT, numPartitions: 1 }, { topic: OUTPUT, numPartitions: 1 }] });
    await admin.disconnect();
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    for (let b = 0; b < RECORDS; b += 500) {
      await producer.send({ topic: INPUT, messages: Array.from({ length: 500 }, (_, j) => ({ key: key(b + j), value: value(b + j), partition: 0 })) });
    }
    await producer.disconnect();

    // Kill at random points: after a random number of records consumed by that instance.
    const kills: number[] = [];
    // A copier that reaches the end of the input before its kill point (a slow
    // kill on a loaded machine lets it run on) has nothing left to be killed in:
    // it is then the last copier, and must have finished cleanly.
    let finished: ReturnType<typeof copier> | null = null;
    for (let n = 0; n < KILLS; n++) {
      const p = copier(n);
      const at = 150 + Math.floor(Math.random() * 500);
      await waitFor(`copier ${n} consumed ${at}`, () => progress(p) >= at || !p.running(), { timeoutMs: 60_000, intervalMs: 20 });
      if (!p.running()) { finished = p; break; }
      await sleep(Math.floor(Math.random() * 150)); // land anywhere inside a transaction
      await p.kill();
      kills.push(progress(p));
    }
    expect(kills.length, 'at least one copier was SIGKILLed mid-copy').toBeGreaterThanOrEqual(1);
    const last = finished ?? copier(KILLS);
    const exit = await Promise.race([last.exited, sleep(60_000).then(() => null)]);
    expect(exit, `last copier did not finish:\n${last.tail()}`).toEqual({ code: 0, signal: null });

    const committed = await readAll('read_committed');
    const uncommitted = await readAll('read_uncommitted');
    const expected = Array.from({ length: RECORDS }, (_, i) => [key(i), value(i)]);
    // Exactly once, with the input's keys and values, in input order (one partition, one producer).
    expect(committed.length).toBe(RECORDS);
    expect(committed).toEqual(expected);
    // The last committed transaction also committed the group's position: the end of the input.
    const admin2 = kafka.admin();
    await admin2.connect();
    const offsets = await admin2.fetchOffsets({ groupId: GROUP, topics: [INPUT] });
    await admin2.disconnect();
    expect(offsets[0]!.partitions).toEqual([expect.objectContaining({ partition: 0, offset: String(RECORDS) })]);
    // Killed and randomly aborted transactions left records that only read_uncommitted sees.
    expect(uncommitted.length).toBeGreaterThan(RECORDS);
    console.log(`[transactions/copier] ${target.kind}: killed after ${kills.join('/')} records, ${uncommitted.length - RECORDS} aborted records in the output; ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  });
});
