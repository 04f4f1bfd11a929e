// An unmodified Kafka Streams application with state (issue 10): the word count
// of test/integration/apps/java/WordCountApp.java, at_least_once, its count
// store backed by a compacted changelog topic that Streams creates itself.
//   1. It runs to the exact counts (computed here from the input lines).
//   2. Stopped, its local state directory deleted, the changelog compacted by
//      the broker, restarted on more input: it restores the store from the
//      compacted changelog and goes on with exact totals.
// Runs against RUNNEL_TEST_TARGET (Runnel by default, or Apache Kafka).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTopic, describeTopic } from '../../helpers/java.js';
import { runCommand, waitFor, type ManagedProcess } from '../../helpers/procs.js';
import { startTarget, type Target } from '../../helpers/target.js';
import { compileAppClasses, logOf, produceLines, prng, readKeyed, spawnJavaApp, unlessDied, waitForLog } from './support.js';

const APP_ID = 'wordcount';
const INPUT = 'wc-lines';
const OUTPUT = 'wc-counts';
const CHANGELOG = `${APP_ID}-counts-changelog`;
const VOCAB = ['kafka', 'redis', 'stream', 'runnel', 'log', 'offset', 'group', 'topic', 'record', 'batch', 'commit', 'store'];

let target: Target;
let classes: string;
let app: ManagedProcess | undefined;
const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-wc-state-'));

beforeAll(async () => {
  [target, classes] = await Promise.all([
    startTarget({
      // Compact quickly (the log cleaner's interval), and no initial
      // rebalance delay so the single Streams member gets its tasks at once.
      runnel: { env: { RUNNEL_LOG_CLEANER_BACKOFF_MS: '500' }, args: ['--set', 'group.initial.rebalance.delay.ms=0'] },
      kafka: { props: { 'log.cleaner.backoff.ms': 300 } },
    }),
    compileAppClasses(),
  ]);
  await createTopic(target.bootstrap, INPUT, 2);
  await createTopic(target.bootstrap, OUTPUT, 2);
});

afterAll(async () => {
  await app?.stop(20_000);
  await target?.stop();
  fs.rmSync(stateDir, { recursive: true, force: true });
});

/** `n` lines of 1..6 words from VOCAB, reproducible from `seed`. */
function makeLines(n: number, seed: number): string[] {
  const rnd = prng(seed);
  return Array.from({ length: n }, () =>
    Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => VOCAB[Math.floor(rnd() * VOCAB.length)]!).join(' '),
  );
}

function countWords(lines: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const w of lines.flatMap((l) => l.split(' '))) m.set(w, (m.get(w) ?? 0) + 1);
  return m;
}

/** The latest count per word in the output topic (a word always lands in one partition). */
async function latestCounts(): Promise<Map<string, number>> {
  const m = new Map<string, number>();
  for (const r of await readKeyed(target.bootstrap, OUTPUT)) m.set(r.key, Number(r.value));
  return m;
}

const sorted = (m: Map<string, number>): [string, number][] => [...m].sort(([a], [b]) => a.localeCompare(b));

/** Waits until the output topic's latest counts equal `expected` exactly. */
async function expectCounts(expected: Map<string, number>, label: string): Promise<void> {
  let last = new Map<string, number>();
  await waitFor(`word counts (${label})`, async () => {
    last = await latestCounts();
    return JSON.stringify(sorted(last)) === JSON.stringify(sorted(expected));
  }, { proc: app, timeoutMs: 45_000, intervalMs: 500 }).catch(unlessDied(app));
  expect(sorted(last), `${label}; app log ${app?.logFile}`).toEqual(sorted(expected));
}

// Streams' own settings for the internal topics it creates (topic.* prefix):
// segments roll after 100 ms and any dirty share is worth cleaning, so the
// changelog is compacted within seconds instead of days.
const COMPACT_SOON = ['topic.segment.ms=100', 'topic.min.cleanable.dirty.ratio=0.01'];

function startApp(): ManagedProcess {
  app = spawnJavaApp('wordcount', 'WordCountApp', [target.bootstrap, APP_ID, stateDir, INPUT, OUTPUT, ...COMPACT_SOON], {
    classpath: [classes],
  });
  return app;
}

/** Records now in the changelog (offsets only: the values are binary longs). */
async function changelogSize(): Promise<number> {
  const r = await runCommand('kcat', ['-b', target.bootstrap, '-C', '-t', CHANGELOG, '-e', '-o', 'beginning', '-q', '-f', '%o\n'], {
    timeoutMs: 60_000,
  });
  if (r.code !== 0) throw new Error(`kcat consume ${CHANGELOG} failed: ${r.stderr}`);
  return r.stdout.split('\n').filter(Boolean).length;
}

const totalWords = (lines: string[]): number => lines.reduce((n, l) => n + l.split(' ').length, 0);

describe(`Kafka Streams word count (${process.env.RUNNEL_TEST_TARGET ?? 'runnel'})`, () => {
  const first = makeLines(300, 1);
  const second = makeLines(200, 2);

  it('counts exactly, with its store changelogged to a compacted topic', async () => {
    // In three chunks, each counted exactly before the next is sent. (Kafka
    // rolls a segment only when an append finds it older than segment.ms, so
    // this also leaves most changelog records outside the active segment,
    // where its cleaner may compact them; the last chunk is small.)
    const chunks = [first.slice(0, 150), first.slice(150, 270), first.slice(270)];
    const t0 = Date.now();
    let proc: ManagedProcess | undefined;
    for (const [i, chunk] of chunks.entries()) {
      await produceLines(target.bootstrap, INPUT, chunk);
      if (!proc) {
        proc = startApp();
        await waitForLog(proc, /-> RUNNING/, 'Streams RUNNING');
      }
      await expectCounts(countWords(chunks.slice(0, i + 1).flat()), `first run, chunk ${i + 1}`);
    }
    console.log(`[apps/streams] first run exact after ${Date.now() - t0} ms`);

    const changelog = await describeTopic(target.bootstrap, CHANGELOG);
    expect(changelog.configs['cleanup.policy']).toBe('compact');
  });

  it('restores the store from its changelog after the local state is deleted', async () => {
    const proc = app!;
    await proc.stop(30_000);
    expect(logOf(proc)).toMatch(/^CLOSED$/m);
    fs.rmSync(stateDir, { recursive: true, force: true });
    fs.mkdirSync(stateDir);

    // The changelog got one record per counted word (no record cache); wait
    // for the broker's cleaner to compact it, so the restore reads a
    // compacted log: fewer records than updates, at least one per word.
    const updates = totalWords(first);
    let size = 0;
    await waitFor('changelog compacted', async () => (size = await changelogSize()) < updates / 2, { timeoutMs: 30_000, intervalMs: 500 })
      .catch(() => undefined);
    expect(size, `changelog records after compaction (${updates} updates)`).toBeLessThan(updates / 2);
    expect(size).toBeGreaterThanOrEqual(countWords(first).size);

    await produceLines(target.bootstrap, INPUT, second);
    const t0 = Date.now();
    const next = startApp();
    await waitForLog(next, /-> RUNNING/, 'Streams RUNNING after restart');
    // Every word of the first run has an entry in the changelog (compacted or
    // not yet), and the restore listener reports what it replayed.
    const restored = [...logOf(next).matchAll(/^RESTORED counts \S+ (\d+)$/gm)].reduce((s, m) => s + Number(m[1]), 0);
    expect(restored).toBeGreaterThanOrEqual(countWords(first).size);
    expect(restored).toBeLessThan(updates);
    await expectCounts(countWords([...first, ...second]), 'after restore');
    console.log(`[apps/streams] restored ${restored} changelog records; exact totals after ${Date.now() - t0} ms`);
  });
});
