// Wire-level helpers for the compaction tests: they speak the Kafka protocol
// only, so they run against Runnel or Apache Kafka (RUNNEL_TEST_TARGET).
import { expect } from 'vitest';
import { CreateTopics } from '../../../broker/src/protocol/messages/create-topics.js';
import { Fetch } from '../../../broker/src/protocol/messages/fetch.js';
import { ListOffsets } from '../../../broker/src/protocol/messages/list-offsets.js';
import { Produce } from '../../../broker/src/protocol/messages/produce.js';
import { decodeBatch } from '../../../common/record-batch/decode.js';
import { buildBatch, type BatchOptions, type TestRecord } from '../../helpers/batches.js';
import { WireClient } from '../../helpers/wire.js';
import { waitFor } from '../../helpers/procs.js';

export interface ReadRecord { offset: number; key: string | null; value: string | null }

/** Configs that make both systems compact soon after a segment rolls. */
export const FAST_COMPACTION = { 'cleanup.policy': 'compact', 'segment.ms': '100', 'min.cleanable.dirty.ratio': '0.01', 'delete.retention.ms': '0' };
/** Broker settings for the same (Kafka's names; Runnel reads them from the environment). */
export const KAFKA_CLEANER_PROPS = { 'log.cleaner.backoff.ms': 300 };
export const RUNNEL_CLEANER_ENV = { RUNNEL_LOG_CLEANER_BACKOFF_MS: '300' };

export async function connect(bootstrap: string): Promise<WireClient> {
  const [host, port] = bootstrap.split(':');
  return WireClient.connect(Number(port), host);
}

export async function createTopic(c: WireClient, name: string, configs: Record<string, string>, partitions = 1): Promise<void> {
  const res = await c.request(CreateTopics, 7, {
    topics: [{ name, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: Object.entries(configs).map(([n, value]) => ({ name: n, value })) }],
    timeoutMs: 10_000,
  });
  expect(res.topics[0].errorMessage ?? null).toBe(null);
  expect(res.topics[0].errorCode).toBe(0);
  // Kafka elects the new partitions' leaders asynchronously: wait until they answer.
  for (let p = 0; p < partitions; p++) {
    await waitFor(`${name}-${p} to have a leader`, async () => {
      const r = await c.request(ListOffsets, 7, { replicaId: -1, isolationLevel: 0, topics: [{ name, partitions: [{ partitionIndex: p, currentLeaderEpoch: -1, timestamp: -1 }] }] });
      return r.topics[0].partitions[0].errorCode === 0;
    }, { timeoutMs: 15_000, intervalMs: 100 });
  }
}

export const rec = (key: string | null, value: string | null): TestRecord => ({ key: key === null ? null : Buffer.from(key), value: value === null ? null : Buffer.from(value) });

/** Produces one batch; returns the partition's answer (error code, base offset, message). */
export async function produce(c: WireClient, topic: string, records: TestRecord[], o: BatchOptions = {}, partition = 0): Promise<{ errorCode: number; baseOffset: number; errorMessage: string | null }> {
  const r = await c.request(Produce, 9, {
    transactionalId: null, acks: -1, timeoutMs: 10_000,
    topicData: [{ name: topic, partitionData: [{ index: partition, records: buildBatch(records, o) }] }],
  });
  const p = r.responses[0].partitionResponses[0];
  return { errorCode: p.errorCode, baseOffset: Number(p.baseOffset), errorMessage: p.errorMessage ?? null };
}

export async function listOffset(c: WireClient, topic: string, timestamp: -1 | -2, partition = 0): Promise<number> {
  const r = await c.request(ListOffsets, 7, { replicaId: -1, isolationLevel: 0, topics: [{ name: topic, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp }] }] });
  return Number(r.topics[0].partitions[0].offset);
}

/** Reads the whole partition from its log start, as a consumer from the beginning would, checking offsets only grow. */
export async function readAll(c: WireClient, topic: string, partition = 0): Promise<ReadRecord[]> {
  const out: ReadRecord[] = [];
  let offset = await listOffset(c, topic, -2, partition);
  const end = await listOffset(c, topic, -1, partition);
  while (offset < end) {
    const res = await c.request(Fetch, 11, {
      replicaId: -1, maxWaitMs: 100, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
      topics: [{ topic, partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset: offset, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
      forgottenTopicsData: [], rackId: '',
    });
    const p = res.responses[0].partitions[0];
    expect(p.errorCode).toBe(0);
    const data: Buffer = p.records ? Buffer.from(p.records) : Buffer.alloc(0);
    let at = 0;
    let progressed = false;
    while (at + 12 <= data.length) {
      const size = data.readInt32BE(at + 8) + 12;
      if (at + size > data.length) break; // a partial batch at the end of the response
      const batch = data.subarray(at, at + size);
      at += size;
      const lastOffset = Number(batch.readBigInt64BE(0)) + batch.readInt32BE(23);
      decodeBatch(batch, {
        record(o, _ts, _tt, buf, ks, kl, vs, vl) {
          if (o < offset) return;
          const last = out[out.length - 1];
          // No offset is ever served twice, and offsets only grow.
          if (last) expect(o).toBeGreaterThan(last.offset);
          out.push({ offset: o, key: kl < 0 ? null : buf.toString('utf8', ks, ks + kl), value: vl < 0 ? null : buf.toString('utf8', vs, vs + vl) });
        },
        header() {},
      });
      if (lastOffset + 1 > offset) { offset = lastOffset + 1; progressed = true; }
    }
    if (!progressed) throw new Error(`fetch at ${offset} of ${topic} returned no batch before the log end ${end}`);
  }
  return out;
}

/**
 * What a compacted log must hold for `written` (records in offset order) once
 * everything below `activeFrom` is compacted: the latest record of each key
 * (tombstones too, while `tombstones`), then the active records as written.
 */
export function expectedCompacted(written: ReadRecord[], activeFrom: number, o: { tombstones: boolean }): ReadRecord[] {
  const latest = new Map<string, ReadRecord>();
  for (const r of written) if (r.offset < activeFrom && r.key !== null) latest.set(r.key, r);
  const kept = [...latest.values()].filter((r) => o.tombstones || r.value !== null);
  return [...kept, ...written.filter((r) => r.offset >= activeFrom)].sort((a, b) => a.offset - b.offset);
}
