// Primary failover on a real Redis Cluster (3 primaries, 1 replica each):
// SIGKILL the primary holding partitions while a Java producer runs; its
// replica is promoted by the cluster.
//   acks=all with min.insync.replicas=2: every append is confirmed by the
//     replica (WAIT on the owning primary) before it is acknowledged, so
//     nothing acknowledged may be lost, and idempotence leaves no duplicates.
//   acks=1: replication is asynchronous, so a window of acknowledged records
//     can be lost; the test measures it (acknowledged, lost, duplicated) and
//     checks that the log stays dense and readable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisCluster, type ClusterNode, type RedisCluster } from '../../helpers/redis-cluster.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { javaProducer, readAll, verifyLog, wireCreateTopic } from '../../helpers/faults.js';
import { sleep } from '../../helpers/procs.js';
import { countsOf, placementReport } from './support.js';

let cluster: RedisCluster;
let broker: RunnelBroker;

beforeAll(async () => {
  cluster = await startRedisCluster({ primaries: 3, replicasPerPrimary: 1 });
  broker = await startRunnel({ redisUrl: cluster.seeds, args: ['--set', 'redis.replica.wait.ms=2000'] });
});

afterAll(async () => {
  await broker?.stop();
  await cluster?.stop();
});

/** The live primary holding the most partitions of `topic`. */
async function busiestPrimary(topic: string): Promise<ClusterNode> {
  const counts = countsOf(await placementReport(cluster.seeds), topic);
  const primaries = await cluster.primaries();
  return primaries.sort((a, b) => (counts.get(`${b.host}:${b.port}`) ?? 0) - (counts.get(`${a.host}:${a.port}`) ?? 0))[0]!;
}

/**
 * Kills the busiest primary mid-run, waits for its replica's promotion, brings
 * the dead node back as a replica. The replica is first held back (SIGSTOP)
 * for LAG_MS, so the primary dies with writes its replica never got: the
 * replication lag a loaded network shows, made certain instead of lucky.
 */
const LAG_MS = 600;
async function killPrimaryDuring(topic: string): Promise<{ killed: ClusterNode; promotedAfterMs: number }> {
  const victim = await busiestPrimary(topic);
  const victimId = await cluster.nodeId(victim);
  let replica: ClusterNode | undefined;
  for (const r of await cluster.replicas()) if ((await cluster.primaryOf(r)) === victim || (await cluster.nodeId((await cluster.primaryOf(r))!)) === victimId) replica = r;
  if (!replica) throw new Error('the victim primary has no replica');
  await sleep(2_500);
  replica.pause();
  await sleep(LAG_MS);
  const t0 = Date.now();
  await victim.kill();
  replica.resume();
  await cluster.waitPromoted(victim);
  const promotedAfterMs = Date.now() - t0;
  // The old primary restarts and rejoins as a replica of the promoted one, so min.insync.replicas=2 can be met again.
  await victim.restart();
  await cluster.waitHealthy();
  return { killed: victim, promotedAfterMs };
}

/** Failed sends grouped by the producer's exception and message, so a failure says why. */
function failureReasons(failed: readonly Record<string, unknown>[]): string[] {
  const n = new Map<string, number>();
  for (const f of failed) {
    const k = `${String(f['exception'])}: ${String(f['message'])}`;
    n.set(k, (n.get(k) ?? 0) + 1);
  }
  return [...n].map(([k, c]) => `${c} × ${k}`);
}

describe('Redis primary failover under load', () => {
  it('acks=all, min.insync.replicas=2: zero acknowledged loss, no duplicates', async () => {
    expect(await wireCreateTopic(broker.port, 'fo-all', 6, { 'min.insync.replicas': '2' })).toBe(0);
    const run = javaProducer({ bootstrap: broker.bootstrap, topic: 'fo-all', maxMessages: 15_000, throughput: 1_500, props: { 'linger.ms': 5 } });
    const { promotedAfterMs } = await killPrimaryDuring('fo-all');
    const { acked, failed } = await run;
    const log = await readAll(broker.bootstrap, 'fo-all');
    const problems = verifyLog(log, acked);
    console.log(`acks=all failover: replica promoted ${promotedAfterMs} ms after SIGKILL; ${acked.length} acknowledged, ${failed.length} failed sends, ${log.length} in the log, ${problems.length} problems`);
    expect(problems).toEqual([]);
    // Every send succeeds: the producer retries through the failover, and each
    // produce request is answered (a request left unanswered would expire its
    // records at the client's 120 s delivery timeout and show up here).
    expect(failureReasons(failed)).toEqual([]);
    expect(acked.length).toBe(15_000);
    expect(log.length).toBe(15_000);
  });

  it('acks=1: measures the acknowledged records lost with asynchronous replication; the log stays dense', async () => {
    expect(await wireCreateTopic(broker.port, 'fo-one', 6)).toBe(0);
    const run = javaProducer({
      bootstrap: broker.bootstrap, topic: 'fo-one', maxMessages: 30_000, throughput: 6_000,
      props: { acks: '1', 'enable.idempotence': 'false', 'linger.ms': 5, 'max.in.flight.requests.per.connection': 1 },
    });
    const { promotedAfterMs } = await killPrimaryDuring('fo-one');
    const { acked, failed } = await run;
    const log = await readAll(broker.bootstrap, 'fo-one');
    const at = new Map(log.map((r) => [`${r.partition}/${r.offset}`, r.value]));
    const lost = acked.filter((a) => at.get(`${a.partition}/${a.offset}`) !== a.value);
    const counts = new Map<string, number>();
    for (const r of log) counts.set(r.value, (counts.get(r.value) ?? 0) + 1);
    const duplicated = [...counts.values()].filter((n) => n > 1).length;
    console.log(`acks=1 failover: replica promoted ${promotedAfterMs} ms after SIGKILL; ${acked.length} acknowledged, ${lost.length} lost, ${duplicated} duplicated, ${failed.length} failed sends`);
    // dense offsets per partition whatever was lost (verifyLog reports gaps and overlaps first)
    expect(verifyLog(log, []).filter((p) => p.includes('expected'))).toEqual([]);
    expect(acked.length + failed.length).toBe(30_000);
  });
});
