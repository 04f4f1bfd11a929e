// The topic config compression.type means what it means in Kafka: `producer`
// stores batches as sent; any codec makes the broker recompress every batch
// with it (uncompressed = none). Runs against Runnel or Apache Kafka
// (RUNNEL_TEST_TARGET=kafka).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Fetch } from '../../broker/src/protocol/messages/fetch.js';
import { readBatchHeader } from '../../common/record-batch/header.js';
import { compress } from '../../common/record-batch/compress.js';
import { Codec } from '../../common/record-batch/layout.js';
import { buildBatch, recordsSection, withRecordsSection } from '../helpers/batches.js';
import { startTarget, type Target } from '../helpers/target.js';
import type { WireClient } from '../helpers/wire.js';
import { connect, createTopic, readAll } from './compaction/support.js';
import { Produce } from '../../broker/src/protocol/messages/produce.js';

let target: Target;
let c: WireClient;
beforeAll(async () => {
  target = await startTarget();
  c = await connect(target.bootstrap);
}, 120_000);
afterAll(async () => {
  c?.close();
  await target?.stop();
});

/** The codec of the first batch stored in the partition. */
async function storedCodec(topic: string): Promise<number> {
  const res = await c.request(Fetch, 11, {
    replicaId: -1, maxWaitMs: 100, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
    topics: [{ topic, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
    forgottenTopicsData: [], rackId: '',
  });
  return readBatchHeader(Buffer.from(res.responses[0].partitions[0].records)).codec;
}

async function send(topic: string, codec: number): Promise<void> {
  const plain = buildBatch(Array.from({ length: 5 }, (_, i) => ({ key: Buffer.from(`k${i}`), value: Buffer.from(`value ${i} `.repeat(20)) })));
  const batch = codec === Codec.NONE ? plain : withRecordsSection(plain, compress(codec, recordsSection(plain), { xerial: codec === Codec.SNAPPY }), codec);
  const r = await c.request(Produce, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records: batch }] }] });
  expect(r.responses[0].partitionResponses[0].errorCode).toBe(0);
}

describe('topic compression.type', () => {
  const cases: Array<[string, number, number]> = [
    ['lz4', Codec.NONE, Codec.LZ4],
    ['zstd', Codec.GZIP, Codec.ZSTD],
    ['uncompressed', Codec.SNAPPY, Codec.NONE],
    ['producer', Codec.GZIP, Codec.GZIP],
  ];
  for (const [type, sent, stored] of cases) {
    it(`compression.type=${type}: a batch sent with codec ${sent} is stored with codec ${stored}, records unchanged`, async () => {
      const topic = `ct-${type}-${Date.now()}`;
      await createTopic(c, topic, { 'compression.type': type });
      await send(topic, sent);
      expect(await storedCodec(topic)).toBe(stored);
      expect((await readAll(c, topic)).map((r) => `${r.offset}:${r.key}`)).toEqual(['0:k0', '1:k1', '2:k2', '3:k3', '4:k4']);
    }, 30_000);
  }
});
