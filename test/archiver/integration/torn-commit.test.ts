// A torn newest `_delta_log` commit (issue 27, defect 8): a half-written JSON
// file at the next version, as a crash mid-write on a non-atomic store leaves
// it. The archiver reports it as RN4008 naming the file, once per table (not
// a raw SyntaxError per partition twice a second), counts it, shows the table
// as stalled on /metrics, never deletes or rewrites the file, and resumes
// when an operator moves it out of _delta_log. Both ways of meeting it are
// covered: a running archiver whose next commit lands on the torn version,
// and a starting archiver that replays the log.
import fs from 'node:fs';
import path from 'node:path';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import {
  archiverEnv,
  builtArchiver,
  builtMetrics,
  createTopic,
  diffRows,
  memoryLogger,
  newProducer,
  produce,
  readDelta,
  redisForFile,
  sleep,
  waitArchived,
  waitFor,
} from './helpers.js';

const lab = redisForFile();

/** Waits for an RN4008 line; on timeout the error shows what was logged instead. */
async function waitForTornLine(log: ReturnType<typeof memoryLogger>, what: string) {
  await waitFor(async () => log.lines.some((l) => l.msg.startsWith('RN4008')), 15_000, what).catch((e: Error) => {
    const seen = log.lines.filter((l) => l.level !== 'info').map(text);
    throw new Error(`${e.message}; ${seen.length} warn/error lines, first: ${JSON.stringify(seen.slice(0, 3))}`);
  });
}

/** A log line with its error, as an operator reads it. */
const text = (l: { msg: string; fields?: Record<string, unknown> }) => {
  const err = l.fields?.err;
  return err instanceof Error ? `${l.msg} ${err.name}: ${err.message}` : l.msg;
};

/** A topic of 2 partitions archived once into a fresh local-folder lake. */
async function archivedTopic(topic: string) {
  const dir = lab.dir(topic);
  const prod = newProducer();
  await createTopic(lab.redis.client, topic, 2);
  for (let p = 0; p < 2; p++) await produce(lab.redis.client, prod, topic, p, 3, 4, { control: false });
  const { Archiver, loadConfig } = await builtArchiver();
  const { observeArchiver } = await builtMetrics();
  const cfg = loadConfig(archiverEnv({ redisUrl: lab.redis.url, lake: `file://${dir}`, extra: { RUNNEL_ARCHIVER_TOPICS: topic, RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '100' } }));
  const logDir = path.join(dir, topic, '_delta_log');
  const start = async () => {
    const log = memoryLogger();
    const a = new Archiver(cfg, undefined, { logger: log });
    const registry = new Registry();
    observeArchiver(registry, a);
    await a.start();
    return { a, log, registry };
  };
  const first = await start();
  await waitArchived(lab.redis.client, topic, prod, 30_000);
  await sleep(300); // the last commit's follow-ups (watermark, summary) are done
  /** Writes the first half of the newest commit as the next version: a commit cut mid-line. */
  const tear = () => {
    const versions = fs.readdirSync(logDir).filter((f) => /^\d{20}\.json$/.test(f)).sort();
    const last = fs.readFileSync(path.join(logDir, versions.at(-1)!));
    const name = `${String(versions.length).padStart(20, '0')}.json`;
    const bytes = last.subarray(0, Math.floor(last.length / 2));
    fs.writeFileSync(path.join(logDir, name), bytes);
    return { name, bytes, file: path.join(logDir, name) };
  };
  return { dir, prod, logDir, start, first, tear };
}

/** Warn and error lines as an operator reads them. */
const problems = (log: ReturnType<typeof memoryLogger>) => log.lines.filter((l) => l.level === 'warn' || l.level === 'error').map(text);

describe('a torn delta commit', () => {
  it('a running archiver whose next commit lands on the torn version: RN4008 once, metric set, the file left as it is', async () => {
    const topic = 'torn-running';
    const { dir, prod, first: one, tear } = await archivedTopic(topic);
    const torn = tear();
    try {
      for (let p = 0; p < 2; p++) await produce(lab.redis.client, prod, topic, p, 2, 4, { control: false });
      await waitForTornLine(one.log, 'RN4008 from the running archiver');
      await sleep(4000);
      const lines = problems(one.log);
      expect(lines.filter((l) => l.startsWith('RN4008'))).toHaveLength(1);
      expect(lines.find((l) => l.startsWith('RN4008'))).toContain(`${topic}/_delta_log/${torn.name} is not valid JSON`);
      expect(lines.filter((l) => l.includes('SyntaxError') && !l.startsWith('RN4008'))).toEqual([]);
      expect(lines.length).toBeLessThanOrEqual(2);
      expect(one.a.stats.tornCommits).toBe(1);
      const m = await one.registry.metrics();
      expect(m).toMatch(/^runnel_archiver_torn_commits_total 1$/m);
      expect(m).toContain(`runnel_archiver_table_stalled{topic="${topic}",code="RN4008"} 1`);
    } finally {
      await one.a.stop();
    }
    expect(fs.readFileSync(torn.file)).toEqual(torn.bytes); // never rewritten or deleted
    // delta-rs cannot load the table past it either
    await expect(readDelta(`file://${dir}/${topic}`)).rejects.toThrow();
  }, 120_000);

  it('a starting archiver replaying the log: RN4008 once per table (not per partition per tick); moving the file away resumes it', async () => {
    const topic = 'torn-starting';
    const { dir, prod, start, first, tear } = await archivedTopic(topic);
    await first.a.stop();
    const torn = tear();
    for (let p = 0; p < 2; p++) await produce(lab.redis.client, prod, topic, p, 2, 4, { control: false });
    const two = await start();
    try {
      await waitForTornLine(two.log, 'RN4008 from the starting archiver');
      await sleep(4000); // 8 membership ticks: the old code logged a SyntaxError per partition on each
      const lines = problems(two.log);
      expect(lines.filter((l) => l.startsWith('RN4008'))).toHaveLength(1);
      expect(lines.find((l) => l.startsWith('RN4008'))).toContain(`${topic}/_delta_log/${torn.name} is not valid JSON`);
      expect(lines.filter((l) => l.includes('cannot adopt partition') || (l.includes('SyntaxError') && !l.startsWith('RN4008')))).toEqual([]);
      expect(two.a.stats.tornCommits).toBe(1);
      expect(await two.registry.metrics()).toContain(`runnel_archiver_table_stalled{topic="${topic}",code="RN4008"} 1`);
      expect(fs.readFileSync(torn.file)).toEqual(torn.bytes);

      // the operator moves the torn file out of the log: the table resumes without a restart
      fs.renameSync(torn.file, path.join(dir, `torn-${torn.name}`));
      await waitArchived(lab.redis.client, topic, prod, 90_000);
      expect(two.log.lines.some((l) => l.msg === 'table resumed after a torn commit')).toBe(true);
      expect(await two.registry.metrics()).not.toContain('runnel_archiver_table_stalled{');
    } finally {
      await two.a.stop();
    }
    const read = await readDelta(`file://${dir}/${topic}`, { appIds: [0, 1].map((p) => `runnel/${topic}/${p}`) });
    expect(diffRows(read, prod.expected)).toEqual([]);
  }, 180_000);
});
