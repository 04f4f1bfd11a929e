// Redis memory gauges: INFO memory read through a cache with a deadline (a
// Redis that does not answer holds a scrape for the timeout at most, its last
// values are kept until stale), the per-topic byte sums and their per-refresh
// bound, and what the registry exposes.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CachedRead, observeRedisMemory, topicBytes, type TopicSizes } from '../../../broker/src/http/redis-metrics.js';
import { observeBroker } from '../../../broker/src/http/broker-metrics.js';
import type { BrokerServices } from '../../../broker/src/handlers/support/types.js';
import type { RedisMemory } from '../../../broker/src/storage/status.js';
import type { TopicRecord } from '../../../broker/src/storage/log-store.js';
import { TailCache } from '../../../broker/src/log/tail-cache.js';

const topic = (name: string, partitions: number): TopicRecord => ({ name, id: name, partitions, configs: {}, created: 0 });

/** Sizes: partition p of topic t is (t.length * 1000 + p) bytes; every call is recorded. */
function sizes(topics: TopicRecord[]): TopicSizes & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    allTopics: async () => topics,
    sizeBytes: async (tp) => { calls.push(`${tp.topic}/${tp.partition}`); return tp.topic.length * 1000 + tp.partition; },
  };
}

const mem = (node: string, used: number, max: number): RedisMemory => ({ node, usedMemory: used, usedMemoryHuman: '', maxMemory: max });
const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

describe('CachedRead', () => {
  it('reads at most once per period; callers in between get the cached value', async () => {
    let now = 0;
    let reads = 0;
    const c = new CachedRead(async () => ++reads, { periodMs: 5_000, waitMs: 1_000, staleMs: 60_000, now: () => now });
    expect(await c.get()).toBe(1);
    now = 4_999;
    expect(await c.get()).toBe(1);
    expect(reads).toBe(1);
    now = 5_000;
    expect(await c.get()).toBe(2);
    expect(c.failures).toBe(0);
  });

  it('a read that does not answer holds get() for waitMs at most; the last value is kept until it is stale, then dropped', async () => {
    let now = 0;
    let hang = false;
    const c = new CachedRead(async () => (hang ? never<number>() : 7), { periodMs: 10, waitMs: 50, staleMs: 1_000, now: () => now });
    expect(await c.get()).toBe(7);
    hang = true;
    now = 100;
    const t0 = performance.now();
    expect(await c.get()).toBe(7); // the hung read: last value, after the deadline
    const waited = performance.now() - t0;
    expect(waited).toBeGreaterThanOrEqual(40);
    expect(waited).toBeLessThan(1_000);
    expect(c.failures).toBe(1);
    // a second caller while the read is still hung does not wait again (the deadline has passed) nor start another read
    const t1 = performance.now();
    expect(await c.get()).toBe(7);
    expect(performance.now() - t1).toBeLessThan(40);
    now = 1_001; // the value was read at 0: stale now
    expect(await c.get()).toBeNull();
  });

  it('a read that answers after its deadline still refreshes the value (counted once as a failure)', async () => {
    let now = 0;
    let release: ((v: number) => void) | null = null;
    const c = new CachedRead(() => (release === null ? Promise.resolve(1) : new Promise<number>((r) => { release = r; })), { periodMs: 10, waitMs: 20, staleMs: 1_000, now: () => now });
    expect(await c.get()).toBe(1);
    release = () => undefined; // the next read hangs until released
    now = 10;
    expect(await c.get()).toBe(1);
    release!(2);
    await new Promise((r) => setImmediate(r));
    expect(await c.get()).toBe(2);
    expect(c.failures).toBe(1);
  });

  it('a failed read counts as a failure and keeps the last value', async () => {
    let now = 0;
    let fail = false;
    const c = new CachedRead(async () => { if (fail) throw new Error('down'); return 'ok'; }, { periodMs: 10, waitMs: 50, staleMs: 1_000, now: () => now });
    expect(await c.get()).toBe('ok');
    fail = true;
    now = 20;
    expect(await c.get()).toBe('ok');
    expect(c.failures).toBe(1);
  });

  it('with waitMs 0 get() never waits: the first call starts the read and answers null, the next gets its value', async () => {
    let release!: (v: number) => void;
    const c = new CachedRead(() => new Promise<number>((r) => { release = r; }), { periodMs: 30_000, waitMs: 0, staleMs: 300_000 });
    expect(await c.get()).toBeNull();
    release(42);
    await new Promise((r) => setImmediate(r));
    expect(await c.get()).toBe(42);
  });
});

describe('topicBytes', () => {
  it('sums sizeBytes over each topic\'s partitions, internal topics included, in name order', async () => {
    const s = sizes([topic('beta', 3), topic('__consumer_offsets', 2), topic('a', 1)]);
    const r = await topicBytes(s, 100);
    expect(r).toEqual({
      truncated: 0,
      samples: [
        { labels: { topic: '__consumer_offsets' }, value: 18_000 * 2 + 1 },
        { labels: { topic: 'a' }, value: 1_000 },
        { labels: { topic: 'beta' }, value: 4_000 * 3 + 0 + 1 + 2 },
      ],
    });
    expect(s.calls).toHaveLength(6);
  });

  it('reads at most `max` partitions: a topic past the bound is left out whole and its partitions counted', async () => {
    const s = sizes([topic('a', 2), topic('b', 3), topic('c', 1)]);
    const r = await topicBytes(s, 3);
    expect(r.samples.map((x) => x.labels!.topic)).toEqual(['a', 'c']);
    expect(r.truncated).toBe(3);
    expect(s.calls.sort()).toEqual(['a/0', 'a/1', 'c/0']);
  });
});

describe('observeRedisMemory', () => {
  it('exposes used and max bytes per primary and bytes per topic; INFO is read once per cache period', async () => {
    let reads = 0;
    let now = 0;
    const r = new Registry();
    const s = sizes([topic('t', 2)]);
    observeRedisMemory(r, {
      redisMemory: async () => { reads++; return [mem('10.0.0.1:6379', 1_500_000, 0), mem('10.0.0.2:6379', 2_000_000, 4_000_000)]; },
      log: s,
      now: () => now,
    });
    const first = await r.metrics();
    expect(first).toContain('runnel_redis_memory_used_bytes{node="10.0.0.1:6379"} 1500000');
    expect(first).toContain('runnel_redis_memory_used_bytes{node="10.0.0.2:6379"} 2000000');
    expect(first).toContain('runnel_redis_memory_max_bytes{node="10.0.0.1:6379"} 0');
    expect(first).toContain('runnel_redis_memory_max_bytes{node="10.0.0.2:6379"} 4000000');
    expect(first).toContain('# TYPE runnel_topic_redis_bytes gauge');
    expect(reads).toBe(1); // both gauges of one scrape share one read
    await new Promise((res) => setImmediate(res)); // the background topic refresh started by the first scrape
    now = 4_000;
    const second = await r.metrics();
    expect(reads).toBe(1);
    expect(second).toContain('runnel_topic_redis_bytes{topic="t"} 2001');
    expect(second).toContain('runnel_topic_redis_bytes_truncated 0');
    expect(second).toContain('runnel_redis_memory_read_failures_total 0');
    // the topic sizes are not read again within 30 s
    now = 29_000;
    await r.metrics();
    expect(s.calls).toHaveLength(2);
  });

  it('a Redis that does not answer: the scrape finishes after the timeout without memory series, and the failure is counted', async () => {
    const r = new Registry();
    observeRedisMemory(r, { redisMemory: never, log: sizes([]), limits: { memoryTimeoutMs: 50 } });
    const t0 = performance.now();
    const text = await r.metrics();
    expect(performance.now() - t0).toBeLessThan(1_000);
    expect(text).not.toMatch(/^runnel_redis_memory_used_bytes\{/m);
    expect(text).toContain('runnel_redis_memory_read_failures_total 1');
  });

  it('counts the truncated partitions of the last refresh', async () => {
    const r = new Registry();
    observeRedisMemory(r, { redisMemory: async () => [], log: sizes([topic('big', 5), topic('small', 1)]), limits: { maxPartitions: 2 } });
    await r.metrics();
    await new Promise((res) => setImmediate(res));
    const text = await r.metrics();
    expect(text).toContain('runnel_topic_redis_bytes{topic="small"} 5000');
    expect(text).not.toContain('topic="big"');
    expect(text).toContain('runnel_topic_redis_bytes_truncated 5');
  });
});

describe('observeBroker', () => {
  it('registers runnel_build_info and the Redis memory gauges', async () => {
    const services = {
      cluster: { liveBrokers: () => [], leads: () => false },
      log: { loadedPartitions: () => [], allTopics: async () => [], sizeBytes: async () => 0, tailCache: new TailCache(0) },
      groups: { listGroups: async () => [] },
    } as unknown as BrokerServices;
    const r = new Registry();
    const stop = observeBroker(r, { services, redis: { ping: async () => 'PONG' }, connections: () => [], redisMemory: async () => [mem('127.0.0.1:6379', 1, 2)] });
    try {
      const text = await r.metrics();
      expect(text).toMatch(/^runnel_build_info\{version="[^"]+",node_version="[^"]+",platform="[^"]+",arch="[^"]+"\} 1$/m);
      expect(text).toContain('runnel_redis_memory_used_bytes{node="127.0.0.1:6379"} 1');
      expect(text).toContain('runnel_redis_memory_max_bytes{node="127.0.0.1:6379"} 2');
      expect(text).toContain('runnel_redis_memory_read_failures_total 0');
    } finally {
      stop();
    }
  });
});
