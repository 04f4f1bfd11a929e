// Bad batches get Kafka's per-partition error codes; the connection stays usable.
import { describe, expect, it } from 'vitest';
import { Produce } from '../../broker/src/protocol/messages/produce.js';
import { Fetch } from '../../broker/src/protocol/messages/fetch.js';
import { CreateTopics } from '../../broker/src/protocol/messages/create-topics.js';
import { ErrorCode } from '../../broker/src/errors.js';
import { WireClient } from '../helpers/wire.js';
import { buildBatch } from '../helpers/batches.js';
import { useBroker } from './broker-fixture.js';

const fx = useBroker();

async function createTopic(c: WireClient, name: string, configs: Array<{ name: string; value: string }> = []): Promise<void> {
  const res = await c.request(CreateTopics, 7, { topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs }], timeoutMs: 5000 });
  expect(res.topics[0].errorCode).toBe(0);
}

function produce(c: WireClient, topic: string, records: Buffer, version = 9, acks = -1) {
  return c.request(Produce, version, { transactionalId: null, acks, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] });
}

const partitionResult = (res: Record<string, any>) => res.responses[0].partitionResponses[0];

describe('produce validation', () => {
  it('accepts a valid batch and assigns dense offsets', async () => {
    const c = await WireClient.connect(fx.broker.port);
    await createTopic(c, 'valid');
    const a = partitionResult(await produce(c, 'valid', buildBatch([{ key: null, value: Buffer.from('a') }, { key: null, value: Buffer.from('b') }])));
    const b = partitionResult(await produce(c, 'valid', buildBatch([{ key: null, value: Buffer.from('c') }])));
    expect([a.errorCode, a.baseOffset, b.errorCode, b.baseOffset]).toEqual([0, 0, 0, 2]);
    c.close();
  });

  it('rejects a CRC mismatch with CORRUPT_MESSAGE and stores nothing', async () => {
    const c = await WireClient.connect(fx.broker.port);
    await createTopic(c, 'crc');
    const batch = buildBatch([{ key: Buffer.from('k'), value: Buffer.from('value') }]);
    batch[batch.length - 1] ^= 0xff;
    expect(partitionResult(await produce(c, 'crc', batch)).errorCode).toBe(ErrorCode.CORRUPT_MESSAGE);
    const good = partitionResult(await produce(c, 'crc', buildBatch([{ key: null, value: Buffer.from('ok') }])));
    expect(good).toMatchObject({ errorCode: 0, baseOffset: 0 });
    c.close();
  });

  it('rejects a truncated batch and a wrong magic byte', async () => {
    const c = await WireClient.connect(fx.broker.port);
    await createTopic(c, 'trunc');
    const batch = buildBatch([{ key: null, value: Buffer.from('x'.repeat(100)) }]);
    expect(partitionResult(await produce(c, 'trunc', batch.subarray(0, 40))).errorCode).toBe(ErrorCode.CORRUPT_MESSAGE);
    expect(partitionResult(await produce(c, 'trunc', batch.subarray(0, batch.length - 10))).errorCode).toBe(ErrorCode.CORRUPT_MESSAGE);
    const magic = Buffer.from(batch);
    magic[16] = 1;
    expect(partitionResult(await produce(c, 'trunc', magic)).errorCode).toBe(ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT);
    c.close();
  });

  it('rejects a batch over max.message.bytes with MESSAGE_TOO_LARGE', async () => {
    const c = await WireClient.connect(fx.broker.port);
    await createTopic(c, 'small', [{ name: 'max.message.bytes', value: '2000' }]);
    const big = buildBatch([{ key: null, value: Buffer.alloc(5000, 1) }]);
    expect(partitionResult(await produce(c, 'small', big)).errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    expect(partitionResult(await produce(c, 'small', buildBatch([{ key: null, value: Buffer.alloc(100, 1) }]))).errorCode).toBe(0);
    c.close();
  });

  it('answers unknown topics, bad acks and missing partitions with their codes', async () => {
    const c = await WireClient.connect(fx.broker.port);
    const batch = buildBatch([{ key: null, value: Buffer.from('v') }]);
    expect(partitionResult(await produce(c, 'no-such-topic', batch)).errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    await createTopic(c, 'acks');
    expect(partitionResult(await produce(c, 'acks', batch, 9, 2)).errorCode).toBe(ErrorCode.INVALID_REQUIRED_ACKS);
    c.close();
  });

  it('serves a fetch at the first offset with the stored bytes, byte for byte', async () => {
    const c = await WireClient.connect(fx.broker.port);
    await createTopic(c, 'fetchme');
    const batch = buildBatch([{ key: Buffer.from('k'), value: Buffer.from('hello'), headers: [['h', Buffer.from('1')]] }]);
    const sent = Buffer.from(batch);
    expect(partitionResult(await produce(c, 'fetchme', batch)).errorCode).toBe(0);
    const res = await c.request(Fetch, 11, {
      replicaId: -1, maxWaitMs: 100, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
      topics: [{ topic: 'fetchme', partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
      forgottenTopicsData: [], rackId: '',
    });
    const p = res.responses[0].partitions[0];
    expect(p.errorCode).toBe(0);
    expect(p.highWatermark).toBe(1);
    const got = Buffer.from(p.records);
    // The broker rewrites only baseOffset (0 here) and partitionLeaderEpoch (bytes 12-15).
    sent.writeInt32BE(got.readInt32BE(12), 12);
    expect(got.equals(sent)).toBe(true);
    c.close();
  });
});
