// Crash safety: SIGKILL archivers at random points (mid-file, between upload and
// commit, right after commit, around checkpoints) >= 20 times while producers keep
// appending; then the table must hold every record exactly once. Two archivers
// racing for the same topic must produce no duplicate and no gap.
import { describe, expect, it } from 'vitest';
import {
  archiverEnv,
  createTopic,
  diffRows,
  newProducer,
  produce,
  readDelta,
  redisForFile,
  sleep,
  spawnArchiver,
  waitArchived,
  type ArchiverProc,
} from './helpers.js';

const lab = redisForFile();

// '' = killed from outside at a random time (mid-file, mid-read, anywhere); the others make
// the process SIGKILL itself at that point of the commit path
const CRASH_MODES = [
  '',
  'before-upload:1',
  '',
  'mid-upload:1',
  '',
  'after-upload:1',
  '',
  'after-commit:1',
  'before-checkpoint:1',
  'after-checkpoint:1',
];

describe('archiver crash safety', () => {
  it('SIGKILL at random points, 24 times, while producing: exactly once', async () => {
    const topic = 'crashy';
    const parts = 3;
    const dir = lab.dir('crash');
    const prod = newProducer();
    await createTopic(lab.redis.client, topic, parts);
    const env = (extra: Record<string, string>) =>
      archiverEnv({
        redisUrl: lab.redis.url,
        lake: `file://${dir}`,
        extra: {
          RUNNEL_ARCHIVER_TARGET_FILE_BYTES: '8000',
          // 2 workers and small runs: flushes split into parallel runs, and the next buffer encodes while one commits
          RUNNEL_ARCHIVER_WORKERS: '2',
          RUNNEL_ARCHIVER_SPLIT_MIN_BYTES: '2000',
          RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '100',
          RUNNEL_ARCHIVER_CHECKPOINT_INTERVAL: '3',
          RUNNEL_ARCHIVER_LEASE_TTL_MS: '600',
          RUNNEL_ARCHIVER_TOPICS: topic,
          RUNNEL_LOG_LEVEL: 'warn',
          ...extra,
        },
      });
    let kills = 0;
    let selfCrashes = 0;
    for (let i = 0; i < 24; i++) {
      for (let p = 0; p < parts; p++) await produce(lab.redis.client, prod, topic, p, 6, 5 + ((i + p) % 4));
      const mode = CRASH_MODES[i % CRASH_MODES.length]!;
      const a = spawnArchiver(env(mode ? { RUNNEL_ARCHIVER_CRASH_POINTS: mode } : {}));
      const wait = mode ? 6000 : 300 + Math.floor(Math.random() * 900);
      const code = await Promise.race([a.exited, sleep(wait).then(() => 'alive' as const)]);
      if (code === 'alive') await a.kill('SIGKILL');
      else selfCrashes++;
      kills++;
    }
    console.log(`crash test: ${kills} SIGKILLs, ${selfCrashes} at injected crash points`);
    expect(kills).toBeGreaterThanOrEqual(20);
    expect(selfCrashes).toBeGreaterThanOrEqual(10); // crash points were really hit
    // a final clean run drains everything
    const fin = spawnArchiver(env({}));
    try {
      await waitArchived(lab.redis.client, topic, prod, 60_000);
    } finally {
      await fin.kill('SIGTERM');
    }
    const read = await readDelta(`file://${dir}/${topic}`, { appIds: [0, 1, 2].map((p) => `runnel/${topic}/${p}`) });
    expect(diffRows(read, prod.expected).slice(0, 20)).toEqual([]);
    for (let p = 0; p < parts; p++) expect(read.txn[`runnel/${topic}/${p}`]).toBe(prod.next.get(p)! - 1);
    expect(read.version).toBeGreaterThanOrEqual(15);
    // orphans from killed uploads exist but are not referenced
    const referenced = new Set(read.files.map((f) => f.path));
    expect(referenced.size).toBe(read.files.length);
  });

  it('two archivers racing on one topic (with kills and restarts): no duplicate, no gap', async () => {
    const topic = 'racy';
    const parts = 4;
    const dir = lab.dir('race');
    const prod = newProducer();
    await createTopic(lab.redis.client, topic, parts);
    const env = (id: string) =>
      archiverEnv({
        redisUrl: lab.redis.url,
        lake: `file://${dir}`,
        extra: {
          RUNNEL_ARCHIVER_ID: id,
          RUNNEL_ARCHIVER_TARGET_FILE_BYTES: '6000',
          RUNNEL_ARCHIVER_WORKERS: '2',
          RUNNEL_ARCHIVER_SPLIT_MIN_BYTES: '2000',
          RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '50',
          RUNNEL_ARCHIVER_CHECKPOINT_INTERVAL: '5',
          RUNNEL_ARCHIVER_LEASE_TTL_MS: '600',
          RUNNEL_ARCHIVER_TOPICS: topic,
          RUNNEL_LOG_LEVEL: 'warn',
        },
      });
    const procs: (ArchiverProc | null)[] = [spawnArchiver(env('racer-a')), spawnArchiver(env('racer-b'))];
    for (let i = 0; i < 16; i++) {
      for (let p = 0; p < parts; p++) await produce(lab.redis.client, prod, topic, p, 4, 6);
      await sleep(150 + Math.floor(Math.random() * 250));
      if (i % 3 === 2) {
        const victim = i % 2;
        await procs[victim]!.kill('SIGKILL');
        procs[victim] = spawnArchiver(env(`racer-${victim ? 'b' : 'a'}-${i}`));
      }
    }
    try {
      await waitArchived(lab.redis.client, topic, prod, 60_000);
    } finally {
      for (const p of procs) await p?.kill('SIGTERM');
    }
    const read = await readDelta(`file://${dir}/${topic}`, { appIds: [0, 1, 2, 3].map((p) => `runnel/${topic}/${p}`) });
    expect(diffRows(read, prod.expected).slice(0, 20)).toEqual([]);
    for (let p = 0; p < parts; p++) expect(read.txn[`runnel/${topic}/${p}`]).toBe(prod.next.get(p)! - 1);
  });
});
