// S3 faults: a fault-injecting HTTP proxy in front of the S3 server answers 500
// (before and after really writing), 409 ConditionalRequestConflict, and drops
// the response of successful commit PUTs. Two archivers (one killed and
// restarted) still produce every record exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  archiverEnv,
  checkTable,
  createTopic,
  ensureBuilt,
  newProducer,
  produce,
  readDelta,
  sleep,
  spawnArchiver,
  startFaultProxy,
  startRedis,
  startS3,
  waitArchived,
  type FaultProxy,
  type RedisHandle,
  type S3Handle,
} from './helpers.js';

let redis: RedisHandle;
let s3: S3Handle;
let proxy: FaultProxy;

beforeAll(async () => {
  await ensureBuilt();
  [redis, s3] = await Promise.all([startRedis(), startS3('faulty')]);
  proxy = await startFaultProxy(s3.port, { p500Before: 0.15, p500After: 0.1, p409: 0.2, pDropCommitResponse: 0.35 });
});
afterAll(async () => {
  await proxy?.stop();
  await redis?.stop();
  await s3?.stop();
});

describe('archiver on a faulty S3', () => {
  it('500s, 409s and lost commit responses still give exactly-once', async () => {
    const topic = 'faulty';
    const parts = 3;
    const prod = newProducer();
    await createTopic(redis.client, topic, parts);
    const env = (id: string) =>
      archiverEnv({
        redisUrl: redis.url,
        lake: `s3://${s3.bucket}/lake`,
        s3Endpoint: proxy.endpoint,
        extra: {
          RUNNEL_ARCHIVER_ID: id,
          RUNNEL_ARCHIVER_TARGET_FILE_BYTES: '8000',
          RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '100',
          RUNNEL_ARCHIVER_CHECKPOINT_INTERVAL: '4',
          RUNNEL_ARCHIVER_LEASE_TTL_MS: '800',
          RUNNEL_ARCHIVER_TOPICS: topic,
          RUNNEL_LOG_LEVEL: 'error',
        },
      });
    let a = spawnArchiver(env('s3-a'));
    const b = spawnArchiver(env('s3-b'));
    try {
      for (let i = 0; i < 20; i++) {
        for (let p = 0; p < parts; p++) await produce(redis.client, prod, topic, p, 5, 6);
        await sleep(150);
        if (i === 8) {
          await a.kill('SIGKILL');
          a = spawnArchiver(env('s3-a2'));
        }
      }
      await waitArchived(redis.client, topic, prod, 90_000);
    } finally {
      await a.kill('SIGTERM');
      await b.kill('SIGTERM');
    }
    console.log('fault proxy counts', JSON.stringify(proxy.counts));
    expect(proxy.counts.dropped).toBeGreaterThan(0);
    expect(proxy.counts.e409).toBeGreaterThan(0);
    expect(proxy.counts.e500b! + proxy.counts.e500a!).toBeGreaterThan(0);
    // crash points on S3 too: killed between upload and commit and right after commit
    for (let i = 0; i < 6; i++) {
      for (let p = 0; p < parts; p++) await produce(redis.client, prod, topic, p, 3, 5);
      const c = spawnArchiver({ ...env(`s3-crash-${i}`), RUNNEL_ARCHIVER_CRASH_POINTS: i % 2 ? 'after-upload:0.6' : 'after-commit:0.6' });
      await Promise.race([c.exited, sleep(1500)]);
      await c.kill('SIGKILL');
    }
    const fin = spawnArchiver(env('s3-final'));
    try {
      await waitArchived(redis.client, topic, prod, 90_000);
    } finally {
      await fin.kill('SIGTERM');
    }
    // read straight from the server, not through the proxy
    const read = await readDelta(`s3://${s3.bucket}/lake/${topic}`, { s3, appIds: [0, 1, 2].map((p) => `runnel/${topic}/${p}`) });
    checkTable(read, topic, parts, prod);
  });
});
