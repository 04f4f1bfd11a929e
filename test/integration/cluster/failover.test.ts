// Three brokers on one Redis: leadership is spread by lease, a SIGKILLed
// broker's partitions move to the survivors within the lease time, a running
// Java idempotent producer continues, and nothing acknowledged is lost or
// duplicated. Also reports the failover time (kill -> first successful
// produce on a moved partition).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metadata } from '../../../broker/src/protocol/messages/metadata.js';
import { Produce } from '../../../broker/src/protocol/messages/produce.js';
import { CreateTopics } from '../../../broker/src/protocol/messages/create-topics.js';
import { OffsetForLeaderEpoch } from '../../../broker/src/protocol/messages/offset-for-leader-epoch.js';
import { ErrorCode } from '../../../common/errors.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import fs from 'node:fs';
import { sleep, spawnManaged, waitFor, type ManagedProcess } from '../../helpers/procs.js';
import { JAVA_CP, javaCds, log4jConfig, parseJsonLines, runJava } from '../../helpers/java.js';
import { WireClient } from '../../helpers/wire.js';
import { buildBatch } from '../../helpers/batches.js';
import { denseOffsets, duplicates, idempotentProducer, readTopic } from '../support.js';

// Default lease settings (broker.lease.ms=3000, leadership.tick.ms=500): the failover time printed is the default one.
const LEASE_MS = 3000;
let redis: RedisServer;
const brokers: RunnelBroker[] = [];

const args = (id: number) => ['--node-id', String(id), '--set', 'group.initial.rebalance.delay.ms=0'];
let consumer: ManagedProcess | null = null;

beforeAll(async () => {
  redis = await startRedis();
  for (const id of [1, 2, 3]) brokers.push(await startRunnel({ redisUrl: redis.url, args: args(id) }));
});

afterAll(async () => {
  await consumer?.stop(5000);
  for (const b of brokers) await b.stop().catch(() => undefined);
  await redis?.stop();
});

type PartitionMeta = { partitionIndex: number; leaderId: number; leaderEpoch: number; errorCode: number };

async function metadata(port: number, topic: string): Promise<{ brokers: number[]; partitions: PartitionMeta[] }> {
  const c = await WireClient.connect(port);
  try {
    const r = await c.request(Metadata, 12, { topics: [{ topicId: '00000000-0000-0000-0000-000000000000', name: topic }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    return { brokers: r.brokers.map((b: { nodeId: number }) => b.nodeId).sort(), partitions: r.topics[0].partitions };
  } finally {
    c.close();
  }
}

const portOf = (id: number): number => brokers[id - 1]!.port;

describe('three brokers', () => {
  it('spread leadership, fail over after SIGKILL without losing or duplicating acknowledged records', async () => {
    const c = await WireClient.connect(brokers[0]!.port);
    const created = await c.request(CreateTopics, 7, { topics: [{ name: 'fo', numPartitions: 6, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000 });
    expect(created.topics[0].errorCode).toBe(0);
    c.close();

    await waitFor('every broker sees three brokers', async () => {
      for (const id of [1, 2, 3]) if ((await metadata(portOf(id), 'fo')).brokers.length !== 3) return false;
      return true;
    }, { timeoutMs: 15_000 });
    await waitFor('all partitions led, in every broker\'s view', async () => {
      for (const id of [1, 2, 3]) if (!(await metadata(portOf(id), 'fo')).partitions.every((p) => p.leaderId > 0)) return false;
      return true;
    }, { timeoutMs: 20_000 });
    expect((await metadata(portOf(2), 'fo')).brokers).toEqual([1, 2, 3]);

    const bootstrap = brokers.map((b) => b.bootstrap).join(',');
    // A consumer group (Java VerifiableConsumer, commits after every poll) runs through the failover.
    consumer = spawnManaged('vc-failover', 'java', [
      '-Xmx256m', '-XX:+UseSerialGC', ...javaCds(true).args, `-Dlog4j2.configurationFile=${log4jConfig('WARN')}`,
      '-cp', JAVA_CP, 'org.apache.kafka.tools.VerifiableConsumer',
      '--bootstrap-server', bootstrap, '--topic', 'fo', '--group-id', 'fo-group',
      '--session-timeout', '10000', '--reset-policy', 'earliest', '--verbose',
    ]);
    const run = idempotentProducer({ bootstrap, topic: 'fo', maxMessages: 24_000, throughput: 3_000 });
    await sleep(3_000);

    // every broker agrees on the leaders; the victim is the broker leading most partitions
    let view = await metadata(portOf(1), 'fo');
    await waitFor('consistent leadership view', async () => {
      view = await metadata(portOf(1), 'fo');
      const key = JSON.stringify(view.partitions.map((p) => p.leaderId));
      for (const id of [2, 3]) if (JSON.stringify((await metadata(portOf(id), 'fo')).partitions.map((p) => p.leaderId)) !== key) return false;
      return view.partitions.every((p) => p.leaderId > 0);
    }, { timeoutMs: 20_000 });
    const counts = new Map<number, number>();
    for (const p of view.partitions) counts.set(p.leaderId, (counts.get(p.leaderId) ?? 0) + 1);
    expect(counts.size).toBeGreaterThan(1); // spread, not all on one broker
    const victim = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
    const moved = view.partitions.find((p) => p.leaderId === victim)!;
    const other = [1, 2, 3].find((id) => id !== victim)!;

    // a broker that is not the leader refuses to append
    const wrong = await WireClient.connect(portOf(other));
    const refused = await wrong.request(Produce, 9, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: 'fo', partitionData: [{ index: moved.partitionIndex, records: buildBatch([{ key: null, value: Buffer.from('x') }]) }] }] });
    expect(refused.responses[0].partitionResponses[0].errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    wrong.close();

    const killedAt = Date.now();
    await brokers[victim - 1]!.kill();

    // failover time: until a produce to a moved partition succeeds on its new leader
    let failoverMs = -1;
    while (Date.now() - killedAt < 30_000 && failoverMs < 0) {
      const m = await metadata(portOf(other), 'fo').catch(() => null);
      const leader = m?.partitions.find((p) => p.partitionIndex === moved.partitionIndex)?.leaderId;
      // -1 while no broker holds the partition's lease (between the victim's lease expiry and a successor's take-over)
      if (leader !== undefined && leader > 0 && leader !== victim) {
        const w = await WireClient.connect(portOf(leader));
        const r = await w.request(Produce, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 'fo', partitionData: [{ index: moved.partitionIndex, records: buildBatch([{ key: null, value: Buffer.from('probe') }]) }] }] });
        w.close();
        if (r.responses[0].partitionResponses[0].errorCode === 0) failoverMs = Date.now() - killedAt;
      }
      if (failoverMs < 0) await sleep(100);
    }
    console.log(`failover: ${failoverMs} ms from SIGKILL to the first successful produce on a moved partition (lease ${LEASE_MS} ms)`);
    expect(failoverMs).toBeGreaterThan(0);

    const { acked } = await run;
    expect(acked.length).toBe(24_000);
    const survivor = brokers[other - 1]!.bootstrap;
    const log = (await readTopic(survivor, 'fo')).filter((r) => r.value !== 'probe');
    const all = await readTopic(survivor, 'fo');
    denseOffsets(all);
    expect(duplicates(log.map((r) => r.value))).toEqual([]);
    const stored = new Set(log.map((r) => r.value));
    expect(acked.filter((v) => !stored.has(v))).toEqual([]);

    // the group consumed every acknowledged record, in offset order per partition, and its lag is zero
    const consumed = () => parseJsonLines(fs.readFileSync(consumer!.logFile, 'utf8')).filter((e) => e.name === 'record_data');
    await waitFor('consumer caught up', () => new Set(consumed().map((e) => String(e.value))).size >= stored.size, { timeoutMs: 60_000, intervalMs: 500 });
    const seen = new Map<number, number>();
    const firstTime = new Set<string>();
    for (const e of consumed()) {
      const key = `${e.partition}/${e.offset}`;
      if (firstTime.has(key)) continue; // a redelivery after the rebalance (at-least-once)
      firstTime.add(key);
      expect(Number(e.offset)).toBeGreaterThan(seen.get(Number(e.partition)) ?? -1);
      seen.set(Number(e.partition), Number(e.offset));
    }
    const consumedValues = new Set(consumed().map((e) => String(e.value)));
    expect(acked.filter((v) => !consumedValues.has(v))).toEqual([]);
    await waitFor('zero lag', async () => {
      const r = await runJava('org.apache.kafka.tools.consumer.group.ConsumerGroupCommand', ['--bootstrap-server', survivor, '--describe', '--group', 'fo-group'], { timeoutMs: 60_000 });
      const rows = r.stdout.split('\n').map((l) => l.trim().split(/\s+/)).filter((f) => f[0] === 'fo-group' && /^\d+$/.test(f[2] ?? ''));
      // a partition that never received a record has no committed offset: Kafka prints '-' there
      return rows.length === 6 && rows.every((f) => f[5] === '0' || (f[3] === '-' && f[4] === '0'));
    }, { timeoutMs: 60_000, intervalMs: 2000 });

    // the moved partition's epoch went up, and OffsetForLeaderEpoch answers for the old epoch
    const after = await metadata(portOf(other), 'fo');
    const now = after.partitions.find((p) => p.partitionIndex === moved.partitionIndex)!;
    expect(now.leaderEpoch).toBeGreaterThan(moved.leaderEpoch);
    const q = await WireClient.connect(portOf(now.leaderId));
    const oe = await q.request(OffsetForLeaderEpoch, 4, { replicaId: -1, topics: [{ topic: 'fo', partitions: [{ partition: moved.partitionIndex, currentLeaderEpoch: now.leaderEpoch, leaderEpoch: moved.leaderEpoch }] }] });
    q.close();
    const answer = oe.topics[0].partitions[0];
    expect(answer.errorCode).toBe(0);
    expect(answer.leaderEpoch).toBe(moved.leaderEpoch);
    // the old epoch ended where the new leader's epoch began: within the partition's log
    const partitionLog = all.filter((r) => r.partition === moved.partitionIndex);
    expect(answer.endOffset).toBeGreaterThanOrEqual(0);
    expect(answer.endOffset).toBeLessThanOrEqual(partitionLog.length);
  });
});
