// Runnel's compaction under load and next to the rest of the broker: readers
// during passes, a key map smaller than the key set, the archiver's
// watermark, idempotent producers whose batches were compacted away, and
// cleanup.policy=compact,delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { waitFor } from '../../helpers/procs.js';
import type { WireClient } from '../../helpers/wire.js';
import { ErrorCode } from '../../../common/errors.js';
import { connect, createTopic, expectedCompacted, listOffset, produce, readAll, rec, FAST_COMPACTION, type ReadRecord } from './support.js';

let redis: RedisServer;
let broker: RunnelBroker;
let c: WireClient;
/** The key map holds 16 keys (128 bytes each), so a pass over more keys stops early and the next one continues. */
const MAP_KEYS = 16;

beforeAll(async () => {
  redis = await startRedis();
  broker = await startRunnel({ redisUrl: redis.url, env: { RUNNEL_LOG_CLEANER_BACKOFF_MS: '100' }, args: ['--set', `log.cleaner.dedupe.buffer.size=${128 * MAP_KEYS}`, '--set', 'log.retention.check.interval.ms=200'] });
  c = await connect(broker.bootstrap);
}, 60_000);
afterAll(async () => {
  c?.close();
  await broker?.stop();
  await redis?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cleanedTo = async (topic: string): Promise<number> => {
  const m = /\r\n(\d+)/.exec(await redis.command(`HGET rn:p:{${topic}/0}:meta cleanedTo`));
  return m ? Number(m[1]) : 0;
};

async function write(topic: string, records: Array<[string, string | null]>, written: ReadRecord[], o: Parameters<typeof produce>[3] = {}): Promise<number> {
  const r = await produce(c, topic, records.map(([k, v]) => rec(k, v)), o);
  expect(r.errorCode).toBe(0);
  records.forEach(([key, value], i) => written.push({ offset: r.baseOffset + i, key, value }));
  return r.baseOffset;
}

async function converge(topic: string, want: ReadRecord[], reader: WireClient = c): Promise<ReadRecord[]> {
  let got: ReadRecord[] = [];
  await waitFor(`${topic} to converge`, async () => {
    got = await readAll(reader, topic);
    return JSON.stringify(got) === JSON.stringify(want);
  }, { timeoutMs: 30_000, intervalMs: 200 }).catch(() => undefined);
  return got;
}

describe('compaction in a running broker', () => {
  it('readers during passes never see an offset twice or out of order, and end with the latest value of every key; a small key map takes several passes', async () => {
    const topic = 'busy';
    await createTopic(c, topic, FAST_COMPACTION);
    const written: ReadRecord[] = [];
    const reader = await connect(broker.bootstrap);
    let reads = 0;
    let done = false;
    // readAll asserts offsets strictly grow within each read from the beginning.
    const loop = (async () => { while (!done) { await readAll(reader, topic); reads++; } })();
    for (let round = 0; round < 60; round++) {
      await write(topic, Array.from({ length: 20 }, (_, i): [string, string] => [`k${(round * 7 + i) % 48}`, `r${round}-${i}`]), written);
      if (round % 10 === 9) await sleep(150); // let segments roll and passes run between writes
    }
    await sleep(200);
    const newest = await write(topic, [['k0', 'newest']], written);
    const want = expectedCompacted(written, newest, { tombstones: true });
    const got = await converge(topic, want, reader);
    done = true;
    await loop;
    reader.close();
    expect(got).toEqual(want);
    expect(reads).toBeGreaterThan(3);
    // 48 keys with a 16-key map: at least three passes were needed, and they happened.
    expect(await cleanedTo(topic)).toBe(newest);
  }, 90_000);

  it('never compacts past the archiver watermark of an archived topic', async () => {
    const topic = 'archived';
    await createTopic(c, topic, { ...FAST_COMPACTION, 'archive.enable': 'true' });
    await redis.command(`HSET rn:p:{${topic}/0}:meta archived 39`);
    const written: ReadRecord[] = [];
    for (let round = 0; round < 10; round++) await write(topic, Array.from({ length: 10 }, (_, i): [string, string] => [`k${i}`, `r${round}`]), written);
    await sleep(300);
    await write(topic, [['k0', 'newest']], written);
    await waitFor('a pass up to the watermark', async () => (await cleanedTo(topic)) === 40, { timeoutMs: 15_000 });
    await sleep(1000); // more passes would have moved it past 40 by now
    expect(await cleanedTo(topic)).toBe(40);
    // Everything from the watermark on is still there record by record (the lake has not got it yet).
    const got = await readAll(c, topic);
    expect(got.filter((r) => r.offset >= 40)).toEqual(written.filter((r) => r.offset >= 40));
    expect(got.filter((r) => r.offset < 40).map((r) => r.offset)).toEqual([30, 31, 32, 33, 34, 35, 36, 37, 38, 39]);
  }, 60_000);

  it('idempotent producers: a retry of a batch compacted away is still answered from the producer state, and sequences continue', async () => {
    const topic = 'idem';
    await createTopic(c, topic, FAST_COMPACTION);
    const written: ReadRecord[] = [];
    const p1 = { producerId: 7001, producerEpoch: 0 };
    const first = await write(topic, [['a', 'p1-0'], ['b', 'p1-1']], written, { ...p1, baseSequence: 0 });
    const second = await write(topic, [['a', 'p1-2'], ['b', 'p1-3']], written, { ...p1, baseSequence: 2 });
    expect([first, second]).toEqual([0, 2]);
    // Another producer supersedes both keys, so p1's batches are compacted away entirely.
    for (let i = 0; i < 5; i++) await write(topic, [['a', `p2-${i}`], ['b', `p2-${i}`]], written, { producerId: 7002, producerEpoch: 0, baseSequence: i * 2 });
    await sleep(300);
    const newest = await write(topic, [['z', 'newest']], written);
    await converge(topic, expectedCompacted(written, newest, { tombstones: true }));
    expect((await readAll(c, topic)).some((r) => r.value?.startsWith('p1-'))).toBe(false);
    // The retry of p1's last batch: a duplicate, answered with its original offset, not stored again.
    const retry = await produce(c, topic, [rec('a', 'p1-2'), rec('b', 'p1-3')], { ...p1, baseSequence: 2 });
    expect(retry).toMatchObject({ errorCode: 0, baseOffset: 2 });
    expect(await listOffset(c, topic, -1)).toBe(newest + 1);
    // Its next sequence is accepted; a gap is still an error.
    expect(await produce(c, topic, [rec('a', 'p1-4')], { ...p1, baseSequence: 4 })).toMatchObject({ errorCode: 0, baseOffset: newest + 1 });
    expect((await produce(c, topic, [rec('a', 'p1-x')], { ...p1, baseSequence: 9 })).errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
  }, 60_000);

  it('cleanup.policy=compact,delete: retention removes old records even when they are the latest of their key', async () => {
    const topic = 'both';
    await createTopic(c, topic, { ...FAST_COMPACTION, 'cleanup.policy': 'compact,delete', 'retention.ms': '60000' });
    const old = Date.now() - 3_600_000;
    for (let i = 0; i < 4; i++) expect((await produce(c, topic, [{ key: Buffer.from(`old${i}`), value: Buffer.from('x'), timestamp: old }])).errorCode).toBe(0);
    const written: ReadRecord[] = [];
    for (let i = 0; i < 3; i++) await write(topic, [['k', `new${i}`]], written);
    await sleep(300);
    await write(topic, [['z', 'newest']], written);
    // The four old keys go by retention, k's superseded values by compaction.
    const want = [written[2]!, written[3]!];
    expect(await converge(topic, want)).toEqual(want);
    expect(await listOffset(c, topic, -2)).toBe(4);
  }, 60_000);
});
