// Topology changes under load on a real Redis Cluster (3 primaries):
//   1. live resharding: every slot of the primary holding the most partitions
//      moves to another primary (`redis-cli --cluster reshard`, keys migrated
//      with MIGRATE) while an idempotent Java producer and a kcat consumer run;
//   2. a shard added (`--cluster add-node` + `rebalance --cluster-use-empty-masters`)
//      under the same load: new partitions are placed on it, old ones keep working.
// (A primary whose slots all moved away becomes a replica of the primary that
// took them: Redis's cluster-allow-replica-migration default.)
// Nothing acknowledged may be lost or duplicated, offsets stay dense, and
// everything the consumer read is in the final log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisCluster, type RedisCluster } from '../../helpers/redis-cluster.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { javaProducer, readAll, readButLost, startConsumer, verifyLog, wireCreateTopic } from '../../helpers/faults.js';
import { sleep } from '../../helpers/procs.js';
import { countsOf, placementReport } from './support.js';

let cluster: RedisCluster;
let broker: RunnelBroker;

beforeAll(async () => {
  cluster = await startRedisCluster({ primaries: 3, replicasPerPrimary: 0 });
  broker = await startRunnel({ redisUrl: cluster.seeds });
});

afterAll(async () => {
  await broker?.stop();
  await cluster?.stop();
});

const nodeName = (n: { host: string; port: number }): string => `${n.host}:${n.port}`;

async function underLoad(topic: string, messages: number, change: () => Promise<void>): Promise<void> {
  const consumer = startConsumer(broker.bootstrap, topic);
  const run = javaProducer({ bootstrap: broker.bootstrap, topic, maxMessages: messages, throughput: 2_500, props: { 'linger.ms': 5 } });
  await sleep(2_500);
  const changedAt = Date.now();
  await change();
  console.log(`${topic}: topology change took ${Date.now() - changedAt} ms under load`);
  const { acked, failed } = await run;
  await sleep(1_500);
  const read = consumer.records();
  await consumer.stop();
  const log = await readAll(broker.bootstrap, topic);
  const problems = verifyLog(log, acked);
  console.log(`${topic}: ${acked.length} acknowledged, ${failed.length} failed sends, ${log.length} in the log, ${read.length} read while it ran; problems: ${problems.length}`);
  expect(failed).toEqual([]);
  expect(acked.length).toBe(messages);
  expect(problems).toEqual([]);
  expect(log.length).toBe(messages);
  expect(readButLost(read, log)).toEqual([]);
}

describe('Redis Cluster topology changes under load', () => {
  it('live resharding moves partitions between primaries without loss or duplicates', async () => {
    expect(await wireCreateTopic(broker.port, 'rs', 6)).toBe(0);
    const before = await placementReport(cluster.seeds);
    const primaries = await cluster.primaries();
    const counts = countsOf(before, 'rs');
    const from = primaries.find((p) => (counts.get(nodeName(p)) ?? 0) > 0)!;
    const to = primaries.find((p) => p !== from)!;
    const slots = (await cluster.slotsOf(from)).length;
    await underLoad('rs', 20_000, () => cluster.reshard({ from, to, slots }));
    const after = await placementReport(cluster.seeds);
    const moved = countsOf(after, 'rs');
    // every partition that lived on `from` now lives on `to`
    expect(moved.get(nodeName(from)) ?? 0).toBe(0);
    expect(moved.get(nodeName(to))).toBe((counts.get(nodeName(to)) ?? 0) + (counts.get(nodeName(from)) ?? 0));
  });

  it('a shard added and rebalanced under load takes new partitions; existing ones keep working', async () => {
    expect(await wireCreateTopic(broker.port, 'grow', 6)).toBe(0);
    let added: Awaited<ReturnType<RedisCluster['addPrimary']>> | null = null;
    await underLoad('grow', 15_000, async () => {
      added = await cluster.addPrimary();
      await cluster.rebalance({ useEmptyMasters: true });
    });
    expect((await cluster.slotsOf(added!)).length).toBeGreaterThan(0);
    // the broker's slot map follows (refreshed every second): a new topic is spread over all primaries, the new one included
    await sleep(2_000);
    expect(await wireCreateTopic(broker.port, 'after-add', 8)).toBe(0);
    const report = await placementReport(cluster.seeds);
    // Primaries serving slots now (a primary emptied by the resharding above became a replica: cluster-allow-replica-migration).
    const serving: string[] = [];
    for (const p of await cluster.primaries()) if ((await cluster.slotsOf(p)).length > 0) serving.push(nodeName(p));
    const counts = new Map([...countsOf(report, 'after-add')].filter(([n]) => serving.includes(n)));
    expect([...counts.values()].reduce((a, b) => a + b, 0)).toBe(8);
    expect(counts.size).toBe(serving.length);
    for (const c of counts.values()) expect(Math.abs(c - 8 / serving.length)).toBeLessThan(1);
    expect(counts.get(nodeName(added!))).toBeGreaterThanOrEqual(2);
  });
});
