// The archiver started before its Redis (one compose file, a Redis restarting)
// waits for it, as the broker does: one "waiting for redis" line, retries every
// 200 ms for RUNNEL_REDIS_CONNECTION_TIMEOUT_MS, then it archives as usual.
// A Redis that never comes ends the process after that long, naming the reason.
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { startRedis as startRedisServer, type RedisServer } from '../../helpers/redis.js';
import { Redis } from 'ioredis';
import {
  archiverEnv,
  checkTable,
  createTopic,
  ensureBuilt,
  freePort,
  newProducer,
  produce,
  readDelta,
  sleep,
  spawnArchiver,
  testBackend,
  tmpDir,
  waitArchived,
  waitFor,
} from './helpers.js';

const dirs: string[] = [];
let server: RedisServer | undefined;
afterAll(async () => {
  await server?.stop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('archiver start-up without Redis', () => {
  it('waits for a Redis that comes up later, then archives every record once', async () => {
    await ensureBuilt();
    const port = await freePort();
    const lake = tmpDir('startup-lake');
    dirs.push(lake);
    const topic = 'late-redis';
    const a = spawnArchiver(archiverEnv({
      redisUrl: `redis://127.0.0.1:${port}`,
      lake: `file://${lake}`,
      extra: { RUNNEL_REDIS_CONNECTION_TIMEOUT_MS: '30000', RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '100', RUNNEL_ARCHIVER_TOPICS: topic },
    }));
    try {
      await waitFor(async () => a.log.some((l) => l.includes('waiting for redis')), 15_000, 'waiting for redis');
      // still waiting, not exited, a second later
      await sleep(1_000);
      expect(a.proc.exitCode).toBeNull();
      server = await startRedisServer({ flavor: testBackend().flavor, port, appendonly: false });
      const client = new Redis(server.url);
      try {
        await waitFor(async () => a.log.some((l) => l.includes('redis reachable')), 15_000, 'redis reachable');
        const prod = newProducer();
        await createTopic(client, topic, 2);
        for (const p of [0, 1]) await produce(client, prod, topic, p, 3, 4);
        await waitArchived(client, topic, prod, 30_000);
        checkTable(await readDelta(`file://${lake}/${topic}`, { appIds: [0, 1].map((p) => `runnel/${topic}/${p}`) }), topic, 2, prod);
      } finally {
        client.disconnect();
      }
      expect(a.log.filter((l) => l.includes('waiting for redis'))).toHaveLength(1);
    } finally {
      await a.kill();
    }
  });

  it('gives up after RUNNEL_REDIS_CONNECTION_TIMEOUT_MS, naming the URL (password redacted) and the reason', async () => {
    await ensureBuilt();
    const port = await freePort();
    const lake = tmpDir('startup-nolake');
    dirs.push(lake);
    const t0 = Date.now();
    const a = spawnArchiver(archiverEnv({
      redisUrl: `redis://:Sekr3t-77@127.0.0.1:${port}`,
      lake: `file://${lake}`,
      extra: { RUNNEL_REDIS_CONNECTION_TIMEOUT_MS: '1500' },
    }));
    const code = await a.exited;
    const took = Date.now() - t0;
    const out = a.log.join('\n');
    expect(code).not.toBe(0);
    expect(out).toContain(`cannot connect to redis at redis://***@127.0.0.1:${port}: connection refused`);
    expect(out).toMatch(/gave up after \d+ attempts in 1500 ms, RUNNEL_REDIS_CONNECTION_TIMEOUT_MS/);
    expect(out).not.toContain('Sekr3t');
    expect(took).toBeGreaterThanOrEqual(1300);
    expect(took).toBeLessThan(10_000);
  });
});
