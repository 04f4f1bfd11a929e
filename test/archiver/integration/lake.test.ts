// Archiver -> Delta Lake round trips, read back by delta-rs (python deltalake) and pyarrow.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3Store } from '../../../common/lake/s3.js';
import {
  archiverEnv,
  builtArchiver,
  checkTable,
  createTopic,
  diffRows,
  ensureBuilt,
  metaKey,
  newProducer,
  produce,
  readDelta,
  redisKey,
  S3_KEY,
  S3_SECRET,
  spawnArchiver,
  startRedis,
  startS3,
  testBackend,
  tmpDir,
  waitArchived,
  waitFor,
  type RedisHandle,
  type S3Handle,
} from './helpers.js';
import { checkPartitionTags } from './partition-tags.js';

let redis: RedisHandle;
let s3: S3Handle;
const dirs: string[] = [];

beforeAll(async () => {
  await ensureBuilt();
  [redis, s3] = await Promise.all([startRedis(), startS3()]);
});

afterAll(async () => {
  await redis?.stop();
  await s3?.stop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** The `add` actions of each commit file of the table's log. */
function addsPerCommit(dir: string, topic: string): number[] {
  const logDir = path.join(dir, topic, '_delta_log');
  return fs
    .readdirSync(logDir)
    .filter((n) => /^\d{20}\.json$/.test(n))
    .sort()
    .map((n) => fs.readFileSync(path.join(logDir, n), 'utf8').split('\n').filter((l) => l.startsWith('{"add"')).length);
}

describe('archiver writes Delta tables', () => {
  // A large flush is encoded by several worker threads at once and lands as several data
  // files in one Delta commit (archiver/src/parquet/split.ts).
  it('3 workers: one flush becomes 3 data files in one commit; delta-rs reads every record once', async () => {
    const topic = 'wide';
    const dir = tmpDir('lake-split');
    dirs.push(dir);
    const prod = newProducer();
    await createTopic(redis.client, topic, 2);
    // all records exist before the archiver starts, within one UTC date (1,200 offsets x 37 s from
    // midnight): one flush reads them all, and each run makes one file
    const startTs = Date.UTC(2024, 4, 30, 0, 0, 0);
    for (let p = 0; p < 2; p++) await produce(redis.client, prod, topic, p, 60, 20, { valueBytes: 200, startTs });
    const a = spawnArchiver(
      archiverEnv({
        redisUrl: redis.url,
        lake: `file://${dir}`,
        extra: {
          RUNNEL_ARCHIVER_WORKERS: '3',
          RUNNEL_ARCHIVER_SPLIT_MIN_BYTES: '4096',
          RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '1500',
          RUNNEL_ARCHIVER_OPTIMIZE_INTERVAL_MS: '0',
        },
      }),
    );
    try {
      await waitArchived(redis.client, topic, prod, 60_000);
    } finally {
      await a.kill('SIGTERM');
    }
    const adds = addsPerCommit(dir, topic);
    // the first data commit holds the whole backlog: one file per worker
    expect(adds.find((n) => n > 0)).toBe(3);
    const read = await readDelta(`file://${dir}/${topic}`, { appIds: [0, 1].map((p) => `runnel/${topic}/${p}`) });
    checkTable(read, topic, 2, prod);
    // each worker's file says which offsets of each partition it holds (runnel.partitions)
    expect(checkPartitionTags(path.join(dir, topic), read)).toBe(read.files.length);
  });

  it('local disk: every codec, control batches, date partitions, checkpoints; delta-rs reads it back', async () => {
    const topic = 'orders';
    const dir = tmpDir('lake');
    dirs.push(dir);
    const prod = newProducer();
    await createTopic(redis.client, topic, 3);
    for (let p = 0; p < 3; p++) await produce(redis.client, prod, topic, p, 40, 25);
    const a = spawnArchiver(
      archiverEnv({
        redisUrl: redis.url,
        lake: `file://${dir}`,
        extra: { RUNNEL_ARCHIVER_TARGET_FILE_BYTES: '20000', RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '300', RUNNEL_ARCHIVER_CHECKPOINT_INTERVAL: '4' },
      }),
    );
    try {
      await waitArchived(redis.client, topic, prod, 60_000);
      // RUNNEL_TEST_BACKEND=redis-cluster / valkey-cluster: the archiver found a cluster (from the seed list alone)
      expect(a.log.some((l) => l.includes(`"mode":"${testBackend().cluster ? 'cluster' : 'single node'}"`))).toBe(true);
      // more traffic while running
      for (let p = 0; p < 3; p++) await produce(redis.client, prod, topic, p, 10, 7);
      await waitArchived(redis.client, topic, prod, 60_000);
    } finally {
      await a.kill('SIGTERM');
    }
    const logDir = path.join(dir, topic, '_delta_log');
    const names = fs.readdirSync(logDir);
    expect(names).toContain('_last_checkpoint');
    expect(names.some((n) => n.endsWith('.checkpoint.parquet'))).toBe(true);
    const read = await readDelta(`file://${dir}/${topic}`, { appIds: [0, 1, 2].map((p) => `runnel/${topic}/${p}`) });
    checkTable(read, topic, 3, prod);
    expect(new Set(read.rows.map((r) => r[7])).size).toBeGreaterThan(1);
    // files of 3 partitions over several dates: every add says which offsets of which partition it holds
    expect(checkPartitionTags(path.join(dir, topic), read)).toBe(read.files.length);
    expect(read.files.some((f) => f.actual.partitions.length > 1)).toBe(true);
  });

  it('S3 with If-None-Match commits: delta-rs reads it back (an endpoint alone implies path style)', async () => {
    const topic = 'clicks';
    const prod = newProducer();
    await createTopic(redis.client, topic, 2);
    for (let p = 0; p < 2; p++) await produce(redis.client, prod, topic, p, 30, 20);
    const a = spawnArchiver(
      archiverEnv({
        redisUrl: redis.url,
        lake: `s3://${s3.bucket}/tables`,
        // As docs/lake.md's example: a host name (the SDK itself uses path style for an IP address), no path-style flag;
        // virtual-hosted style would fail on ENOTFOUND lake.localhost.
        s3Endpoint: s3.endpoint.replace('127.0.0.1', 'localhost'),
        pathStyle: false,
        extra: { RUNNEL_ARCHIVER_TARGET_FILE_BYTES: '30000', RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '300', RUNNEL_ARCHIVER_CHECKPOINT_INTERVAL: '3', RUNNEL_ARCHIVER_TOPICS: topic },
      }),
    );
    try {
      await waitArchived(redis.client, topic, prod, 60_000);
    } finally {
      await a.kill('SIGTERM');
    }
    const read = await readDelta(`s3://${s3.bucket}/tables/${topic}`, { s3, appIds: [0, 1].map((p) => `runnel/${topic}/${p}`) });
    checkTable(read, topic, 2, prod);
  });

  it('the S3 server enforces If-None-Match, also for concurrent puts', async () => {
    process.env.AWS_ACCESS_KEY_ID = S3_KEY;
    process.env.AWS_SECRET_ACCESS_KEY = S3_SECRET;
    const st = new S3Store({ bucket: s3.bucket, prefix: 'inm', endpoint: s3.endpoint, forcePathStyle: true });
    try {
      expect(await st.putIfAbsent('a', Buffer.from('1'))).toBe(true);
      expect(await st.putIfAbsent('a', Buffer.from('2'))).toBe(false);
      expect((await st.get('a'))!.toString()).toBe('1');
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => st.putIfAbsent('b', Buffer.from(String(i)))));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await st.get('missing')).toBeNull();
      expect((await st.list('')).map((o) => o.key)).toEqual(['a', 'b']);
    } finally {
      await st.close();
    }
  });

  it('reports lake lag per partition (records and seconds)', async () => {
    const topic = 'laggy';
    const dir = tmpDir('lag');
    dirs.push(dir);
    const prod = newProducer();
    await createTopic(redis.client, topic, 2);
    const main = await builtArchiver();
    const cfg = main.loadConfig(
      archiverEnv({
        redisUrl: redis.url,
        lake: `file://${dir}`,
        extra: { RUNNEL_ARCHIVER_TOPICS: topic, RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '2500', RUNNEL_LOG_LEVEL: 'warn' },
      }),
    );
    const h = await main.runArchiver(cfg);
    try {
      await waitFor(async () => h.lag().length === 2, 10_000, 'partitions adopted');
      for (let p = 0; p < 2; p++) await produce(redis.client, prod, topic, p, 4, 5, { control: false, startTs: Date.now() - 1000 });
      const lagging = await waitFor(async () => {
        const l = h.lag();
        return l.every((x) => (x.lagRecords ?? 0) > 0) && l;
      }, 10_000, 'lag visible');
      for (const l of lagging) {
        expect(l.lagRecords).toBe(prod.next.get(l.partition));
        expect(l.lagSeconds).toBeGreaterThan(0.5);
        expect(l.archivedOffset).toBe(-1);
      }
      await waitArchived(redis.client, topic, prod, 20_000);
      await waitFor(async () => h.lag().every((x) => x.lagRecords === 0 && x.lagSeconds === 0), 10_000, 'lag back to 0');
      expect(h.lag().map((x) => x.archivedOffset)).toEqual([prod.next.get(0)! - 1, prod.next.get(1)! - 1]);
    } finally {
      await h.stop();
    }
  });

  it('a corrupt batch stalls only its partition (RN4003); aborted transactional batches never reach the lake', async () => {
    const topic = 'mixed';
    const dir = tmpDir('mixed');
    dirs.push(dir);
    const prod = newProducer();
    await createTopic(redis.client, topic, 2);
    await produce(redis.client, prod, topic, 0, 5, 4, { control: false });
    await produce(redis.client, prod, topic, 1, 3, 4, { control: false });
    // partition 1: a corrupt batch (bad CRC) followed by a good one
    const { encodeBatch } = await import('../../helpers/encode-batch.js');
    const bad = encodeBatch([{ value: Buffer.from('bad') }], { baseOffset: prod.next.get(1)! });
    bad[bad.length - 1]! ^= 0xff;
    await redis.client.xadd(redisKey(topic, 1), `${prod.next.get(1)}-1`, 'b', bad);
    const good = encodeBatch([{ value: Buffer.from('after') }], { baseOffset: prod.next.get(1)! + 1 });
    await redis.client.xadd(redisKey(topic, 1), `${prod.next.get(1)! + 1}-1`, 'b', good);
    // partition 0: a transactional batch of producer 99 that the hook reports as aborted
    const aborted = encodeBatch([{ value: Buffer.from('aborted-1') }, { value: Buffer.from('aborted-2') }], {
      baseOffset: prod.next.get(0)!,
      transactional: true,
      producerId: 99n,
    });
    await redis.client.xadd(redisKey(topic, 0), `${prod.next.get(0)}-1`, 'b', aborted);
    const abortedLast = prod.next.get(0)! + 1;
    const main = await builtArchiver();
    const cfg = main.loadConfig(
      archiverEnv({ redisUrl: redis.url, lake: `file://${dir}`, extra: { RUNNEL_ARCHIVER_TOPICS: topic, RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '100', RUNNEL_LOG_LEVEL: 'error' } }),
    );
    const seen: bigint[] = [];
    const h = await main.runArchiver(cfg, {
      isAbortedBatch: (b) => {
        seen.push(b.producerId);
        return b.producerId === 99n;
      },
      lastStableOffset: () => null,
    });
    try {
      await waitFor(async () => (await redis.client.hget(metaKey(topic, 0), 'archived')) === String(abortedLast), 20_000, 'p0 archived past the aborted batch');
      await waitFor(async () => (await redis.client.hget(metaKey(topic, 1), 'archived')) === String(prod.next.get(1)! - 1), 20_000, 'p1 archived up to the corrupt batch');
      await new Promise((r) => setTimeout(r, 500));
      expect(await redis.client.hget(metaKey(topic, 1), 'archived')).toBe(String(prod.next.get(1)! - 1));
      expect(h.stats().errors).toBeGreaterThan(0);
      expect(h.stats().corruptBatches).toBe(1);
      expect(h.lag().map((l) => [l.partition, l.stalled, l.stallCode])).toEqual([[0, false, null], [1, true, 'RN4003']]);
    } finally {
      await h.stop();
    }
    expect(seen).toContain(99n);
    const read = await readDelta(`file://${dir}/${topic}`, { appIds: [`runnel/${topic}/0`, `runnel/${topic}/1`] });
    expect(diffRows(read, prod.expected)).toEqual([]);
    expect(read.txn[`runnel/${topic}/0`]).toBe(abortedLast);
  });

  it('refuses to continue a table that belongs to an earlier topic with the same name (RN4004)', async () => {
    const topic = 'reborn';
    const dir = tmpDir('reborn');
    dirs.push(dir);
    const prod = newProducer();
    await createTopic(redis.client, topic, 1);
    await produce(redis.client, prod, topic, 0, 3, 3, { control: false });
    const env = archiverEnv({ redisUrl: redis.url, lake: `file://${dir}`, extra: { RUNNEL_ARCHIVER_TOPICS: topic, RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '50' } });
    const a = spawnArchiver(env);
    try {
      await waitArchived(redis.client, topic, prod, 20_000);
    } finally {
      await a.kill('SIGTERM');
    }
    // delete + re-create: new id, new stream from offset 0
    await redis.client.del(redisKey(topic, 0), metaKey(topic, 0));
    await createTopic(redis.client, topic, 1);
    await produce(redis.client, newProducer(), topic, 0, 2, 2, { control: false });
    const b = spawnArchiver(env);
    try {
      await waitFor(async () => b.log.some((l) => l.includes('RN4004')), 20_000, 'RN4004');
    } finally {
      await b.kill('SIGTERM');
    }
    expect(await redis.client.hget(metaKey(topic, 0), 'archived')).toBeNull();
    const read = await readDelta(`file://${dir}/${topic}`);
    expect(diffRows(read, prod.expected)).toEqual([]);
  });
});
