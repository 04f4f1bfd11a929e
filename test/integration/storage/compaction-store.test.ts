// The compaction store against a real redis-server/valkey-server: a pass's
// writes and swap are accepted only while it is the partition's current pass
// of the current leader epoch; the swap is one step (reads see the old pair
// of streams or the new one); reads route offsets below the clean point to
// the compacted prefix, and trimming covers both streams.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisLogStore } from '../../../broker/src/redis/redis-log-store.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { buildBatch } from '../../helpers/batches.js';

let redis: RedisServer;
let store: RedisLogStore;
beforeAll(async () => {
  redis = await startRedis();
  store = new RedisLogStore(redis.url, 'cx');
  await store.connect();
});
afterAll(async () => {
  await store?.close();
  await redis?.stop();
});

/** A batch of `n` keyed records (lastOffsetDelta n-1). */
const batch = (n: number, tag: string) => buildBatch(Array.from({ length: n }, (_, i) => ({ key: Buffer.from(`k${i}`), value: Buffer.from(`${tag}${i}`) })));

async function fill(tp: { topic: string; partition: number }, epoch: number, sizes: number[]): Promise<void> {
  // The topic record gives the partition its placement (its hash tag on a Redis Cluster).
  await store.createTopic({ name: tp.topic, id: `id-${tp.topic}`, partitions: 1, configs: {}, created: Date.now() });
  await store.redis.hset(store.keyNames.meta(tp), 'leaderEpoch', String(epoch));
  let base = 0;
  for (const n of sizes) {
    expect(await store.append(tp, { epoch, baseOffset: base, nextOffset: base + n, batch: batch(n, `b${base}-`), producer: null })).toBe('ok');
    base += n;
  }
}

describe('compaction store (real Redis)', () => {
  it('fences a superseded pass and a stale epoch; the swap moves the clean point and trims the log in one step', async () => {
    const tp = { topic: 'cs', partition: 0 };
    await fill(tp, 3, [5, 5, 5, 5]); // batches at 0, 5, 10, 15
    const cx = store.compaction;
    expect(await cx.begin(tp, 2, 'stale')).toBe(false); // not the leader epoch
    expect(await cx.begin(tp, 3, 'first')).toBe(true);
    const [b0, b5] = await cx.scanLog(tp, 0, 2);
    expect(await cx.write(tp, 'first', [{ baseOffset: 0, bytes: b0!.bytes, horizon: null }])).toBe(true);
    // A newer pass begins: the first one's scratch is dropped and its writes and swap refused.
    expect(await cx.begin(tp, 3, 'second')).toBe(true);
    expect(await store.redis.exists(store.keyNames.compactedScratch(tp))).toBe(0);
    expect(await cx.write(tp, 'first', [{ baseOffset: 5, bytes: b5!.bytes, horizon: null }])).toBe(false);
    expect(await cx.finish(tp, 3, 'first', 10)).toBe(false);
    expect(await cx.write(tp, 'second', [{ baseOffset: 5, bytes: b5!.bytes, horizon: 123 }])).toBe(true);
    // A stale leader cannot swap even with the current token.
    expect(await cx.finish(tp, 2, 'second', 10)).toBe(false);
    expect(await cx.finish(tp, 3, 'second', 10)).toBe(true);
    expect((await store.tail(tp)).cleanedTo).toBe(10);
    expect(await store.redis.hget(store.keyNames.meta(tp), 'cleaning')).toBe(null);
    // The log keeps batches from 10 on; the prefix holds what the pass wrote (batch 0 was dropped by it).
    expect((await cx.scanLog(tp, 0, 10)).map((b) => b.baseOffset)).toEqual([10, 15]);
    expect(await cx.scanCompacted(tp, 0, 10)).toEqual([{ baseOffset: 5, bytes: b5!.bytes, horizon: 123 }]);
    // Reads route by offset: 0..4 are gone (the prefix starts at 5), 5..9 come from the prefix, 10.. from the log.
    expect((await store.read(tp, 0, 10)).map((b) => b.baseOffset)).toEqual([5]);
    expect((await store.read(tp, 7, 10)).map((b) => b.baseOffset)).toEqual([5]);
    expect((await store.read(tp, 12, 10)).map((b) => b.baseOffset)).toEqual([10, 15]);
    expect((await store.readBackwards(tp, 19, 3)).map((b) => b.baseOffset)).toEqual([15, 10, 5]);
    // Appends continue at the log end, unaffected.
    expect(await store.append(tp, { epoch: 3, baseOffset: 20, nextOffset: 21, batch: batch(1, 'x'), producer: null })).toBe('ok');
    // Trimming (retention, DeleteRecords) covers the prefix too.
    expect(await store.trimBefore(tp, 10)).toBe(1);
    expect(await cx.scanCompacted(tp, 0, 10)).toEqual([]);
    expect((await store.read(tp, 10, 10)).map((b) => b.baseOffset)).toEqual([10, 15, 20]);
  });

  it('a swap trims the new prefix below a log start that moved during the pass, keeping the batch that contains it', async () => {
    const tp = { topic: 'cs2', partition: 0 };
    await fill(tp, 1, [5, 5, 5, 5]);
    const cx = store.compaction;
    const all = await cx.scanLog(tp, 0, 10);
    expect(await cx.begin(tp, 1, 't')).toBe(true);
    expect(await cx.write(tp, 't', all.slice(0, 3).map((b) => ({ baseOffset: b.baseOffset, bytes: b.bytes, horizon: null })))).toBe(true);
    await store.setLogStartOffset(tp, 7); // DeleteRecords while the pass ran
    expect(await cx.finish(tp, 1, 't', 15)).toBe(true);
    expect((await cx.scanCompacted(tp, 0, 10)).map((b) => b.baseOffset)).toEqual([5, 10]);
  });
});
