// common/lease/lease.ts against a real redis-server: only the holder renews or
// releases; another holder's calls change nothing; many leases renew in batches.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RENEW_BATCH_KEYS, releaseLease, renewLeases, takeLease } from '../../common/lease/lease.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';

describe('common/lease', () => {
  let server: RedisServer;
  let redis: Redis;
  beforeAll(async () => {
    server = await startRedis({ cluster: false, appendonly: false });
    redis = new Redis(server.url, { lazyConnect: false });
  });
  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  it('take, renew and release are the holder\'s alone', async () => {
    const key = 'rn:p:{t/0}:archiver-lease';
    expect(await takeLease(redis, key, 'a', 1_000)).toBe(true);
    expect(await takeLease(redis, key, 'b', 1_000)).toBe(false);
    expect(await renewLeases(redis, [key], 'b', 60_000)).toEqual([false]);
    expect(await redis.pttl(key)).toBeLessThanOrEqual(1_000);
    expect(await renewLeases(redis, [key], 'a', 60_000)).toEqual([true]);
    expect(await redis.pttl(key)).toBeGreaterThan(1_000);
    expect(await releaseLease(redis, key, 'b')).toBe(false);
    expect(await redis.get(key)).toBe('a');
    expect(await releaseLease(redis, key, 'a')).toBe(true);
    expect(await redis.exists(key)).toBe(0);
    expect(await renewLeases(redis, [key], 'a', 1_000)).toEqual([false]); // an expired or released lease is not renewed
    expect(await takeLease(redis, key, 'b', 1_000)).toBe(true);
  });

  it('renews many leases in batches of RENEW_BATCH_KEYS, answering per key in order', async () => {
    const n = RENEW_BATCH_KEYS * 2 + 7;
    const keys = Array.from({ length: n }, (_, i) => `rn:p:{many/${i}}:archiver-lease`);
    for (const [i, k] of keys.entries()) if (i % 4 !== 3) expect(await takeLease(redis, k, i % 4 === 0 ? 'b' : 'a', 1_000)).toBe(true);
    const before = Number(/cmdstat_evalsha:calls=(\d+)/.exec(await redis.info('commandstats'))?.[1] ?? 0);
    const ok = await renewLeases(redis, keys, 'a', 60_000);
    expect(ok).toEqual(keys.map((_, i) => i % 4 === 1 || i % 4 === 2));
    const after = Number(/cmdstat_evalsha:calls=(\d+)/.exec(await redis.info('commandstats'))?.[1] ?? 0);
    expect(after - before).toBe(3); // ceil(n / RENEW_BATCH_KEYS) calls, not one per key
    for (const [i, k] of keys.entries()) {
      const ttl = await redis.pttl(k);
      if (ok[i]) expect(ttl).toBeGreaterThan(1_000);
      else if (i % 4 === 0) expect(ttl).toBeLessThanOrEqual(1_000); // b's lease is not extended by a
      else expect(ttl).toBe(-2);
    }
  });
});
