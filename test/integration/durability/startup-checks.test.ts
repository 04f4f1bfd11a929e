// Issue 8: the broker checks the Redis it is given before it serves.
//  - maxmemory-policy other than noeviction: refuse to start (non-zero exit,
//    a message naming the policy and the override), unless
//    redis.allow.eviction=true, which starts with a loud warning;
//  - redis.acks.all.waitaof=true on a server that cannot honour it
//    (appendonly no, or no WAITAOF before Redis 7.2): refuse to start;
//  - the persistence settings found (appendonly, appendfsync, save) are logged.
// Runnel-only (Kafka has no Redis): skipped with RUNNEL_TEST_TARGET=kafka.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { brokerExit, startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { targetKindFromEnv } from '../../helpers/target.js';
import { wireCreateTopic } from '../../helpers/faults.js';

const onKafka = targetKindFromEnv() === 'kafka';

let redis: RedisServer | undefined;
let broker: RunnelBroker | undefined;

afterEach(async () => {
  await broker?.stop().catch(() => undefined);
  await redis?.stop().catch(() => undefined);
  broker = undefined;
  redis = undefined;
});

/** Parsed JSON log lines of a broker. */
function jsonLines(text: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const l of text.split('\n')) {
    if (!l.startsWith('{')) continue;
    try { out.push(JSON.parse(l) as Record<string, unknown>); } catch { /* partial line */ }
  }
  return out;
}

/** redis_version of the server (Valkey reports the Redis version it is compatible with). */
async function redisVersion(r: RedisServer): Promise<number[]> {
  const m = /redis_version:([\d.]+)/.exec(await r.command('INFO server'));
  return (m?.[1] ?? '0').split('.').map(Number);
}

describe.skipIf(onKafka)('start-up checks against the Redis server', () => {
  it('refuses maxmemory-policy allkeys-lru with a clear message, and exits non-zero', async () => {
    redis = await startRedis({ args: ['--maxmemory', '512mb', '--maxmemory-policy', 'allkeys-lru'] });
    const { exit, log } = await brokerExit(redis.url, []);
    expect(exit.code, log).not.toBe(0);
    expect(exit.signal).toBeNull();
    expect(log).toMatch(/maxmemory-policy/);
    expect(log).toMatch(/allkeys-lru/);
    expect(log).toMatch(/redis\.allow\.eviction/); // says how to override
    // nothing was served: no listener line
    expect(log).not.toMatch(/runnel broker listening/);
  });

  it('starts with redis.allow.eviction=true and logs a loud warning', async () => {
    redis = await startRedis({ args: ['--maxmemory', '512mb', '--maxmemory-policy', 'allkeys-lru'] });
    broker = await startRunnel({ redisUrl: redis.url, args: ['--set', 'redis.allow.eviction=true'] });
    expect(await wireCreateTopic(broker.port, 'evict-ok', 1)).toBe(0);
    const lines = jsonLines(fs.readFileSync(broker.proc().logFile, 'utf8'));
    const warn = lines.filter((l) => (l.level === 'warn' || l.level === 'error') && /maxmemory-policy|evict/i.test(JSON.stringify(l)));
    expect(warn.length, 'a warning about eviction').toBeGreaterThan(0);
    expect(JSON.stringify(warn)).toMatch(/allkeys-lru/);
  });

  it('refuses redis.acks.all.waitaof=true when redis runs with appendonly no', async () => {
    redis = await startRedis({ appendonly: false });
    const { exit, log } = await brokerExit(redis.url, ['redis.acks.all.waitaof=true']);
    expect(exit.code, log).not.toBe(0);
    expect(exit.signal).toBeNull();
    expect(log).toMatch(/waitaof/i);
    expect(log).toMatch(/appendonly/);
    expect(log).not.toMatch(/runnel broker listening/);
  });

  it('redis.acks.all.waitaof=true with appendonly yes: starts only where WAITAOF exists (Redis >= 7.2 / Valkey)', async () => {
    redis = await startRedis({ appendonly: true, appendfsync: 'everysec' });
    const [major = 0, minor = 0] = await redisVersion(redis);
    const hasWaitAof = major > 7 || (major === 7 && minor >= 2);
    if (hasWaitAof) {
      broker = await startRunnel({ redisUrl: redis.url, args: ['--set', 'redis.acks.all.waitaof=true'] });
      expect(await wireCreateTopic(broker.port, 'waitaof-ok', 1)).toBe(0);
    } else {
      const { exit, log } = await brokerExit(redis.url, ['redis.acks.all.waitaof=true']);
      expect(exit.code, log).not.toBe(0);
      expect(log).toMatch(/WAITAOF/);
      expect(log).toMatch(/7\.2/);
    }
  });

  it('logs the persistence settings it found (appendonly, appendfsync, save)', async () => {
    redis = await startRedis({ appendonly: true, appendfsync: 'always', args: ['--save', '3600 1 300 100'] });
    broker = await startRunnel({ redisUrl: redis.url });
    const lines = jsonLines(fs.readFileSync(broker.proc().logFile, 'utf8'));
    const p = lines.find((l) => /appendonly/.test(JSON.stringify(l)) && /appendfsync/.test(JSON.stringify(l)));
    expect(p, 'a log line with the persistence settings').toBeDefined();
    const text = JSON.stringify(p);
    expect(text).toMatch(/always/);
    expect(text).toMatch(/3600 1 300 100/);
    expect(text).toMatch(/"appendonly":"yes"|appendonly[ =:]+yes/);

    // and with no persistence at all, it says so (warning), while still starting
    await broker.stop();
    await redis.stop();
    redis = await startRedis({ appendonly: false });
    broker = await startRunnel({ redisUrl: redis.url });
    const warn = jsonLines(fs.readFileSync(broker.proc().logFile, 'utf8')).filter((l) => l.level === 'warn' && /appendonly/.test(JSON.stringify(l)));
    expect(warn.length, 'a warning that appendonly is off').toBeGreaterThan(0);
  });
});
