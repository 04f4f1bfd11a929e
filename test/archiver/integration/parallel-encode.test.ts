// A large flush is encoded by several worker threads at once and lands as
// several data files in one Delta commit (archiver/src/parquet/split.ts).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  archiverEnv,
  checkTable,
  createTopic,
  ensureBuilt,
  newProducer,
  produce,
  readDelta,
  spawnArchiver,
  startRedis,
  tmpDir,
  waitArchived,
  type RedisHandle,
} from './helpers.js';

let redis: RedisHandle;
const dirs: string[] = [];

beforeAll(async () => {
  await ensureBuilt();
  redis = await startRedis();
});

afterAll(async () => {
  await redis?.stop();
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

describe('parallel encode', () => {
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
  });
});
