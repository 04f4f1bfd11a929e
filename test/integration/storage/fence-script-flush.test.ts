// Issue 27, defect 5, end to end: SCRIPT FLUSH on the broker's Redis while an
// idempotent librdkafka producer has records in flight. Every append that
// meets NOSCRIPT stores nothing (the stream stays closed, see
// broker/src/redis/lua/append-fence.lua), the store loads the script
// again and retries it once, so the log holds each of the 200 records exactly
// once, in order, at dense offsets. Before the fix the XADD in the same
// MULTI ran without its fence and the records read back duplicated.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_DIR, REPO_ROOT, runCommand } from '../../helpers/procs.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { denseOffsets, duplicates, readTopic } from '../support.js';

const PY = path.join(CACHE_DIR, 'venv', 'bin', 'python');
let redis: RedisServer;
let broker: RunnelBroker;

beforeAll(async () => {
  // One node: the producer's script flushes go to host:port (a cluster would need every primary).
  redis = await startRedis({ cluster: false });
  broker = await startRunnel({ redisUrl: redis.url });
});

afterAll(async () => {
  await broker?.stop();
  await redis?.stop();
});

describe('append fence after SCRIPT FLUSH (librdkafka)', () => {
  it('stores an idempotent producer\'s 200 records exactly once, in order', async () => {
    const topic = 'script-flush';
    const n = 200;
    const r = await runCommand(PY, [path.join(REPO_ROOT, 'test/integration/storage/rdkafka_script_flush.py'), broker.bootstrap, topic, redis.host, String(redis.port), String(n), '10'], { timeoutMs: 150_000, logName: 'rdkafka-script-flush' });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { acked: string[]; errors: string[]; flushes: number; unflushed: number };
    expect(out.flushes).toBe(n / 10);
    // The flushes did hit appends: Redis answered NOSCRIPT to some of them.
    const stats = String(await redis.command('INFO errorstats'));
    expect(Number(/errorstat_NOSCRIPT:count=(\d+)/.exec(stats)?.[1] ?? 0)).toBeGreaterThan(0);
    const log = await readTopic(broker.bootstrap, topic);
    const values = log.map((x) => x.value);
    expect({ stored: values.length, duplicates: duplicates(values) }).toEqual({ stored: n, duplicates: [] });
    denseOffsets(log);
    expect(values.map(Number)).toEqual([...Array(n).keys()]);
    expect({ acked: out.acked.length, errors: out.errors, unflushed: out.unflushed }).toEqual({ acked: n, errors: [], unflushed: 0 });
  });
});
