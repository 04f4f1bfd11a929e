// KafkaJS 2.2.4 interop: admin API + produce round trip for every codec.
//
// Read-back choice: KafkaJS can only consume through a consumer group, and this
// suite must not depend on group support. So records produced by KafkaJS are read
// back with `kcat -C -e -J -o beginning` (librdkafka's group-less legacy consumer:
// ListOffsets + Fetch only), decoded byte-exactly (see support.ts). That also makes
// the check cross-client: what KafkaJS wrote must be what an independent client reads.
import kafkajs from 'kafkajs';
import type { Admin, Kafka as KafkaT, Message, IHeaders } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTarget } from '../../helpers/target.js';
import { byPartition, hex, kafkajsCodecs, kcatConsume, requireKcat, uniqueTopic } from './support.js';

const { Kafka, CompressionTypes, CompressionCodecs, logLevel } = kafkajs;

type Target = Awaited<ReturnType<typeof startTarget>>;

const PARTITIONS = 3;
const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
const CODEC_TYPE: Record<(typeof CODECS)[number], number> = {
  none: CompressionTypes.None,
  gzip: CompressionTypes.GZIP,
  snappy: CompressionTypes.Snappy,
  lz4: CompressionTypes.LZ4,
  zstd: CompressionTypes.ZSTD,
};
const available = kafkajsCodecs(kafkajs as never);

/** Deterministic pseudo-random bytes (xorshift32). */
function prng(seed: number, n: number): Buffer {
  const b = Buffer.alloc(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    b[i] = x & 0xff;
  }
  return b;
}

interface Expected {
  partition: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: Array<[string, Buffer | null]>;
  ts: number;
}

const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

/** Builds N messages covering keys (text, binary, empty, null), values, headers, timestamps. */
function buildMessages(n: number, seed: number, baseTs: number): { msgs: Array<Message & { partition: number }>; expected: Expected[] } {
  const msgs: Array<Message & { partition: number }> = [];
  const expected: Expected[] = [];
  for (let i = 0; i < n; i++) {
    const partition = i % PARTITIONS;
    let key: Buffer | null;
    if (i % 6 === 0) key = null;
    else if (i % 6 === 1) key = Buffer.from(`key-${i}-é✓`);
    else if (i % 6 === 2) key = Buffer.concat([ALL_BYTES, prng(seed + i, 7)]);
    else if (i % 6 === 3) key = Buffer.alloc(0);
    else key = prng(seed * 31 + i, 1 + (i % 40));

    let value: Buffer | null;
    if (i % 7 === 3) value = null; // tombstone
    else if (i % 7 === 4) value = Buffer.alloc(0);
    else if (i % 7 === 5) value = Buffer.from(`compressible ${i} `.repeat(3000)); // ~50 KB, several codec blocks
    else if (i % 7 === 6) value = ALL_BYTES;
    else value = prng(seed ^ (i * 7919), 10 + ((i * 37) % 900));

    let headers: IHeaders | undefined;
    const expHeaders: Array<[string, Buffer | null]> = [];
    if (i % 4 === 1) {
      headers = { 'x-idx': String(i) };
      expHeaders.push(['x-idx', Buffer.from(String(i))]);
    } else if (i % 4 === 2) {
      const bin = prng(seed + 1000 + i, 16);
      headers = { 'x-idx': String(i), 'x-bin': bin, 'x-empty': Buffer.alloc(0), 'ünïcode-kéy': 'välue' };
      expHeaders.push(
        ['x-idx', Buffer.from(String(i))],
        ['x-bin', bin],
        ['x-empty', Buffer.alloc(0)],
        ['ünïcode-kéy', Buffer.from('välue')],
      );
    } else if (i % 4 === 3) {
      // Repeated header keys: KafkaJS emits one record header per array element, in order.
      headers = { multi: ['first', Buffer.from([0, 1, 2]), 'third'], tail: 'z' };
      expHeaders.push(['multi', Buffer.from('first')], ['multi', Buffer.from([0, 1, 2])], ['multi', Buffer.from('third')], ['tail', Buffer.from('z')]);
    }
    // Explicit, non-monotonic create timestamps (jitter backwards every 5th record).
    const ts = baseTs + i * 1000 - (i % 5 === 4 ? 3500 : 0);
    msgs.push({ partition, key, value, headers, timestamp: String(ts) });
    expected.push({ partition, key, value, headers: expHeaders, ts });
  }
  return { msgs, expected };
}

describe('KafkaJS 2.2.4 client interop', () => {
  let target: Target;
  let kafka: KafkaT;
  let admin: Admin;

  beforeAll(async () => {
    await requireKcat();
    target = await startTarget();
    kafka = new Kafka({
      clientId: 'runnel-interop-kafkajs',
      brokers: [target.bootstrap],
      logLevel: logLevel.ERROR,
      retry: { retries: 8, initialRetryTime: 100 },
    });
    admin = kafka.admin();
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.disconnect().catch(() => {});
    await target?.stop();
  });

  it('admin: createTopics, listTopics, fetchTopicMetadata, fetchTopicOffsets(+ByTimestamp), deleteTopics', async () => {
    const topic = uniqueTopic('kjs-admin');
    expect(await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }], waitForLeaders: true })).toBe(true);
    // Creating it again is reported as "already exists" (KafkaJS resolves false).
    expect(await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS }], waitForLeaders: true })).toBe(false);
    expect(await admin.listTopics()).toContain(topic);

    const md = await admin.fetchTopicMetadata({ topics: [topic] });
    expect(md.topics).toHaveLength(1);
    expect(md.topics[0]!.name).toBe(topic);
    const parts = [...md.topics[0]!.partitions].sort((a, b) => a.partitionId - b.partitionId);
    expect(parts.map((p) => p.partitionId)).toEqual([0, 1, 2]);
    for (const p of parts) {
      expect(p.partitionErrorCode).toBe(0);
      expect(p.leader).toBeGreaterThanOrEqual(0);
      expect(p.replicas).toContain(p.leader);
      expect(p.isr).toContain(p.leader);
    }

    // Empty topic: low = high = 0 everywhere.
    const empty = await admin.fetchTopicOffsets(topic);
    expect(empty.map((o) => [o.partition, o.low, o.high, o.offset]).sort()).toEqual([
      [0, '0', '0', '0'],
      [1, '0', '0', '0'],
      [2, '0', '0', '0'],
    ]);

    // 2 records to p0, none to p1, 5 to p2, with known timestamps.
    const base = Date.now() - 60 * 60 * 1000;
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    try {
      await producer.send({
        topic,
        acks: -1,
        messages: [
          { partition: 0, value: 'a0', timestamp: String(base) },
          { partition: 0, value: 'a1', timestamp: String(base + 10_000) },
          ...[0, 1, 2, 3, 4].map((i) => ({ partition: 2, value: `c${i}`, timestamp: String(base + i * 10_000) })),
        ],
      });
    } finally {
      await producer.disconnect();
    }
    const offs = await admin.fetchTopicOffsets(topic);
    expect(offs.map((o) => [o.partition, o.low, o.high, o.offset]).sort()).toEqual([
      [0, '0', '2', '2'],
      [1, '0', '0', '0'],
      [2, '0', '5', '5'],
    ]);
    // First offset with timestamp >= base+15s: p0 has none (=> high watermark), p2 -> offset 2.
    const byTs = await admin.fetchTopicOffsetsByTimestamp(topic, base + 15_000);
    expect(byTs.map((o) => [o.partition, o.offset]).sort()).toEqual([
      [0, '2'],
      [1, '0'],
      [2, '2'],
    ]);

    await admin.deleteTopics({ topics: [topic], timeout: 15_000 });
    // Deletion propagates to metadata asynchronously on a real cluster; poll briefly.
    const deadline = Date.now() + 15_000;
    let topics = await admin.listTopics();
    while (topics.includes(topic) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      topics = await admin.listTopics();
    }
    expect(topics).not.toContain(topic);
    await expect(admin.fetchTopicMetadata({ topics: [topic] })).rejects.toThrow();
  });

  for (const codec of CODECS) {
    it.skipIf(!available.has(codec))(`produce round trip, compression=${codec} (read back with kcat)`, async () => {
      const topic = uniqueTopic(`kjs-rt-${codec}`);
      expect(await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }], waitForLeaders: true })).toBe(true);

      const N = 60;
      const { msgs, expected } = buildMessages(N, 0x5eed + codec.length, Date.now() - 2 * 60 * 60 * 1000);
      const producer = kafka.producer({ allowAutoTopicCreation: false });
      await producer.connect();
      try {
        // Two sends => at least two record batches per partition.
        const half = N / 2;
        for (const chunk of [msgs.slice(0, half), msgs.slice(half)]) {
          const res = await producer.send({ topic, acks: -1, compression: CODEC_TYPE[codec], messages: chunk });
          for (const r of res) expect(r.errorCode).toBe(0);
        }
      } finally {
        await producer.disconnect();
      }

      const got = byPartition(await kcatConsume(target.bootstrap, topic));
      for (let p = 0; p < PARTITIONS; p++) {
        const exp = expected.filter((e) => e.partition === p);
        const recs = got.get(p) ?? [];
        expect(recs.map((r) => r.offset)).toEqual(exp.map((_, i) => i));
        expect(
          recs.map((r) => ({ tstype: r.tstype, ts: r.ts, key: hex(r.key), value: hex(r.value), headers: r.headers.map(([k, v]) => [k, hex(v)]) })),
        ).toEqual(exp.map((e) => ({ tstype: 'create', ts: e.ts, key: hex(e.key), value: hex(e.value), headers: e.headers.map(([k, v]) => [k, hex(v)]) })));
      }
      expect([...got.keys()].every((p) => p >= 0 && p < PARTITIONS)).toBe(true);

      const offs = await admin.fetchTopicOffsets(topic);
      for (const o of offs) expect(o.high).toBe(String(expected.filter((e) => e.partition === o.partition).length));

      await admin.deleteTopics({ topics: [topic] }).catch(() => {});
    });
  }
});
