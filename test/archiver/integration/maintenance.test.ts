// OPTIMIZE (compaction with dataChange:false remove/add), checkpoints holding the
// txn state, and VACUUM: delta-rs reads identical contents afterwards.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  archiverEnv,
  checkTable,
  createTopic,
  newProducer,
  produce,
  readDelta,
  redisForFile,
  spawnArchiver,
  waitArchived,
  waitFor,
} from './helpers.js';
import { checkPartitionTags, logAdds } from './partition-tags.js';

const lab = redisForFile();

function commits(logDir: string) {
  return fs
    .readdirSync(logDir)
    .filter((n) => /^\d{20}\.json$/.test(n))
    .sort()
    .map((n) => ({ name: n, actions: fs.readFileSync(path.join(logDir, n), 'utf8').trim().split('\n').map((l) => JSON.parse(l)) }));
}

function dataFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name === '_delta_log') continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(d, e.name), r);
      else if (e.name.endsWith('.parquet')) out.push(r);
    }
  };
  walk(dir, '');
  return out.sort();
}

describe('archiver table maintenance', () => {
  it('compacts small files, checkpoints txn state, vacuums unreferenced files', async () => {
    const topic = 'tiny';
    const parts = 2;
    const dir = lab.dir('maint');
    const prod = newProducer();
    await createTopic(lab.redis.client, topic, parts);
    const base = {
      RUNNEL_ARCHIVER_TOPICS: topic,
      RUNNEL_ARCHIVER_CHECKPOINT_INTERVAL: '4',
      RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '30',
      RUNNEL_ARCHIVER_TARGET_FILE_BYTES: '4000',
      RUNNEL_ARCHIVER_OPTIMIZE_INTERVAL_MS: '0',
      RUNNEL_ARCHIVER_VACUUM_INTERVAL_MS: '0',
    };
    // phase 1: trickle traffic -> many small files
    const a = spawnArchiver(archiverEnv({ redisUrl: lab.redis.url, lake: `file://${dir}`, extra: base }));
    try {
      for (let i = 0; i < 12; i++) {
        for (let p = 0; p < parts; p++) await produce(lab.redis.client, prod, topic, p, 3, 4, { control: false });
        await waitArchived(lab.redis.client, topic, prod, 30_000);
      }
    } finally {
      await a.kill('SIGTERM');
    }
    const tableDir = path.join(dir, topic);
    const before = await readDelta(`file://${tableDir}`, { appIds: [0, 1].map((p) => `runnel/${topic}/${p}`) });
    expect(before.files.length).toBeGreaterThanOrEqual(12);
    checkTable(before, topic, parts, prod);
    checkPartitionTags(tableDir, before);

    // phase 2: OPTIMIZE + VACUUM (retention 0 so replaced files go at once)
    const b = spawnArchiver(
      archiverEnv({
        redisUrl: lab.redis.url,
        lake: `file://${dir}`,
        extra: {
          ...base,
          RUNNEL_ARCHIVER_OPTIMIZE_INTERVAL_MS: '200',
          RUNNEL_ARCHIVER_OPTIMIZE_MIN_FILES: '3',
          RUNNEL_ARCHIVER_SMALL_FILE_BYTES: '1000000',
          RUNNEL_ARCHIVER_TARGET_FILE_BYTES: '4000000',
          RUNNEL_ARCHIVER_VACUUM_INTERVAL_MS: '400',
          RUNNEL_ARCHIVER_VACUUM_RETENTION_MS: '0',
        },
      }),
    );
    try {
      await waitFor(async () => b.log.some((l) => l.includes('"msg":"optimized"')), 30_000, 'optimize');
      await waitFor(async () => b.log.some((l) => l.includes('"msg":"vacuumed"')), 30_000, 'vacuum');
    } finally {
      await b.kill('SIGTERM');
    }
    const after = await readDelta(`file://${tableDir}`, { appIds: [0, 1].map((p) => `runnel/${topic}/${p}`) });
    checkTable(after, topic, parts, prod);
    // the merged files' tags (the inputs' merged) equal their rows; the replaced files' adds still carry theirs
    expect(checkPartitionTags(tableDir, after)).toBeGreaterThan(after.files.length);
    expect(after.files.length).toBeLessThan(before.files.length);
    expect(after.files.length).toBeLessThanOrEqual(new Set(after.rows.map((r) => r[7])).size + 1);

    const log = commits(path.join(tableDir, '_delta_log'));
    const opt = log.filter((c) => c.actions.some((x) => x.commitInfo?.operation === 'OPTIMIZE'));
    expect(opt.length).toBeGreaterThan(0);
    for (const c of opt) {
      for (const x of c.actions) {
        if (x.add) expect(x.add.dataChange).toBe(false);
        if (x.remove) expect(x.remove.dataChange).toBe(false);
      }
      expect(c.actions.some((x) => x.remove)).toBe(true);
    }
    // an OPTIMIZE output holds both partitions' trickle: its tag has both
    const optimized = new Set(opt.flatMap((c) => c.actions.filter((x) => x.add).map((x) => x.add.path as string)));
    expect(logAdds(tableDir).some((a) => optimized.has(a.path) && JSON.parse(a.tags!['runnel.partitions']!).length === parts)).toBe(true);
    // VACUUM removed the replaced files; every referenced file is still there
    const onDisk = dataFiles(tableDir);
    expect(onDisk.sort()).toEqual(after.files.map((f) => f.path).sort());

    // the checkpoint alone carries the txn state: drop every JSON commit up to it
    const last = JSON.parse(fs.readFileSync(path.join(tableDir, '_delta_log/_last_checkpoint'), 'utf8')) as { version: number };
    expect(last.version).toBeGreaterThan(0);
    for (const c of log) if (Number(c.name.slice(0, 20)) <= last.version) fs.rmSync(path.join(tableDir, '_delta_log', c.name));
    const fromCkpt = await readDelta(`file://${tableDir}`, { appIds: [0, 1].map((p) => `runnel/${topic}/${p}`) });
    expect(fromCkpt.version).toBe(after.version);
    checkTable(fromCkpt, topic, parts, prod);

    // and the archiver itself resumes from the checkpoint (no duplicates after restart)
    for (let p = 0; p < parts; p++) await produce(lab.redis.client, prod, topic, p, 2, 3, { control: false });
    const d = spawnArchiver(archiverEnv({ redisUrl: lab.redis.url, lake: `file://${dir}`, extra: base }));
    try {
      await waitArchived(lab.redis.client, topic, prod, 30_000);
    } finally {
      await d.kill('SIGTERM');
    }
    checkTable(await readDelta(`file://${tableDir}`, { appIds: [0, 1].map((p) => `runnel/${topic}/${p}`) }), topic, parts, prod);
  });
});
