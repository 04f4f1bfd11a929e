import { describe, expect, it } from 'vitest';
import { parseRedisEndpoints } from '../../../common/redis/endpoints.js';

describe('parseRedisEndpoints', () => {
  it('reads one URL with credentials, database and TLS', () => {
    const e = parseRedisEndpoints('rediss://app:s%40cret@10.0.0.1:7000/2');
    expect(e).toEqual({ seeds: [{ host: '10.0.0.1', port: 7000 }], username: 'app', password: 's@cret', db: 2, tls: true });
  });

  it('reads a seed list: credentials and scheme from the first entry, bare host:port after it', () => {
    const e = parseRedisEndpoints('redis://:pw@127.0.0.1:7001, 127.0.0.1:7002,redis://127.0.0.1:7003');
    expect(e.seeds).toEqual([{ host: '127.0.0.1', port: 7001 }, { host: '127.0.0.1', port: 7002 }, { host: '127.0.0.1', port: 7003 }]);
    expect(e.password).toBe('pw');
    expect(e.username).toBeUndefined();
    expect(e.tls).toBe(false);
  });

  it('defaults the port to 6379 and accepts a bare host', () => {
    expect(parseRedisEndpoints('cache.internal').seeds).toEqual([{ host: 'cache.internal', port: 6379 }]);
  });

  it('bare host:port seeds after a rediss:// URL are TLS too (the form docs/redis-cluster.md shows)', () => {
    const e = parseRedisEndpoints('rediss://user:pw@h1:7001,h2:7002,rediss://h3:7003');
    expect(e.tls).toBe(true);
    expect(e.seeds).toEqual([{ host: 'h1', port: 7001 }, { host: 'h2', port: 7002 }, { host: 'h3', port: 7003 }]);
    expect(() => parseRedisEndpoints('rediss://h1:7001,redis://h2:7002')).toThrow(/same scheme/);
  });

  it('keeps unix sockets as a single endpoint', () => {
    expect(parseRedisEndpoints('/run/redis.sock').socketPath).toBe('/run/redis.sock');
  });

  it('refuses mixed schemes, credentials on later seeds, other schemes and bad databases', () => {
    expect(() => parseRedisEndpoints('redis://a:1,rediss://b:2')).toThrow(/same scheme/);
    expect(() => parseRedisEndpoints('redis://a:1,redis://u:p@b:2')).toThrow(/first URL/);
    expect(() => parseRedisEndpoints('http://a:1')).toThrow(/unsupported scheme/);
    expect(() => parseRedisEndpoints('redis://a:1/x')).toThrow(/not a number/);
    expect(() => parseRedisEndpoints(' , ')).toThrow(/empty/);
  });

  it('does not echo the password of an unparsable entry', () => {
    expect(() => parseRedisEndpoints('redis://u:topsecret@[bad')).toThrow(/\*\*\*/);
    try {
      parseRedisEndpoints('redis://u:topsecret@[bad');
    } catch (e) {
      expect(String(e)).not.toContain('topsecret');
    }
  });
});
