// Fetch, ListOffsets and DeleteRecords of a tiered partition over an in-memory
// store and an in-memory remote tier: which tier answers which offset, the
// hand-over at the Redis log start, timeouts and lake errors. The real lake
// reader is proven against real Delta tables (test/broker/lake/) and end to
// end with real clients (test/integration/tiered/).
import { describe, expect, it } from 'vitest';
import { produceHandler } from '../../../../broker/src/handlers/produce.js';
import { fetchHandler } from '../../../../broker/src/handlers/fetch.js';
import { listOffsetsHandler } from '../../../../broker/src/handlers/list-offsets.js';
import { deleteRecordsHandler } from '../../../../broker/src/handlers/delete-records.js';
import type { BrokerServices, RequestContext } from '../../../../broker/src/handlers/support/types.js';
import type { RemoteLog, RemoteSegment } from '../../../../broker/src/storage/remote-log.js';
import type { FetchBatch, TopicPartition } from '../../../../broker/src/storage/log-store.js';
import { ErrorCode, KafkaError } from '../../../../common/errors.js';
import { MemoryLogStore } from '../../support/memory-log-store.js';
import { unitServices } from '../../support/services.js';
import { buildBatch } from '../../../helpers/batches.js';
import { newSession } from '../../../../broker/src/security/session.js';
import { Fetch } from '../../../../broker/src/protocol/messages/fetch.js';
import { wireRequest } from '../../support/requests.js';

const ctx = (apiVersion: number): RequestContext => ({ apiKey: 0, apiVersion, correlationId: 1, clientId: 't', session: newSession(1, '127.0.0.1') });

const value = (o: number): Buffer => Buffer.from(`v${o}`);

/** The batch of one record holding `value(o)` at offset o, as the store and the lake both hold it. */
function batchAt(o: number): Buffer {
  const b = buildBatch([{ key: null, value: value(o), timestamp: 1000 + o }]);
  b.writeBigInt64BE(BigInt(o), 0);
  return b;
}

/** A remote tier holding offsets [from, to) as one-record batches; `mode` bends its answers. */
class MemoryRemoteLog implements RemoteLog {
  mode: 'ok' | 'empty' | 'hang' | 'fail' = 'ok';
  calls: Array<{ offset: number; endOffset: number }> = [];
  constructor(public from: number, public to: number) {}
  async read(_tp: TopicPartition, _id: string, offset: number, endOffset: number, maxBytes: number): Promise<FetchBatch[]> {
    this.calls.push({ offset, endOffset });
    if (this.mode === 'hang') return new Promise(() => {});
    if (this.mode === 'fail') throw new KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, 'lake down');
    if (this.mode === 'empty') return [];
    const out: FetchBatch[] = [];
    let bytes = 0;
    for (let o = Math.max(offset, this.from); o < Math.min(endOffset, this.to); o++) {
      const b = batchAt(o);
      if (out.length > 0 && bytes + b.length > maxBytes) break;
      out.push({ baseOffset: o, lastOffsetDelta: 0, size: b.length, pieces: [b] });
      bytes += b.length;
    }
    return out;
  }
  async extent() { return { startOffset: this.from, endOffset: this.to, records: this.to - this.from, bytes: 0 }; }
  async offsetForTimestamp(_tp: TopicPartition, _id: string, ts: number, endOffset: number) {
    const o = Math.max(this.from, ts - 1000);
    return o < Math.min(endOffset, this.to) ? { offset: o, timestamp: 1000 + o } : null;
  }
  async segments(): Promise<RemoteSegment[]> { return []; }
  async close() {}
}

const fetchReq = (offset: number) => wireRequest(Fetch, 11, {
  replicaId: -1, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
  topics: [{ topic: 't', topicId: '', partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: offset, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
  forgottenTopicsData: [], rackId: '',
});

async function fetchAt(b: BrokerServices, offset: number) {
  const p = (await fetchHandler.handle(fetchReq(offset), ctx(11), b))!.responses[0]!.partitions[0]!;
  const batches = (p.records ?? []) as Buffer[];
  return { errorCode: p.errorCode, logStartOffset: p.logStartOffset, offsets: batches.map((x) => Number(x.readBigInt64BE(0))), values: batches.map((x) => { const n = value(Number(x.readBigInt64BE(0))).length; return x.subarray(x.length - 1 - n, x.length - 1).toString(); }) };
}

async function listOffset(b: BrokerServices, timestamp: number): Promise<{ errorCode: number; offset: number }> {
  const r = await listOffsetsHandler.handle({ replicaId: -1, isolationLevel: 0, topics: [{ name: 't', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp }] }], timeoutMs: 0 }, ctx(9), b);
  const p = r!.topics[0]!.partitions[0]!;
  return { errorCode: p.errorCode, offset: Number(p.offset) };
}

/** Records 0..9 produced; offsets 0..5 archived and trimmed from Redis as local retention does (local start 6, Kafka start 0). */
async function tiered(o: { store?: MemoryLogStore; maxWaitMs?: number } = {}) {
  const store = o.store ?? new MemoryLogStore();
  const b = unitServices({ store });
  const remote = new MemoryRemoteLog(0, 6);
  b.remoteLog = remote;
  b.config.remoteFetchMaxWaitMs = o.maxWaitMs ?? 500;
  await b.log.createTopic('t', 1, { 'remote.storage.enable': 'true' });
  for (let i = 0; i < 10; i++) {
    await produceHandler.handle({ transactionalId: null, acks: 1, timeoutMs: 1000, topicData: [{ name: 't', partitionData: [{ index: 0, records: buildBatch([{ key: null, value: value(i), timestamp: 1000 + i }]) }] }] }, ctx(9), b);
  }
  const p = await b.log.partition('t', 0);
  p.archivedOffset = 5;
  await b.log.advanceLogStart(p, 6, true);
  return { b, remote, p, store };
}

describe('a tiered partition: offsets below the Redis log start come from the remote tier', () => {
  it('serves the lake below the local log start, bounded by it, and Redis from there; reports the Kafka log start', async () => {
    const { b, remote, store } = await tiered();
    expect((await store.tail({ topic: 't', partition: 0 })).remoteLogStartOffset).toBe(0);
    expect((await store.read({ topic: 't', partition: 0 }, 0, 100)).map((x) => x.baseOffset)).toEqual([6, 7, 8, 9]); // Redis was trimmed
    const low = await fetchAt(b, 2);
    expect(low).toMatchObject({ errorCode: 0, logStartOffset: 0, offsets: [2, 3, 4, 5] });
    expect(low.values).toEqual(['v2', 'v3', 'v4', 'v5']);
    expect(remote.calls).toEqual([{ offset: 2, endOffset: 6 }]);
    expect(await fetchAt(b, 6)).toMatchObject({ errorCode: 0, logStartOffset: 0, offsets: [6, 7, 8, 9] });
    expect(remote.calls.length).toBe(1); // Redis offsets never ask the lake
  });

  it('continues in Redis when the lake holds nothing below the local start (markers and aborted records are gaps)', async () => {
    const { b, remote } = await tiered();
    remote.mode = 'empty';
    expect(await fetchAt(b, 4)).toMatchObject({ errorCode: 0, offsets: [6, 7, 8, 9] });
  });

  it('answers no records, without an error, when the lake is slower than remote.fetch.max.wait.ms', async () => {
    const { b, remote } = await tiered({ maxWaitMs: 50 });
    remote.mode = 'hang';
    const t0 = Date.now();
    expect(await fetchAt(b, 1)).toMatchObject({ errorCode: 0, offsets: [] });
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it('answers KAFKA_STORAGE_ERROR for that partition when the lake fails', async () => {
    const { b, remote } = await tiered();
    remote.mode = 'fail';
    expect((await fetchAt(b, 1)).errorCode).toBe(ErrorCode.KAFKA_STORAGE_ERROR);
    expect((await fetchAt(b, 7)).offsets).toEqual([7, 8, 9]); // Redis offsets still served
  });

  it('reads the lake again when local retention trimmed Redis while it was read (no gap)', async () => {
    let hook: (() => Promise<void>) | null = null;
    class TrimmingStore extends MemoryLogStore {
      override async read(tp: TopicPartition, offset: number, count: number) {
        const h = hook;
        hook = null;
        if (h) await h(); // retention runs between the fetch's choice of tier and its Redis read
        return super.read(tp, offset, count);
      }
    }
    const { b, remote, p } = await tiered({ store: new TrimmingStore() });
    b.log.tailCache.limit = 0; // retention runs during a Redis read, which the tail cache would spare
    remote.to = 8;
    p.archivedOffset = 7;
    hook = () => b.log.advanceLogStart(p, 8, true);
    expect(await fetchAt(b, 6)).toMatchObject({ errorCode: 0, offsets: [6, 7] });
    expect(remote.calls.at(-1)).toEqual({ offset: 6, endOffset: 8 });
  });

  it('ListOffsets: EARLIEST is the Kafka log start, EARLIEST_LOCAL the Redis one, LATEST_TIERED the archived end; time lookups ask the lake first', async () => {
    const { b } = await tiered();
    expect(await listOffset(b, -2)).toEqual({ errorCode: 0, offset: 0 });
    expect(await listOffset(b, -4)).toEqual({ errorCode: 0, offset: 6 });
    expect(await listOffset(b, -5)).toEqual({ errorCode: 0, offset: 5 });
    expect(await listOffset(b, -1)).toEqual({ errorCode: 0, offset: 10 });
    expect(await listOffset(b, 1003)).toEqual({ errorCode: 0, offset: 3 }); // in the lake
    expect(await listOffset(b, 1008)).toEqual({ errorCode: 0, offset: 8 }); // in Redis
  });

  it('LATEST_TIERED is -1 on a topic without remote storage, and EARLIEST_LOCAL its log start', async () => {
    const b = unitServices();
    await b.log.createTopic('t', 1, {});
    expect(await listOffset(b, -5)).toEqual({ errorCode: 0, offset: -1 });
    expect(await listOffset(b, -4)).toEqual({ errorCode: 0, offset: 0 });
  });

  it('DeleteRecords moves the Kafka log start within the lake, and both starts past the Redis one', async () => {
    const { b } = await tiered();
    const del = async (offset: number) => (await deleteRecordsHandler.handle({ topics: [{ name: 't', partitions: [{ partitionIndex: 0, offset }] }], timeoutMs: 1000 }, ctx(2), b))!.topics[0]!.partitions[0]!;
    expect(await del(3)).toMatchObject({ errorCode: 0, lowWatermark: 3 });
    expect(await listOffset(b, -2)).toEqual({ errorCode: 0, offset: 3 });
    expect(await listOffset(b, -4)).toEqual({ errorCode: 0, offset: 6 });
    expect((await fetchAt(b, 2)).errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    expect((await fetchAt(b, 3)).offsets).toEqual([3, 4, 5]);
    expect(await del(8)).toMatchObject({ errorCode: 0, lowWatermark: 8 });
    expect(await listOffset(b, -2)).toEqual({ errorCode: 0, offset: 8 });
    expect((await fetchAt(b, 5)).errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
  });
});

describe('a slow lake read that fails', () => {
  it('reaches the next fetch of the same offset as KAFKA_STORAGE_ERROR: fetches join the read in flight instead of starting another', async () => {
    const { b, remote } = await tiered({ maxWaitMs: 50 });
    let fail: (e: Error) => void = () => {};
    let started = 0;
    remote.read = () => { started++; return new Promise((_, reject) => { fail = reject; }); };
    expect(await fetchAt(b, 1)).toMatchObject({ errorCode: 0, offsets: [] }); // past remote.fetch.max.wait.ms: nothing yet
    const second = fetchAt(b, 1);
    setTimeout(() => fail(new KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, 'S3 answered 500 three times')), 10);
    expect((await second).errorCode).toBe(ErrorCode.KAFKA_STORAGE_ERROR);
    expect(started).toBe(1);
  });
});
