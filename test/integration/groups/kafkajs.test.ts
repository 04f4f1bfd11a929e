// KafkaJS 2.2.4 (pre-flexible protocol versions: JoinGroup v5, SyncGroup v3,
// OffsetCommit v5, ...) in a consumer group: manual commits, restart, resume
// from the committed offsets; admin listGroups / describeGroups / fetchOffsets.
import kafkajs from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/procs.js';
import { useBroker } from '../broker-fixture.js';

const { Kafka, logLevel } = kafkajs;
const fx = useBroker({ args: ['--set', 'group.initial.rebalance.delay.ms=0'] });

type Rec = { partition: number; offset: number; value: string };

describe('KafkaJS consumer group', () => {
  it('commits, restarts and resumes from the committed offsets', async () => {
    const t0 = Date.now();
    const kafka = new Kafka({ clientId: 'kjs', brokers: [fx.broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 10 } });
    const topic = 'kjs-group';
    const groupId = 'kjs-g';
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 3 }] });
    const producer = kafka.producer();
    await producer.connect();
    const perPartition = 100;
    for (let p = 0; p < 3; p++) {
      await producer.send({ topic, messages: Array.from({ length: perPartition }, (_, i) => ({ partition: p, value: `p${p}-${i}` })) });
    }
    await producer.disconnect();
    const total = 3 * perPartition;
    const N = 120;

    // ---- member A: processes N records, commits exactly those, leaves.
    const a = kafka.consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 1000 });
    await a.connect();
    await a.subscribe({ topic, fromBeginning: true });
    const gotA: Rec[] = [];
    await a.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        if (gotA.length >= N) return; // not processed, not committed
        gotA.push({ partition, offset: Number(message.offset), value: message.value!.toString() });
      },
    });
    await waitFor('member A processed N records', () => gotA.length >= N, { timeoutMs: 60_000, intervalMs: 50 });
    const nextA = new Map<number, number>();
    for (const r of gotA) nextA.set(r.partition, Math.max(nextA.get(r.partition) ?? 0, r.offset + 1));
    await a.commitOffsets([...nextA].map(([partition, o]) => ({ topic, partition, offset: String(o) })));

    // While A is a member: the group is listed, described and its offsets fetchable.
    const listed = await admin.listGroups();
    expect(listed.groups).toContainEqual({ groupId, protocolType: 'consumer' });
    const described = await admin.describeGroups([groupId]);
    expect(described.groups[0]).toMatchObject({ groupId, state: 'Stable', protocolType: 'consumer', protocol: 'RoundRobinAssigner' });
    expect(described.groups[0]!.members).toHaveLength(1);
    const fetched = await admin.fetchOffsets({ groupId, topics: [topic] });
    const committedA = new Map(fetched[0]!.partitions.map((p) => [p.partition, Number(p.offset)]));
    for (let p = 0; p < 3; p++) expect(committedA.get(p)).toBe(nextA.get(p) ?? -1);
    await a.disconnect();

    // ---- member B (a restart): resumes at the committed offsets.
    const b = kafka.consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 1000 });
    await b.connect();
    await b.subscribe({ topic, fromBeginning: true });
    const gotB: Rec[] = [];
    await b.run({
      autoCommit: true,
      autoCommitInterval: 100,
      eachMessage: async ({ partition, message }) => {
        gotB.push({ partition, offset: Number(message.offset), value: message.value!.toString() });
      },
    });
    await waitFor('member B consumed the rest', () => gotB.length >= total - N, { timeoutMs: 60_000, intervalMs: 50 });
    for (let p = 0; p < 3; p++) {
      const first = gotB.find((r) => r.partition === p);
      const committed = nextA.get(p) ?? 0;
      if (committed < perPartition) expect(first?.offset, `partition ${p}`).toBe(committed);
    }
    const all = [...gotA, ...gotB];
    expect(all.length).toBe(total);
    expect(new Set(all.map((r) => `${r.partition}:${r.offset}`)).size).toBe(total);
    for (const r of all) expect(r.value).toBe(`p${r.partition}-${r.offset}`);
    await waitFor('B auto-committed the end', async () => {
      const f = await admin.fetchOffsets({ groupId, topics: [topic] });
      return f[0]!.partitions.every((p) => Number(p.offset) === perPartition);
    }, { timeoutMs: 30_000, intervalMs: 200 });
    await b.disconnect();
    const empty = await admin.describeGroups([groupId]);
    expect(empty.groups[0]).toMatchObject({ state: 'Empty', members: [] });
    await admin.disconnect();
    console.log(`[groups/kafkajs] ${gotA.length} + ${gotB.length} records, committed by A ${JSON.stringify([...nextA])}; ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  });
});
