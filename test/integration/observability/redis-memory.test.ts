// A live broker on redis-server with maxmemory set: /metrics carries
// runnel_build_info with the package.json version, the Redis primary's
// used_memory and maxmemory as INFO memory reports them, and a topic's
// Redis bytes after producing to it (internal topics too).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runCommand, waitFor, REPO_ROOT } from '../../helpers/procs.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';

const TOPIC = 'memtopic';
const MAXMEMORY = 256 * 1024 * 1024;
const RECORDS = 300;
const VALUE_BYTES = 1_000;

let redis: RedisServer;
let broker: RunnelBroker;
let http: number;

const scrape = async (): Promise<string> => {
  const r = await fetch(`http://127.0.0.1:${http}/metrics`, { signal: AbortSignal.timeout(10_000) });
  expect(r.status).toBe(200);
  return r.text();
};

/** The samples of one metric: labels (as exposed) to value. */
function samples(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of text.matchAll(new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`, 'gm'))) out.set(m[1] ?? '', Number(m[2]));
  return out;
}

async function usedMemory(): Promise<number> {
  const info = await redis.command('INFO memory');
  return Number(/^used_memory:(\d+)/m.exec(info)![1]);
}

beforeAll(async () => {
  redis = await startRedis({ cluster: false, args: ['--maxmemory', String(MAXMEMORY), '--maxmemory-policy', 'noeviction'] });
  http = await freePort();
  broker = await startRunnel({ redisUrl: redis.url, args: ['--set', `http.port=${http}`] });
  // produced before the first scrape: the topic sizes are read at most every 30 s, the first time at the first scrape
  const value = 'x'.repeat(VALUE_BYTES);
  const input = Array.from({ length: RECORDS }, (_, i) => `k${i}:${value}`).join('\n') + '\n';
  const r = await runCommand('kcat', ['-b', broker.bootstrap, '-P', '-t', TOPIC, '-K:'], { input, timeoutMs: 30_000 });
  expect(r.code, r.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  await broker?.stop().catch(() => undefined);
  await redis?.stop().catch(() => undefined);
});

describe('Redis memory and build info on a live broker\'s /metrics', () => {
  it('runnel_build_info is 1 with the package.json version and this Node.js', async () => {
    const version = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const info = samples(await scrape(), 'runnel_build_info');
    expect([...info.entries()]).toEqual([[`{version="${version}",node_version="${process.versions.node}",platform="${process.platform}",arch="${process.arch}"}`, 1]]);
  });

  it('used and max memory of the primary, labelled with its address, match INFO memory', async () => {
    const text = await scrape();
    const node = `{node="${redis.host}:${redis.port}"}`;
    const used = samples(text, 'runnel_redis_memory_used_bytes');
    expect([...used.keys()]).toEqual([node]);
    const info = await usedMemory();
    expect(used.get(node)!).toBeGreaterThan(0);
    // the gauge may be up to 5 s old (cache): within 20 % of what INFO says now
    expect(Math.abs(used.get(node)! - info)).toBeLessThan(info * 0.2);
    expect(samples(text, 'runnel_redis_memory_max_bytes').get(node)).toBe(MAXMEMORY);
    expect(text).toMatch(/^# TYPE runnel_redis_memory_used_bytes gauge$/m);
    expect(samples(text, 'runnel_redis_memory_read_failures_total').get('')).toBe(0);
  });

  it('runnel_topic_redis_bytes of a topic covers the bytes produced to it; __consumer_offsets is reported too', async () => {
    let bytes: Map<string, number> = new Map();
    await waitFor('topic bytes', async () => {
      bytes = samples(await scrape(), 'runnel_topic_redis_bytes');
      return (bytes.get(`{topic="${TOPIC}"}`) ?? 0) > 0;
    }, { timeoutMs: 10_000, intervalMs: 500 });
    const topicBytes = bytes.get(`{topic="${TOPIC}"}`)!;
    expect(topicBytes).toBeGreaterThanOrEqual(RECORDS * VALUE_BYTES);
    expect(topicBytes).toBeLessThan(RECORDS * VALUE_BYTES * 4);
    expect(bytes.has('{topic="__consumer_offsets"}')).toBe(true);
    expect(samples(await scrape(), 'runnel_topic_redis_bytes_truncated').get('')).toBe(0);
  });
});
