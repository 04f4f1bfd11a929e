// `__consumer_offsets`: an internal, compacted topic whose partition s is
// coordinator slot s. Offset commits are mirrored into it in Kafka's record
// format (OffsetCommitKey v1 / OffsetCommitValue v3), so lag monitors that read
// it work; clients may read it but not write, delete or resize it, and
// pattern subscriptions of the Java client leave it out (isInternal=true).
import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Fetch } from '../../../broker/src/protocol/messages/fetch.js';
import { ListOffsets } from '../../../broker/src/protocol/messages/list-offsets.js';
import { Metadata } from '../../../broker/src/protocol/messages/metadata.js';
import { OffsetCommit } from '../../../broker/src/protocol/messages/offset-commit.js';
import { decodeOffsetCommitKey, decodeOffsetCommitValue, type OffsetCommitKey, type OffsetCommitValue } from '../../../broker/src/groups/offsets-records.js';
import { decodeBatch } from '../../../common/record-batch/decode.js';
import { runJava } from '../../helpers/java.js';
import { WireClient } from '../../helpers/wire.js';
import { useBroker } from '../broker-fixture.js';

const { Kafka, logLevel } = kafkajs;
const fx = useBroker({ args: ['--set', 'group.initial.rebalance.delay.ms=0'] });
const OFFSETS = '__consumer_offsets';
const SLOTS = 50; // offsets.topic.num.partitions default
const TOPIC = 'oc-t';
const GROUP = 'oc-group';

/** Kafka's partitionFor(group): abs(String.hashCode) % offsets.topic.num.partitions. */
function slotOf(group: string): number {
  let h = 0;
  for (let i = 0; i < group.length; i++) h = (Math.imul(h, 31) + group.charCodeAt(i)) | 0;
  return Math.abs(h) % SLOTS;
}

type Entry = { offset: number; key: OffsetCommitKey | null; value: OffsetCommitValue | null };

async function listOffset(c: WireClient, topic: string, partition: number, timestamp: number): Promise<number> {
  const r = await c.request(ListOffsets, 7, { replicaId: -1, isolationLevel: 0, topics: [{ name: topic, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp }] }] });
  expect(r.topics[0].partitions[0].errorCode).toBe(0);
  return Number(r.topics[0].partitions[0].offset);
}

/** Reads a partition of `__consumer_offsets` from its log start to its end, decoding every record. */
async function readOffsetsPartition(c: WireClient, partition: number): Promise<Entry[]> {
  const out: Entry[] = [];
  let offset = await listOffset(c, OFFSETS, partition, -2);
  const end = await listOffset(c, OFFSETS, partition, -1);
  while (offset < end) {
    const res = await c.request(Fetch, 11, {
      replicaId: -1, maxWaitMs: 100, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
      topics: [{ topic: OFFSETS, partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset: offset, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
      forgottenTopicsData: [], rackId: '',
    });
    const p = res.responses[0].partitions[0];
    expect(p.errorCode).toBe(0);
    const data: Buffer = p.records ? Buffer.from(p.records) : Buffer.alloc(0);
    let at = 0;
    while (at + 12 <= data.length) {
      const size = data.readInt32BE(at + 8) + 12;
      if (at + size > data.length) break;
      const batch = data.subarray(at, at + size);
      at += size;
      decodeBatch(batch, {
        record(o, _ts, _tt, buf, ks, kl, vs, vl) {
          const key = decodeOffsetCommitKey(Buffer.from(buf.subarray(ks, ks + kl)));
          out.push({ offset: o, key, value: vl < 0 ? null : decodeOffsetCommitValue(Buffer.from(buf.subarray(vs, vs + vl))) });
        },
        header() {},
      });
      offset = Number(batch.readBigInt64BE(0)) + batch.readInt32BE(23) + 1;
    }
  }
  return out;
}

async function commit(c: WireClient, offsets: Array<[number, number]>): Promise<void> {
  const r = await c.request(OffsetCommit, 7, {
    groupId: GROUP, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null,
    topics: [{ name: TOPIC, partitions: offsets.map(([partitionIndex, committedOffset]) => ({ partitionIndex, committedOffset, committedLeaderEpoch: -1, committedMetadata: `m${partitionIndex}` })) }],
  });
  expect(r.topics[0].partitions.map((p: { errorCode: number }) => p.errorCode)).toEqual(offsets.map(() => 0));
}

const ofGroup = (es: Entry[]) => es.filter((e) => e.key?.group === GROUP);

describe('__consumer_offsets', () => {
  let c: WireClient;
  let kafka: InstanceType<typeof Kafka>;
  beforeAll(async () => {
    c = await WireClient.connect(fx.broker.port);
    kafka = new Kafka({ clientId: 'oc', brokers: [fx.broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 2 } });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 3 }] });
    await admin.disconnect();
    const producer = kafka.producer();
    await producer.connect();
    for (let p = 0; p < 3; p++) await producer.send({ topic: TOPIC, messages: Array.from({ length: 10 }, (_, i) => ({ partition: p, value: `v${i}` })) });
    await producer.disconnect();
  });
  afterAll(() => c?.close());

  it('Metadata lists it as an internal topic with one partition per coordinator slot', async () => {
    for (const topics of [null, [{ topicId: '00000000-0000-0000-0000-000000000000', name: OFFSETS }]]) {
      const r = await c.request(Metadata, 12, { topics, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      const t = r.topics.find((x: { name: string }) => x.name === OFFSETS);
      expect(t).toMatchObject({ errorCode: 0, isInternal: true });
      expect(t.partitions).toHaveLength(SLOTS);
      const nodeId = r.brokers[0].nodeId;
      for (const p of t.partitions) expect(p).toMatchObject({ errorCode: 0, leaderId: nodeId });
      expect(r.topics.find((x: { name: string }) => x.name === TOPIC)?.isInternal ?? false).toBe(false);
    }
  });

  it('holds every commit as Kafka offset commit records in the group\'s partition, deletions as tombstones', async () => {
    const slot = slotOf(GROUP);
    const before = Date.now();
    await commit(c, [[0, 3], [1, 7], [2, 10]]);
    await commit(c, [[0, 5]]);
    const entries = ofGroup(await readOffsetsPartition(c, slot));
    expect(entries.map((e) => [e.key!.topic, e.key!.partition, e.value?.offset, e.value?.leaderEpoch, e.value?.metadata])).toEqual([
      [TOPIC, 0, 3, -1, 'm0'], [TOPIC, 1, 7, -1, 'm1'], [TOPIC, 2, 10, -1, 'm2'], [TOPIC, 0, 5, -1, 'm0'],
    ]);
    for (const e of entries) expect(e.value!.commitTimestamp).toBeGreaterThanOrEqual(before - 1000);
    // Nothing of this group lands in any other partition.
    expect(ofGroup(await readOffsetsPartition(c, (slot + 1) % SLOTS))).toEqual([]);

    // Kafka's own decoder (kafka-console-consumer with OffsetsMessageFormatter) reads them.
    const end = await listOffset(c, OFFSETS, slot, -1);
    const java = await runJava('org.apache.kafka.tools.consumer.ConsoleConsumer', [
      '--bootstrap-server', fx.broker.bootstrap, '--topic', OFFSETS, '--partition', String(slot), '--offset', 'earliest',
      '--max-messages', String(end), '--timeout-ms', '30000', '--formatter', 'org.apache.kafka.tools.consumer.OffsetsMessageFormatter',
    ]);
    // The formatter writes one JSON object per record, without separators.
    const lines = java.stdout.split(/(?<=\})(?=\{"key")/).map((l) => l.trim()).filter((l) => l.includes(`"group":"${GROUP}"`));
    expect(lines, java.stderr).toHaveLength(4);
    const last = JSON.parse(lines[3]!) as { key: { data: Record<string, unknown> }; value: { version: number; data: Record<string, unknown> } };
    expect(last.key.data).toEqual({ group: GROUP, topic: TOPIC, partition: 0 });
    expect(last.value.version).toBe(3);
    expect(last.value.data).toMatchObject({ offset: 5, leaderEpoch: -1, metadata: 'm0' });

    // DeleteGroups removes the group's offsets: one tombstone per committed partition.
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteGroups([GROUP]);
    await admin.disconnect();
    const tail = ofGroup(await readOffsetsPartition(c, slot)).slice(4);
    expect(tail.map((e) => [e.key!.partition, e.value]).sort()).toEqual([[0, null], [1, null], [2, null]]);
  });

  it('refuses client writes, deletion and new partitions', async () => {
    const producer = kafka.producer();
    await producer.connect();
    await expect(producer.send({ topic: OFFSETS, messages: [{ partition: 0, value: 'x' }] })).rejects.toMatchObject({ type: 'INVALID_TOPIC_EXCEPTION' });
    await producer.disconnect();
    const admin = kafka.admin();
    await admin.connect();
    await expect(admin.deleteTopics({ topics: [OFFSETS] })).rejects.toThrow();
    await expect(admin.createPartitions({ topicPartitions: [{ topic: OFFSETS, count: SLOTS + 1 }] })).rejects.toThrow();
    expect((await admin.fetchTopicMetadata({ topics: [OFFSETS] })).topics[0]!.partitions).toHaveLength(SLOTS);
    await admin.disconnect();
  });

  it('is left out of a Java pattern subscription (exclude.internal.topics)', async () => {
    // Group commits of this consumer land in __consumer_offsets too; only the 30 user records may be consumed.
    const r = await runJava('org.apache.kafka.tools.consumer.ConsoleConsumer', [
      '--bootstrap-server', fx.broker.bootstrap, '--include', '.*', '--group', 'oc-pattern', '--from-beginning',
      '--timeout-ms', '8000', '--formatter', 'org.apache.kafka.tools.consumer.NoOpMessageFormatter',
    ]);
    const m = /Processed a total of (\d+) messages/.exec(r.stderr + r.stdout);
    expect(m?.[1], r.stderr).toBe('30');
  });
});
