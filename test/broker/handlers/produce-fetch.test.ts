// Handlers without a network: an in-memory store behind the real LogManager.
import { describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../../broker/src/config.js';
import { LogManager } from '../../../broker/src/log/log-manager.js';
import { produceHandler } from '../../../broker/src/handlers/produce.js';
import { fetchHandler } from '../../../broker/src/handlers/fetch.js';
import { listOffsetsHandler } from '../../../broker/src/handlers/list-offsets.js';
import type { BrokerServices, RequestContext } from '../../../broker/src/handlers/types.js';
import { createLogger } from '../../../broker/src/logger.js';
import { ErrorCode } from '../../../broker/src/errors.js';
import { MemoryLogStore } from '../support/memory-log-store.js';
import { soloCluster } from '../../../broker/src/cluster/cluster-view.js';
import { buildBatch } from '../../helpers/batches.js';

function services(store = new MemoryLogStore()): BrokerServices {
  const config = loadBrokerConfig([], {});
  const cluster = soloCluster({ nodeId: config.nodeId, host: '127.0.0.1', port: 9092, rack: null });
  return { config, clusterId: 'c', log: new LogManager(store, config), store, logger: createLogger('error', 'test'), cluster };
}

const ctx = (apiVersion: number): RequestContext => ({ apiKey: 0, apiVersion, correlationId: 1, clientId: 't', connectionId: 1 });

const produceReq = (topic: string, records: Buffer, acks = 1) => ({
  transactionalId: null, acks, timeoutMs: 1000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }],
});

const fetchReq = (topic: string, offset: number, maxWaitMs = 0) => ({
  replicaId: -1, maxWaitMs, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
  topics: [{ topic, topicId: '', partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: offset, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
  forgottenTopicsData: [], rackId: '',
});

describe('produce and fetch handlers', () => {
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
    expect(p.records.length).toBe(1);
    expect(p.records[0].readBigInt64BE(0)).toBe(2n);
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
    expect(parts[0].records.length).toBe(1); // over the limit, but the first batch is always served
    expect(parts[1].records.length).toBe(0); // budget spent
    expect(parts[1].highWatermark).toBe(1);
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
    expect(f!.responses[0].partitions[0].records.length).toBe(1);
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
    const req = (timestamp: number) => ({ replicaId: -1, isolationLevel: 0, topics: [{ name: 't', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp }] }] });
    const ask = async (ts: number) => (await listOffsetsHandler.handle(req(ts), ctx(7), b))!.topics[0].partitions[0];
    expect((await ask(-2)).offset).toBe(0);
    expect((await ask(-1)).offset).toBe(3);
    expect(await ask(1500)).toMatchObject({ offset: 1, timestamp: 2000 });
    expect(await ask(-3)).toMatchObject({ offset: 2, timestamp: 3000 });
    expect((await ask(9999)).offset).toBe(-1);
  });
});
