// common/lease/lease.ts against a real redis-server: only the holder renews or
// releases; another holder's calls change nothing.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseLease, renewLease, takeLease } from '../../common/lease/lease.js';
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
    expect(await renewLease(redis, key, 'b', 60_000)).toBe(false);
    expect(await redis.pttl(key)).toBeLessThanOrEqual(1_000);
    expect(await renewLease(redis, key, 'a', 60_000)).toBe(true);
    expect(await redis.pttl(key)).toBeGreaterThan(1_000);
    expect(await releaseLease(redis, key, 'b')).toBe(false);
    expect(await redis.get(key)).toBe('a');
    expect(await releaseLease(redis, key, 'a')).toBe(true);
    expect(await redis.exists(key)).toBe(0);
    expect(await renewLease(redis, key, 'a', 1_000)).toBe(false); // an expired or released lease is not renewed
    expect(await takeLease(redis, key, 'b', 1_000)).toBe(true);
  });
});
