// kcat -z <codec> stores compressed batches. librdkafka decides from the
// broker's ApiVersions whether it may compress: gzip, snappy and lz4 need
// Produce v0 in the advertised range (its check asks for exactly v0; zstd asks
// for v7). A broker advertising Produce 3+ gets uncompressed batches and the
// notice "Broker does not support compression type ...: not compressing batch".
// Kafka 4.0 advertises Produce 0-12 for this reason and refuses v0-v2 on use
// (KAFKA-18659). Each batch is read back with a raw Fetch and its codec bits
// (attributes & 7) are checked.
import kafkajs from 'kafkajs';
import type { Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Fetch } from '../../../broker/src/protocol/messages/fetch.js';
import { readBatchHeader } from '../../../common/record-batch/header.js';
import { Codec, LOG_OVERHEAD } from '../../../common/record-batch/layout.js';
import { startTarget } from '../../helpers/target.js';
import { WireClient } from '../../helpers/wire.js';
import { requireKcat, run, uniqueTopic } from './support.js';

type Target = Awaited<ReturnType<typeof startTarget>>;

const CODECS = [['gzip', Codec.GZIP], ['snappy', Codec.SNAPPY], ['lz4', Codec.LZ4], ['zstd', Codec.ZSTD]] as const;
const N = 50;

/** The codec id and record count of every batch of partition 0, read with a raw Fetch v11. */
async function storedBatches(port: number, topic: string): Promise<Array<{ codec: number; records: number }>> {
  const c = await WireClient.connect(port);
  try {
    const res = await c.request(Fetch, 11, {
      replicaId: -1, maxWaitMs: 100, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
      topics: [{ topic, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
      forgottenTopicsData: [], rackId: '',
    });
    const p = res.responses[0].partitions[0];
    expect(p.errorCode).toBe(0);
    const bytes = Buffer.from(p.records as Buffer);
    const out: Array<{ codec: number; records: number }> = [];
    for (let at = 0; at + LOG_OVERHEAD <= bytes.length;) {
      const size = bytes.readInt32BE(at + 8) + LOG_OVERHEAD;
      const h = readBatchHeader(bytes.subarray(at, at + size));
      out.push({ codec: h.codec, records: h.recordCount });
      at += size;
    }
    return out;
  } finally {
    c.close();
  }
}

describe('kcat -z stores compressed batches (Produce v0-v2 advertised)', () => {
  let target: Target;
  let admin: Admin;
  let port = 0;

  beforeAll(async () => {
    await requireKcat();
    target = await startTarget();
    port = Number(target.bootstrap.split(':').pop());
    admin = new kafkajs.Kafka({ clientId: 'runnel-kcat-compression', brokers: [target.bootstrap], logLevel: kafkajs.logLevel.NOTHING }).admin();
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.disconnect().catch(() => {});
    await target?.stop();
  });

  for (const [name, codec] of CODECS) {
    it(`kcat -z ${name}: every stored batch has codec ${name}, no 'does not support compression' notice`, async () => {
      const topic = uniqueTopic(`kcat-z-${name}`);
      expect(await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true })).toBe(true);
      // Compressible values: librdkafka sends a batch uncompressed when compression does not shrink it.
      const input = Array.from({ length: N }, (_, i) => `record-${i}-${'abcdefgh'.repeat(32)}`).join('\n') + '\n';
      // -d msg: librdkafka writes its decision per batch ("... not compressing batch", a msg debug line) to stderr.
      const r = await run('kcat', ['-b', target.bootstrap, '-P', '-t', topic, '-p', '0', '-z', name, '-X', 'linger.ms=200', '-d', 'msg'], { input, timeoutMs: 60_000 });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr.split('\n').filter((l) => l.includes('does not support compression'))).toEqual([]);
      const batches = await storedBatches(port, topic);
      expect(batches.reduce((n, b) => n + b.records, 0)).toBe(N);
      expect(batches.map((b) => b.codec)).toEqual(batches.map(() => codec));
    });
  }
});
