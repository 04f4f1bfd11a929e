// Handlers without a network: an in-memory store behind the real LogManager.
import { describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../../broker/src/config/config.js';
import { LogManager } from '../../../broker/src/log/log-manager.js';
import { produceHandler } from '../../../broker/src/handlers/produce.js';
import { fetchHandler } from '../../../broker/src/handlers/fetch.js';
import { listOffsetsHandler } from '../../../broker/src/handlers/list-offsets.js';
import type { BrokerServices, RequestContext } from '../../../broker/src/handlers/support/types.js';
import { createLogger } from '../../../common/logger/logger.js';
import { ErrorCode } from '../../../common/errors.js';
import { MemoryLogStore } from '../support/memory-log-store.js';
import { unitServices } from '../support/services.js';
import { soloCluster } from '../../../broker/src/cluster/cluster-view.js';
import { buildBatch } from '../../helpers/batches.js';
import { newSession } from '../../../broker/src/security/session.js';
import { FetchSessionCache } from '../../../broker/src/fetch/fetch-sessions.js';
import { Fetch } from '../../../broker/src/protocol/messages/fetch.js';
import { wireRequest } from '../support/requests.js';

/** Counts the bytes of stored batches handed to readers. */
class CountingStore extends MemoryLogStore {
  readBytes = 0;
  override async read(tp: Parameters<MemoryLogStore['read']>[0], offset: number, count: number) {
    const out = await super.read(tp, offset, count);
    for (const x of out) this.readBytes += x.bytes.length;
    return out;
  }
}

function services(store = new MemoryLogStore()): BrokerServices {
  return unitServices({ store });
}

const ctx = (apiVersion: number): RequestContext => ({ apiKey: 0, apiVersion, correlationId: 1, clientId: 't', session: newSession(1, '127.0.0.1') });

const produceReq = (topic: string, records: Buffer, acks = 1) => ({
  transactionalId: null, acks, timeoutMs: 1000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }],
});

const fetchReq = (topic: string, offset: number, maxWaitMs = 0, version = 11) => wireRequest(Fetch, version, {
  replicaId: -1, maxWaitMs, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
  topics: [{ topic, topicId: '', partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: offset, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
  forgottenTopicsData: [], rackId: '',
});

/** The stored batches the fetch handler answers a partition with. */
function batchesOf(p: { records?: Uint8Array | readonly Buffer[] | null }): readonly Buffer[] {
  if (!p.records || p.records instanceof Uint8Array) throw new Error('expected a list of stored batches');
  return p.records;
}

/** Runs `during` once, between a read's reply from the store and its return (an append landing mid-fetch). */
class InterleavingStore extends MemoryLogStore {
  during: (() => Promise<unknown>) | null = null;
  override async read(tp: Parameters<MemoryLogStore['read']>[0], offset: number, count: number) {
    const out = await super.read(tp, offset, count);
    const f = this.during;
    this.during = null;
    if (f) await f();
    return out;
  }
}

describe('produce and fetch handlers', () => {
  it('report the high watermark and LSO the read was bounded by, not ones that moved during it (as Kafka does)', async () => {
    const store = new InterleavingStore();
    const b = services(store);
    b.log.tailCache.limit = 0; // the interleaving happens in a store read: off the tail cache
    await b.log.createTopic('t', 1, {});
    await produceHandler.handle(produceReq('t', buildBatch([{ key: null, value: Buffer.from('a') }])), ctx(9), b);
    store.during = () => produceHandler.handle(produceReq('t', buildBatch([{ key: null, value: Buffer.from('b') }])), ctx(9), b);
    const p = (await fetchHandler.handle(fetchReq('t', 0), ctx(11), b))!.responses[0].partitions[0];
    expect(batchesOf(p).length).toBe(1);
    // A consumer that got everything below the reported marks is at their end
    // (librdkafka's partition EOF); marks from after the read would keep it chasing.
    expect(p.highWatermark).toBe(1);
    expect(p.lastStableOffset).toBe(1);
    expect((await fetchHandler.handle(fetchReq('t', 1), ctx(11), b))!.responses[0].partitions[0].highWatermark).toBe(2);
  });

  it('assign dense offsets and serve the stored batches', async () => {
    const b = services();
    await b.log.createTopic('t', 1, {});
    const r1 = await produceHandler.handle(produceReq('t', buildBatch([{ key: null, value: Buffer.from('a') }, { key: null, value: Buffer.from('b') }])), ctx(9), b);
    const r2 = await produceHandler.handle(produceReq('t', buildBatch([{ key: null, value: Buffer.from('c') }])), ctx(9), b);
    expect(r1!.responses[0].partitionResponses[0]).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect(r2!.responses[0].partitionResponses[0]).toMatchObject({ errorCode: 0, baseOffset: 2 });
    const f = await fetchHandler.handle(fetchReq('t', 2), ctx(11), b);
    const p = f!.responses[0].partitions[0];
    expect(p.highWatermark).toBe(3);
    expect(batchesOf(p).length).toBe(1);
    expect(batchesOf(p)[0]!.readBigInt64BE(0)).toBe(2n);
  });

  it('hands the byte budget out in request order, always one whole batch first (KIP-74)', async () => {
    const b = services();
    await b.log.createTopic('t', 2, {});
    for (const index of [0, 1]) {
      const req = { ...produceReq('t', buildBatch([{ key: null, value: Buffer.alloc(2000, index) }])) };
      req.topicData[0]!.partitionData[0]!.index = index;
      await produceHandler.handle(req, ctx(9), b);
    }
    const req = fetchReq('t', 0);
    req.maxBytes = 1000;
    req.topics[0]!.partitions.push({ ...req.topics[0]!.partitions[0]!, partition: 1 });
    const parts = (await fetchHandler.handle(req, ctx(11), b))!.responses[0].partitions;
    expect(batchesOf(parts[0]).length).toBe(1); // over the limit, but the first batch is always served
    expect(batchesOf(parts[1]).length).toBe(0); // budget spent
    expect(parts[1].highWatermark).toBe(1);
  });

  it('answers a partition named several times once, at its first position (Kafka keys fetches by partition)', async () => {
    const b = services();
    await b.log.createTopic('t', 2, {});
    await produceHandler.handle(produceReq('t', buildBatch([{ key: null, value: Buffer.from('x') }])), ctx(9), b);
    const req = fetchReq('t', 0);
    const p0 = req.topics[0]!.partitions[0]!;
    req.topics[0]!.partitions = [p0, { ...p0, partition: 1 }, p0, p0];
    const parts = (await fetchHandler.handle(req, ctx(11), b))!.responses[0].partitions;
    expect(parts.map((p: any) => p.partitionIndex)).toEqual([0, 1]);
    expect(batchesOf(parts[0]).length).toBe(1);
  });

  it('bounds what it reads from the store by max.bytes before reading (not after)', async () => {
    const store = new CountingStore();
    const b = services(store);
    await b.log.createTopic('t', 20, {});
    for (let index = 0; index < 20; index++) {
      for (let i = 0; i < 4; i++) {
        const req = produceReq('t', buildBatch([{ key: null, value: Buffer.alloc(50_000, i) }]));
        req.topicData[0]!.partitionData[0]!.index = index;
        await produceHandler.handle(req, ctx(9), b);
      }
    }
    const req = fetchReq('t', 0);
    req.maxBytes = 300_000;
    const p0 = req.topics[0]!.partitions[0]!;
    req.topics[0]!.partitions = Array.from({ length: 20 }, (_, i) => ({ ...p0, partition: i, partitionMaxBytes: 1 << 20 }));
    store.readBytes = 0;
    const budget = b.log.readAheadBudget;
    // The fetch's own reads: no read ahead for the next fetch (its bound is its own budget, below).
    const limit = budget.limit;
    budget.limit = 0;
    let parts;
    try {
      parts = (await fetchHandler.handle(req, ctx(11), b))!.responses[0].partitions;
    } finally {
      budget.limit = limit;
    }
    const served = parts.reduce((n: number, p: any) => n + p.records.reduce((m: number, r: Buffer) => m + r.length, 0), 0);
    expect(served).toBeGreaterThan(200_000);
    expect(served).toBeLessThanOrEqual(300_000);
    // 20 partitions x 200 KB are stored; at most the budget plus one topic-max-batch allowance is read.
    expect(store.readBytes).toBeLessThanOrEqual(300_000 + 1_048_588);
    expect(parts.every((p: any) => p.highWatermark === 4)).toBe(true);
  });

  it('reads ahead where each answered partition ends, within the broker-wide read-ahead budget', async () => {
    const store = new CountingStore();
    const b = services(store);
    b.log.tailCache.limit = 0; // reads ahead are for what is no longer in the tail cache
    await b.log.createTopic('t', 8, {});
    for (let index = 0; index < 8; index++) {
      for (let i = 0; i < 4; i++) {
        const req = produceReq('t', buildBatch([{ key: null, value: Buffer.alloc(50_000, i) }]));
        req.topicData[0]!.partitionData[0]!.index = index;
        await produceHandler.handle(req, ctx(9), b);
      }
    }
    const req = fetchReq('t', 0);
    req.maxBytes = 1 << 20;
    const p0 = req.topics[0]!.partitions[0]!;
    req.topics[0]!.partitions = Array.from({ length: 8 }, (_, i) => ({ ...p0, partition: i, partitionMaxBytes: 60_000 }));
    const parts = await Promise.all(Array.from({ length: 8 }, (_, i) => b.log.partition('t', i)));
    const budget = b.log.readAheadBudget;
    const limit = budget.limit;
    const before = budget.used;
    try {
      await fetchHandler.handle(req, ctx(11), b);
      expect(parts.every((p) => p.ahead.size === 1)).toBe(true);
      const each = (budget.used - before) / 8;
      expect(each).toBeGreaterThan(0);
      for (const p of parts) p.ahead.clear();
      expect(budget.used).toBe(before);
      budget.limit = before + 4.5 * each; // room for 4 of the 8 partitions' next reads
      await fetchHandler.handle(req, ctx(11), b);
      expect(parts.filter((p) => p.ahead.size === 1).length).toBe(4);
      expect(budget.used).toBeLessThanOrEqual(budget.limit);
      // The next fetch, at offset 1 of every partition, takes those four reads.
      req.topics[0]!.partitions = req.topics[0]!.partitions.map((p) => ({ ...p, fetchOffset: 1 }));
      const next = (await fetchHandler.handle(req, ctx(11), b))!.responses[0].partitions;
      expect(next.map((p: any) => batchesOf(p).length)).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
      expect(parts.reduce((n, p) => n + p.ahead.taken, 0)).toBe(4);
      for (const p of parts) p.ahead.clear();
    } finally {
      budget.limit = limit;
    }
  });

  it('caps a request max_bytes at fetch.max.bytes', async () => {
    const b = services();
    b.config.fetchMaxBytes = 120_000;
    await b.log.createTopic('t', 1, {});
    for (let i = 0; i < 5; i++) await produceHandler.handle(produceReq('t', buildBatch([{ key: null, value: Buffer.alloc(50_000, i) }])), ctx(9), b);
    const req = fetchReq('t', 0);
    req.maxBytes = 50 << 20;
    const parts = (await fetchHandler.handle(req, ctx(11), b))!.responses[0].partitions;
    expect(batchesOf(parts[0]).length).toBe(2);
  });

  it('answers a fetch with no partitions at once, whatever its MaxWaitMs', async () => {
    const b = services();
    const req = fetchReq('t', 0, 10_000);
    req.topics = [];
    const started = Date.now();
    await fetchHandler.handle(req, ctx(11), b);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('answers OFFSET_OUT_OF_RANGE past the high watermark', async () => {
    const b = services();
    await b.log.createTopic('t', 1, {});
    const f = await fetchHandler.handle(fetchReq('t', 5), ctx(11), b);
    expect(f!.responses[0].partitions[0].errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
  });

  it('long-polls until an append arrives', async () => {
    const b = services();
    await b.log.createTopic('t', 1, {});
    const started = Date.now();
    const pending = fetchHandler.handle(fetchReq('t', 0, 5000), ctx(11), b);
    await new Promise((r) => setTimeout(r, 50));
    await produceHandler.handle(produceReq('t', buildBatch([{ key: null, value: Buffer.from('late') }])), ctx(9), b);
    const f = await pending;
    expect(batchesOf(f!.responses[0].partitions[0]).length).toBe(1);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('returns no response for acks=0 and a retriable error when the store is down', async () => {
    const store = new MemoryLogStore();
    const b = services(store);
    await b.log.createTopic('t', 1, {});
    expect(await produceHandler.handle(produceReq('t', buildBatch([{ key: null, value: Buffer.from('x') }]), 0), ctx(9), b)).toBeNull();
    store.failing = true;
    b.log.cachedPartition('t', 0)!.invalidate();
    const r = await produceHandler.handle(produceReq('t', buildBatch([{ key: null, value: Buffer.from('y') }])), ctx(9), b);
    expect(r!.responses[0].partitionResponses[0].errorCode).toBe(ErrorCode.KAFKA_STORAGE_ERROR);
  });

  it('lists earliest, latest and by-timestamp offsets', async () => {
    const b = services();
    await b.log.createTopic('t', 1, {});
    await produceHandler.handle(produceReq('t', buildBatch([{ key: null, value: Buffer.from('a'), timestamp: 1000 }, { key: null, value: Buffer.from('b'), timestamp: 2000 }])), ctx(9), b);
    await produceHandler.handle(produceReq('t', buildBatch([{ key: null, value: Buffer.from('c'), timestamp: 3000 }])), ctx(9), b);
    const req = (timestamp: number) => ({ replicaId: -1, isolationLevel: 0, topics: [{ name: 't', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp }] }], timeoutMs: 0 });
    const ask = async (ts: number) => (await listOffsetsHandler.handle(req(ts), ctx(7), b))!.topics[0].partitions[0];
    expect((await ask(-2)).offset).toBe(0);
    expect((await ask(-1)).offset).toBe(3);
    expect(await ask(1500)).toMatchObject({ offset: 1, timestamp: 2000 });
    expect(await ask(-3)).toMatchObject({ offset: 2, timestamp: 3000 });
    expect((await ask(9999)).offset).toBe(-1);
  });

  it('acks=all: a retry after an unconfirmed append is checked against the store, not answered as a duplicate of a lost write', async () => {
    // A Redis failover: the primary stored the batch and died before its replica
    // got it. The WAIT fails, the promoted replica lacks the batch and the
    // producer state; the producer's retry must be appended again.
    class FailoverStore extends MemoryLogStore {
      loseNext = false;
      override async connectedReplicas() { return 1; }
      override async waitReplicas() {
        if (!this.loseNext) return { replicas: 1, aofLocal: false };
        this.loseNext = false;
        const part = this.parts.get('t/0')!;
        part.batches.pop();
        part.next = null;
        part.producers.clear();
        throw new Error('Connection is closed.');
      }
    }
    const store = new FailoverStore();
    const b = services(store);
    await b.log.createTopic('t', 1, { 'min.insync.replicas': '2' });
    const batch = () => buildBatch([{ key: null, value: Buffer.from('x') }], { producerId: 7, producerEpoch: 0, baseSequence: 0 });
    store.loseNext = true;
    const first = (await produceHandler.handle(produceReq('t', batch(), -1), ctx(9), b))!.responses[0].partitionResponses[0];
    expect(first.errorCode).toBe(ErrorCode.KAFKA_STORAGE_ERROR);
    const retry = (await produceHandler.handle(produceReq('t', batch(), -1), ctx(9), b))!.responses[0].partitionResponses[0];
    expect(retry).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect(store.parts.get('t/0')!.batches.length).toBe(1);
  });

  it('incremental fetch sessions (KIP-227): a full fetch opens one, then only changed partitions are sent and answered', async () => {
    const b = { ...services(), fetchSessions: new FetchSessionCache(10) };
    await b.log.createTopic('s', 2, {});
    const produce = (partition: number, v: string) => produceHandler.handle({ ...produceReq('s', buildBatch([{ key: null, value: Buffer.from(v) }])), topicData: [{ name: 's', partitionData: [{ index: partition, records: buildBatch([{ key: null, value: Buffer.from(v) }]) }] }] }, ctx(9), b);
    await produce(0, 'a');
    const req = (sessionId: number, sessionEpoch: number, parts: Array<[number, number]>, forgotten: number[] = []) => wireRequest(Fetch, 12, {
      ...fetchReq('s', 0, 0, 12), sessionId, sessionEpoch,
      topics: parts.length ? [{ topic: 's', topicId: '', partitions: parts.map(([partition, fetchOffset]) => ({ partition, currentLeaderEpoch: -1, fetchOffset, logStartOffset: -1, partitionMaxBytes: 1 << 20 })) }] : [],
      forgottenTopicsData: forgotten.length ? [{ topic: 's', topicId: '', partitions: forgotten }] : [],
    });
    const answered = (r: any) => r.responses.flatMap((t: any) => t.partitions.map((p: any) => [p.partitionIndex, p.highWatermark, p.records.length]));
    const full = (await fetchHandler.handle(req(0, 0, [[0, 0], [1, 0]]), ctx(12), b))!;
    expect(full.sessionId).toBeGreaterThan(0);
    const sid = full.sessionId ?? 0;
    expect(answered(full)).toEqual([[0, 1, 1], [1, 0, 0]]);
    // Nothing changed: an incremental fetch answers no partition.
    const none = (await fetchHandler.handle(req(sid, 1, [[0, 1]]), ctx(12), b))!;
    expect(none.sessionId).toBe(full.sessionId);
    expect(answered(none)).toEqual([]);
    // A record on partition 1 is sent although the request named no partition.
    await produce(1, 'b');
    expect(answered((await fetchHandler.handle(req(sid, 2, []), ctx(12), b))!)).toEqual([[1, 1, 1]]);
    // A replayed epoch is refused; so is an unknown session.
    expect((await fetchHandler.handle(req(sid, 2, []), ctx(12), b))!.errorCode).toBe(ErrorCode.INVALID_FETCH_SESSION_EPOCH);
    expect((await fetchHandler.handle(req(12345, 1, []), ctx(12), b))!.errorCode).toBe(ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
    // The session keeps the last offset the client sent: partition 1 is read from 0 again until the client moves it.
    expect(answered((await fetchHandler.handle(req(sid, 3, []), ctx(12), b))!)).toEqual([[1, 1, 1]]);
    // Forgotten partitions are no longer read; a session left empty ends (answered without a session).
    await produce(0, 'c');
    expect(answered((await fetchHandler.handle(req(sid, 4, [[1, 1]], [0]), ctx(12), b))!)).toEqual([]);
    const last = (await fetchHandler.handle(req(sid, 5, [], [1]), ctx(12), b))!;
    expect(last.sessionId).toBe(0);
    expect(b.fetchSessions.size).toBe(0);
    // Sessionless (epoch -1) fetches never open one.
    expect((await fetchHandler.handle(req(0, -1, [[0, 0]]), ctx(12), b))!.sessionId).toBe(0);
  });
});
