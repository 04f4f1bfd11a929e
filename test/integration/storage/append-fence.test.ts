// The append transaction against a real redis-server/valkey-server: the fence
// script lets the XADD through only for the current epoch at the stored log
// end, and a refusal leaves no trace (no entry, no stream created, no change
// of `next`), however refusals and accepted appends interleave.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisLogStore } from '../../../broker/src/storage/redis/redis-log-store.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { buildBatch } from '../../helpers/batches.js';

let redis: RedisServer;
let store: RedisLogStore;
beforeAll(async () => {
  redis = await startRedis();
  store = new RedisLogStore(redis.url, 'fx');
  await store.connect();
});
afterAll(async () => {
  await store?.close();
  await redis?.stop();
});

/** A batch of `n` records (lastOffsetDelta n-1). */
const batch = (n: number) => buildBatch(Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`r${i}`) })));
const req = (epoch: number, base: number, n: number, producer: { id: number; state: string } | null = null) => ({ epoch, baseOffset: base, nextOffset: base + n, batch: batch(n), producer });

describe('append fence (real Redis)', () => {
  it('accepts only the current epoch at the log end; refusals leave no trace', async () => {
    const tp = { topic: 'f', partition: 0 };
    const meta = store.keyNames.meta(tp);
    const log = store.keyNames.log(tp);
    // A stale writer on a partition that does not exist yet stores nothing.
    await store.redis.hset(meta, 'leaderEpoch', '2');
    expect(await store.append(tp, req(1, 0, 5))).toEqual({ fenced: 'FENCED epoch 2' });
    expect(await store.redis.xlen(log)).toBe(0);
    // The leader of epoch 2 writes from 0; its idempotence state is stored with the batch.
    expect(await store.append(tp, req(2, 0, 10, { id: 9, state: '1 0 0:9:0' }))).toBe('ok');
    expect(await store.redis.hget(store.keyNames.producers(tp), '9')).toBe('1 0 0:9:0');
    // Overlap (base 5 inside 0..9), gap (base 12), stale epoch at the right base: all refused.
    expect(await store.append(tp, req(2, 5, 5))).toEqual({ fenced: 'FENCED offset 10' });
    expect(await store.append(tp, req(2, 12, 1))).toEqual({ fenced: 'FENCED offset 10' });
    expect(await store.append(tp, req(1, 10, 1))).toEqual({ fenced: 'FENCED epoch 2' });
    expect(await store.redis.hget(meta, 'next')).toBe('10');
    // After refusals raised the stream's last id, the leader continues densely.
    expect(await store.append(tp, req(2, 10, 3))).toBe('ok');
    expect(await store.append(tp, req(2, 13, 1))).toBe('ok');
    expect(await store.append(tp, req(2, 100, 1))).toEqual({ fenced: 'FENCED offset 14' });
    expect(await store.append(tp, req(2, 14, 2))).toBe('ok');
    const ids = (await store.redis.xrange(log, '-', '+')).map(([id]) => id);
    expect(ids).toEqual(['0-1', '10-1', '13-1', '14-1']);
    expect(await store.redis.hget(meta, 'next')).toBe('16');
    const tail = await store.tail(tp);
    expect(tail.nextOffset).toBe(16);
    expect(tail.last?.baseOffset).toBe(14);
  });

  it('derives the log end once from the newest entry when `next` is not stored', async () => {
    const tp = { topic: 'legacy', partition: 0 };
    // A stream written without `next` (as before it existed): one batch of 4 records at base 7.
    await store.redis.xadd(store.keyNames.log(tp), '7-1', 'b', batch(4));
    expect(await store.append(tp, req(0, 10, 1))).toEqual({ fenced: 'FENCED offset 11' });
    expect(await store.append(tp, req(0, 11, 2))).toBe('ok');
    expect(await store.redis.hget(store.keyNames.meta(tp), 'next')).toBe('13');
  });
});
