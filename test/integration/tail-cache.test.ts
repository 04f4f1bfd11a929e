// The tail cache (log.tail.cache.bytes) against real Redis and real clients:
// kcat consumers at the tail while kcat producers write get every record once
// and in order, answered from the cache (its metrics move); the bytes a
// cached Fetch returns are the bytes Redis holds and those a broker without
// the cache returns; a DeleteRecords trim makes the trimmed offset
// OFFSET_OUT_OF_RANGE though the cache held it; and a broker that lost its
// partition to another (SIGSTOP past its lease) never serves what it cached
// after the new leader trimmed the log and wrote new records.
//
// Runnel only (the cache and its metrics are Runnel's; two brokers share one
// Redis): skipped with RUNNEL_TEST_TARGET=kafka. Runs once, on redis.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { Fetch } from '../../broker/src/protocol/messages/fetch.js';
import { DeleteRecords } from '../../broker/src/protocol/messages/delete-records.js';
import { ErrorCode } from '../../common/errors.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../helpers/runnel.js';
import { freePort, runCommand, sleep, waitFor } from '../helpers/procs.js';
import { targetKindFromEnv } from '../helpers/target.js';
import { WireClient } from '../helpers/wire.js';
import { buildBatch } from '../helpers/batches.js';
import { decodeBatch, logKeyV2, signal, startConsumer, wireCreateTopic, wireMetadata, wireProduce } from '../helpers/faults.js';

const onKafka = targetKindFromEnv() === 'kafka';
const TOKEN = 'tail-cache-test';

let redis: RedisServer;
let broker: RunnelBroker;
let httpPort: number;

beforeAll(async () => {
  if (onKafka) return;
  redis = await startRedis();
  httpPort = await freePort();
  broker = await startRunnel({ redisUrl: redis.url, args: ['--set', `http.port=${httpPort}`, '--set', `http.auth.bearer.token=${TOKEN}`, '--set', 'log.retention.check.interval.ms=300'] });
}, 60_000);

afterAll(async () => {
  await broker?.stop().catch(() => undefined);
  await redis?.stop();
});

/** One series of the broker's /metrics (0 when absent). */
async function metric(port: number, series: string): Promise<number> {
  const r = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` }, signal: AbortSignal.timeout(10_000) });
  const line = (await r.text()).split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

interface Fetched { errorCode: number; highWatermark: number; bytes: Buffer; values: string[] }

/** Fetch v11 of one partition at `offset` (read_uncommitted, no wait). */
async function fetchAt(port: number, topic: string, partition: number, offset: number): Promise<Fetched> {
  const c = await WireClient.connect(port);
  try {
    const r = await c.request(Fetch, 11, {
      replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
      topics: [{ topic, partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset: offset, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
      forgottenTopicsData: [], rackId: '',
    });
    const p = r.responses[0].partitions[0];
    const bytes: Buffer = p.records ? Buffer.from(p.records) : Buffer.alloc(0);
    const values: string[] = [];
    for (let at = 0; at + 12 <= bytes.length;) {
      const size = bytes.readInt32BE(at + 8) + 12;
      for (const rec of decodeBatch(bytes.subarray(at, at + size)).records ?? []) values.push(rec.value ?? '');
      at += size;
    }
    return { errorCode: p.errorCode, highWatermark: Number(p.highWatermark), bytes, values };
  } finally {
    c.close();
  }
}

/** The stored batches of a partition from `from` on, straight from its Redis stream, concatenated. */
async function storedBytes(url: string, topic: string, partition: number, from: number): Promise<Buffer> {
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 });
  await r.connect();
  try {
    const entries = (await r.xrangeBuffer(logKeyV2(topic, partition), '-', '+')) as Array<[Buffer, Buffer[]]>;
    const out: Buffer[] = [];
    for (const [id, fields] of entries) {
      const bytes = fields[fields.findIndex((f, i) => i % 2 === 0 && f.toString() === 'b') + 1]!;
      const base = Number(id.toString().split('-')[0]);
      if (base + bytes.readInt32BE(23) >= from) out.push(bytes);
    }
    return Buffer.concat(out);
  } finally {
    r.disconnect();
  }
}

async function deleteRecords(port: number, topic: string, offset: number): Promise<{ errorCode: number; lowWatermark: number }> {
  const c = await WireClient.connect(port);
  try {
    const r = await c.request(DeleteRecords, 2, { topics: [{ name: topic, partitions: [{ partitionIndex: 0, offset }] }], timeoutMs: 5000 });
    const p = r.topics[0].partitions[0];
    return { errorCode: p.errorCode, lowWatermark: Number(p.lowWatermark) };
  } finally {
    c.close();
  }
}

const batchOf = (values: string[]) => buildBatch(values.map((v) => ({ key: null, value: Buffer.from(v) })));

describe.skipIf(onKafka)('tail cache', () => {
  it('kcat consumers at the tail, while kcat producers write, get every record exactly once and in order, from the cache', async () => {
    const topic = 'tail-live';
    expect(await wireCreateTopic(broker.port, topic, 4)).toBe(0);
    const hits0 = await metric(httpPort, 'runnel_tail_cache_lookups_total{result="hit"}');
    const consumers = [startConsumer(broker.bootstrap, topic), startConsumer(broker.bootstrap, topic)];
    const ROUNDS = 15;
    const PER_ROUND = 200;
    try {
      await sleep(1500); // both consumers are at the (empty) tail, long-polling
      for (let r = 0; r < ROUNDS; r++) {
        const lines = Array.from({ length: PER_ROUND }, (_, i) => `k${i % 16}:r${r}-${i}`).join('\n') + '\n';
        const out = await runCommand('kcat', ['-b', broker.bootstrap, '-P', '-t', topic, '-K:', '-X', 'linger.ms=5'], { input: lines, timeoutMs: 30_000 });
        expect(out.code, out.stderr).toBe(0);
        await sleep(100);
      }
      const total = ROUNDS * PER_ROUND;
      for (const c of consumers) await waitFor('consumer caught up', () => c.records().length >= total, { timeoutMs: 60_000, proc: c.proc });
      await sleep(500); // nothing more may arrive
      for (const c of consumers) {
        const got = c.records();
        expect(got).toHaveLength(total); // nothing twice
        expect(new Set(got.map((x) => x.value)).size).toBe(total); // nothing missing
        for (let p = 0; p < 4; p++) {
          const mine = got.filter((x) => x.partition === p);
          expect(mine.map((x) => x.offset)).toEqual(mine.map((_, i) => i)); // dense, in order
        }
        // per key (one partition each), the order the producer wrote them in
        for (let k = 0; k < 16; k++) {
          const seq = got.filter((x) => x.key === `k${k}`).map((x) => { const [r, i] = x.value.slice(1).split('-'); return Number(r) * PER_ROUND + Number(i); });
          expect(seq).toEqual([...seq].sort((a, b) => a - b));
        }
      }
    } finally {
      for (const c of consumers) await c.stop();
    }
    const hits = (await metric(httpPort, 'runnel_tail_cache_lookups_total{result="hit"}')) - hits0;
    expect(hits).toBeGreaterThan(ROUNDS);
    expect(await metric(httpPort, 'runnel_tail_cache_served_bytes_total')).toBeGreaterThan(ROUNDS * PER_ROUND * 4);
    expect(await metric(httpPort, 'runnel_tail_cache_bytes')).toBeGreaterThan(0);
  }, 120_000);

  it('a DeleteRecords trim makes the trimmed offsets OFFSET_OUT_OF_RANGE, though the cache held them', async () => {
    const topic = 'tail-trim';
    expect(await wireCreateTopic(broker.port, topic, 1)).toBe(0);
    const c = await WireClient.connect(broker.port);
    try {
      for (let i = 0; i < 10; i++) expect((await wireProduce(c, topic, 0, batchOf([`v${i}`]), 1)).errorCode).toBe(0);
    } finally {
      c.close();
    }
    expect((await fetchAt(broker.port, topic, 0, 2)).values).toEqual(['v2', 'v3', 'v4', 'v5', 'v6', 'v7', 'v8', 'v9']);
    expect(await deleteRecords(broker.port, topic, 6)).toEqual({ errorCode: 0, lowWatermark: 6 });
    expect((await fetchAt(broker.port, topic, 0, 2)).errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    expect((await fetchAt(broker.port, topic, 0, 5)).errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    const at6 = await fetchAt(broker.port, topic, 0, 6);
    expect(at6.values).toEqual(['v6', 'v7', 'v8', 'v9']);
    expect(at6.bytes.equals(await storedBytes(redis.url, topic, 0, 6))).toBe(true);
  }, 60_000);

  it('retention trims what the cache held: the trimmed offsets are OFFSET_OUT_OF_RANGE', async () => {
    const topic = 'tail-retention';
    expect(await wireCreateTopic(broker.port, topic, 1, { 'retention.ms': '1000' })).toBe(0);
    const old = Date.now() - 60_000; // record timestamps past retention.ms: every batch but the newest is due
    const c = await WireClient.connect(broker.port);
    try {
      for (let i = 0; i < 6; i++) {
        const b = buildBatch([{ key: null, value: Buffer.from(`r${i}`), timestamp: old + i }]);
        expect((await wireProduce(c, topic, 0, b, 1)).errorCode).toBe(0);
      }
    } finally {
      c.close();
    }
    // Right after the appends, from the cache (retention has not run yet, or has just trimmed: both are fine here).
    const first = await fetchAt(broker.port, topic, 0, 0);
    expect([0, ErrorCode.OFFSET_OUT_OF_RANGE]).toContain(first.errorCode);
    await waitFor('retention trimmed all but the newest batch', async () => (await fetchAt(broker.port, topic, 0, 0)).errorCode === ErrorCode.OFFSET_OUT_OF_RANGE, { timeoutMs: 20_000, intervalMs: 100 });
    for (const offset of [0, 3, 4]) expect((await fetchAt(broker.port, topic, 0, offset)).errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    const at5 = await fetchAt(broker.port, topic, 0, 5);
    expect(at5.values).toEqual(['r5']);
    expect(at5.bytes.equals(await storedBytes(redis.url, topic, 0, 5))).toBe(true);
  }, 60_000);

  it('serves the bytes Redis holds, the same a broker without the cache serves', async () => {
    const topic = 'tail-bytes';
    expect(await wireCreateTopic(broker.port, topic, 1, { 'message.timestamp.type': 'LogAppendTime' })).toBe(0);
    const hits0 = await metric(httpPort, 'runnel_tail_cache_lookups_total{result="hit"}');
    const c = await WireClient.connect(broker.port);
    const fetched: Buffer[] = [];
    try {
      for (let i = 0; i < 20; i++) {
        const values = Array.from({ length: 1 + (i % 5) }, (_, j) => `b${i}-${j}-${'x'.repeat(i * 37)}`);
        const base = (await wireProduce(c, topic, 0, batchOf(values), 1)).baseOffset;
        fetched.push((await fetchAt(broker.port, topic, 0, base)).bytes); // at the tail: from the cache
      }
    } finally {
      c.close();
    }
    expect((await metric(httpPort, 'runnel_tail_cache_lookups_total{result="hit"}')) - hits0).toBeGreaterThanOrEqual(20);
    const cached = Buffer.concat(fetched);
    expect(cached.equals(await storedBytes(redis.url, topic, 0, 0))).toBe(true);
    const whole = await fetchAt(broker.port, topic, 0, 0);
    expect(whole.bytes.equals(cached)).toBe(true);

    // The same offsets from a broker that has the cache off (it takes the partition over on the same Redis).
    await broker.stop();
    const offPort = await freePort();
    broker = await startRunnel({ redisUrl: redis.url, args: ['--set', 'log.tail.cache.bytes=0', '--set', `http.port=${offPort}`, '--set', `http.auth.bearer.token=${TOKEN}`] });
    let off: Fetched | null = null;
    await waitFor('the broker without the cache serves the partition', async () => {
      off = await fetchAt(broker.port, topic, 0, 0);
      return off.errorCode === 0 && off.bytes.length > 0;
    }, { timeoutMs: 30_000, intervalMs: 200 });
    expect(off!.bytes.equals(cached)).toBe(true);
    expect(await metric(offPort, 'runnel_tail_cache_lookups_total{result="hit"}')).toBe(0);
  }, 90_000);
});

describe.skipIf(onKafka)('tail cache across a leadership change', () => {
  const LEASE_MS = 2000;
  let redis2: RedisServer;
  const brokers = new Map<number, RunnelBroker>();

  beforeAll(async () => {
    redis2 = await startRedis();
    const args = (id: number): string[] => ['--node-id', String(id), '--set', `broker.lease.ms=${LEASE_MS}`, '--set', 'leadership.tick.ms=250'];
    brokers.set(1, await startRunnel({ redisUrl: redis2.url, args: args(1) }));
    brokers.set(2, await startRunnel({ redisUrl: redis2.url, args: args(2) }));
  }, 60_000);

  afterAll(async () => {
    for (const b of brokers.values()) {
      try { process.kill(b.proc().pid, 'SIGCONT'); } catch { /* gone */ }
      await b.stop().catch(() => undefined);
    }
    await redis2?.stop();
  });

  it('a broker that lost the partition never serves what it cached after the new leader trimmed and rewrote the log', async () => {
    const topic = 'tail-move';
    expect(await wireCreateTopic(brokers.get(1)!.port, topic, 1)).toBe(0);
    let leader = -1;
    await waitFor('a leader', async () => {
      leader = (await wireMetadata(brokers.get(1)!.port, topic)).partitions[0]?.leaderId ?? -1;
      return brokers.has(leader);
    }, { timeoutMs: 20_000, intervalMs: 200 });
    const old = brokers.get(leader)!;
    const other = [...brokers.entries()].find(([id]) => id !== leader)![1];
    const c = await WireClient.connect(old.port);
    try {
      for (let i = 0; i < 5; i++) expect((await wireProduce(c, topic, 0, batchOf([`old${i}`]), 1)).errorCode).toBe(0);
    } finally {
      c.close();
    }
    expect((await fetchAt(old.port, topic, 0, 0)).values).toEqual(['old0', 'old1', 'old2', 'old3', 'old4']); // cached on the old leader

    // The old leader stops past its lease; the other broker takes the partition, trims it and writes new records.
    signal(old.proc(), 'SIGSTOP');
    try {
      const o = await WireClient.connect(other.port);
      try {
        let base = -1;
        await waitFor('the takeover', async () => {
          const r = await wireProduce(o, topic, 0, batchOf(['new5']), 1, 2000);
          base = r.baseOffset;
          return r.errorCode === 0;
        }, { timeoutMs: 20_000, intervalMs: 250 });
        expect(base).toBe(5);
        for (let i = 6; i < 9; i++) expect((await wireProduce(o, topic, 0, batchOf([`new${i}`]), 1)).errorCode).toBe(0);
      } finally {
        o.close();
      }
      expect(await deleteRecords(other.port, topic, 7)).toEqual({ errorCode: 0, lowWatermark: 7 });
    } finally {
      signal(old.proc(), 'SIGCONT');
    }

    // Whatever the old leader answers now, it is never a record it cached before the takeover.
    const seen: string[] = [];
    const deadline = Date.now() + 3 * LEASE_MS;
    while (Date.now() < deadline) {
      for (const offset of [0, 4, 7]) {
        const r = await fetchAt(old.port, topic, 0, offset);
        if (r.errorCode === 0) {
          seen.push(...r.values);
          expect(r.bytes.equals(await storedBytes(redis2.url, topic, 0, offset))).toBe(true);
        } else {
          expect([ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.OFFSET_OUT_OF_RANGE, ErrorCode.FENCED_LEADER_EPOCH, ErrorCode.UNKNOWN_LEADER_EPOCH]).toContain(r.errorCode);
        }
      }
      await sleep(200);
    }
    expect(seen.filter((v) => v.startsWith('old'))).toEqual([]);
    // And the partition's leader, whichever it is now, serves Redis's bytes from the new log start.
    const now = (await wireMetadata(other.port, topic)).partitions[0]!.leaderId;
    const tail = await fetchAt(brokers.get(now)!.port, topic, 0, 7);
    expect(tail.values).toEqual(['new7', 'new8']);
    expect(tail.bytes.equals(await storedBytes(redis2.url, topic, 0, 7))).toBe(true);
  }, 90_000);
});
