// The acknowledged-loss window of a Redis primary failover, made certain: the
// replica of the primary holding a partition is held back (SIGSTOP) while
// ~4 KiB records stream into the partition, until more is written than the
// sockets between them can buffer; then the primary is SIGKILLed and the
// replica resumed and promoted. Whatever the primary had not sent is gone.
//   acks=all, min.insync.replicas=2: a batch is acknowledged only after
//     WAIT on its shard's primary saw the replica confirm it, so while the
//     replica lags nothing is acknowledged (NOT_ENOUGH_REPLICAS_AFTER_APPEND)
//     and nothing acknowledged is lost;
//   acks=1: acknowledged records are lost; the test measures how many.
// In both cases the log stays dense (no gap, no overlap) after the failover.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisCluster, type ClusterNode, type RedisCluster } from '../../helpers/redis-cluster.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { wireCreateTopic, wireProduce } from '../../helpers/faults.js';
import { runCommand, sleep } from '../../helpers/procs.js';
import { WireClient } from '../../helpers/wire.js';
import { buildBatch } from '../../helpers/batches.js';
import { holderOf, placementReport } from './support.js';

let cluster: RedisCluster;
let broker: RunnelBroker;

beforeAll(async () => {
  // No AOF: the primary's disk is not what is tested, and the test writes ~100 MB.
  cluster = await startRedisCluster({ primaries: 3, replicasPerPrimary: 1, appendonly: false });
  broker = await startRunnel({ redisUrl: cluster.seeds, args: ['--set', 'redis.replica.wait.ms=500'] });
});

afterAll(async () => {
  await broker?.stop();
  await cluster?.stop();
});

const FILLER = Buffer.alloc(4096, 0x61);
const RECORDS_PER_BATCH = 16;

interface Outcome { acked: Map<number, string>; errors: Map<number, number>; lost: number; promotedAfterMs: number }

/** Produces to partition 0 of `topic` through a lagging replica and a SIGKILLed primary; returns what was acknowledged and lost. */
async function run(topic: string, acks: number): Promise<Outcome> {
  const report = await placementReport(cluster.seeds);
  const holder = holderOf(report, topic, 0);
  const victim = cluster.nodes.find((n) => `${n.host}:${n.port}` === holder)!;
  let replica: ClusterNode | undefined;
  for (const r of await cluster.replicas()) if ((await cluster.primaryOf(r)) === victim) replica = r;
  if (!replica) throw new Error('no replica of the partition\'s primary');

  const c = await WireClient.connect(broker.port);
  const acked = new Map<number, string>(); // base offset -> first key of the batch
  const errors = new Map<number, number>();
  let n = 0;
  let stop = false;
  const producer = (async () => {
    while (!stop) {
      const key = `b${n++}`;
      const batch = buildBatch(Array.from({ length: RECORDS_PER_BATCH }, (_, i) => ({ key: Buffer.from(`${key}.${i}`), value: FILLER })));
      const r = await wireProduce(c, topic, 0, batch, acks, 5_000).catch(() => ({ errorCode: -1, baseOffset: -1, errorMessage: null }));
      if (r.errorCode === 0) {
        acked.set(r.baseOffset, `${key}.0`);
        await sleep(3); // ~250 batches/s, ~16 MiB/s: 40 MiB while the replica is held back (under its 64 MiB output-buffer soft limit)
      }
      else {
        errors.set(r.errorCode, (errors.get(r.errorCode) ?? 0) + 1);
        await sleep(20);
      }
    }
  })();
  await sleep(1_000);
  replica.pause();
  await sleep(2_500); // ~2.5 s of writes the replica never reads: far more than the socket buffers hold
  const t0 = Date.now();
  await victim.kill();
  replica.resume();
  await cluster.waitPromoted(victim);
  const promotedAfterMs = Date.now() - t0;
  await sleep(2_000); // the producer continues on the promoted primary
  stop = true;
  await producer;
  c.close();
  await victim.restart();

  // What the partition holds now: offset and key of every record (values not printed).
  const r = await runCommand('kcat', ['-b', broker.bootstrap, '-C', '-t', topic, '-p', '0', '-e', '-o', 'beginning', '-q', '-f', '%o %k\\n'], { timeoutMs: 120_000 });
  expect(r.code, r.stderr).toBe(0);
  const keyAt = new Map<number, string>();
  let expected = 0;
  for (const line of r.stdout.split('\n').filter(Boolean)) {
    const [o, k] = line.split(' ');
    expect(Number(o), 'offsets stay dense after the failover').toBe(expected++);
    keyAt.set(Number(o), k!);
  }
  let lost = 0;
  for (const [base, key] of acked) if (keyAt.get(base) !== key) lost++;
  return { acked, errors, lost, promotedAfterMs };
}

describe('acknowledged loss when a lagging replica is promoted', () => {
  it('acks=all with min.insync.replicas=2 loses nothing acknowledged', async () => {
    expect(await wireCreateTopic(broker.port, 'lw-all', 1, { 'min.insync.replicas': '2' })).toBe(0);
    const o = await run('lw-all', -1);
    console.log(`acks=all, min.insync.replicas=2: ${o.acked.size} batches acknowledged, ${o.lost} lost; refused: ${JSON.stringify(Object.fromEntries(o.errors))}; promoted after ${o.promotedAfterMs} ms`);
    expect(o.acked.size).toBeGreaterThan(0);
    expect(o.lost).toBe(0);
  });

  it('acks=1 loses the acknowledged batches its primary had not replicated (measured)', async () => {
    expect(await wireCreateTopic(broker.port, 'lw-one', 1)).toBe(0);
    const o = await run('lw-one', 1);
    console.log(`acks=1: ${o.acked.size} batches of ${RECORDS_PER_BATCH} x 4 KiB acknowledged, ${o.lost} lost (${((o.lost * RECORDS_PER_BATCH * 4) / 1024).toFixed(1)} MiB) with the replica held back 2.5 s; refused: ${JSON.stringify(Object.fromEntries(o.errors))}; promoted after ${o.promotedAfterMs} ms`);
    expect(o.acked.size).toBeGreaterThan(0);
  });
});
