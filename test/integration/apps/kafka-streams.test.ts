// An unmodified Kafka Streams application with state (issue 10): the word count
// of test/integration/apps/java/WordCountApp.java, at_least_once, its count
// store backed by a compacted changelog topic that Streams creates itself.
//   1. It runs to the exact counts (computed here from the input lines).
//   2. Stopped, its local state directory deleted, restarted on more input: it
//      restores the store from the changelog and goes on with exact totals.
// Runs against RUNNEL_TEST_TARGET (Runnel by default, or Apache Kafka).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTopic, describeTopic } from '../../helpers/java.js';
import { waitFor, type ManagedProcess } from '../../helpers/procs.js';
import { startTarget, type Target } from '../../helpers/target.js';
import { compileAppClasses, logOf, produceLines, prng, readKeyed, spawnJavaApp, waitForLog } from './support.js';

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
      // Compact quickly (Runnel's log cleaner interval), and no initial
      // rebalance delay so the single Streams member gets its tasks at once.
      runnel: { env: { RUNNEL_LOG_CLEANER_BACKOFF_MS: '500' }, args: ['--set', 'group.initial.rebalance.delay.ms=0'] },
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
  }, { proc: app, timeoutMs: 45_000, intervalMs: 500 }).catch(() => undefined);
  expect(sorted(last), `${label}; app log ${app?.logFile}`).toEqual(sorted(expected));
}

function startApp(): ManagedProcess {
  app = spawnJavaApp('wordcount', 'WordCountApp', [target.bootstrap, APP_ID, stateDir, INPUT, OUTPUT], { classpath: [classes] });
  return app;
}

describe(`Kafka Streams word count (${process.env.RUNNEL_TEST_TARGET ?? 'runnel'})`, () => {
  const first = makeLines(300, 1);
  const second = makeLines(200, 2);

  it('counts exactly, with its store changelogged to a compacted topic', async () => {
    await produceLines(target.bootstrap, INPUT, first);
    const t0 = Date.now();
    const proc = startApp();
    await waitForLog(proc, /-> RUNNING/, 'Streams RUNNING');
    await expectCounts(countWords(first), 'first run');
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

    await produceLines(target.bootstrap, INPUT, second);
    const t0 = Date.now();
    const next = startApp();
    await waitForLog(next, /-> RUNNING/, 'Streams RUNNING after restart');
    // Every word of the first run has an entry in the changelog (compacted or
    // not yet), and the restore listener reports what it replayed.
    const restored = [...logOf(next).matchAll(/^RESTORED counts \S+ (\d+)$/gm)].reduce((s, m) => s + Number(m[1]), 0);
    expect(restored).toBeGreaterThanOrEqual(countWords(first).size);
    await expectCounts(countWords([...first, ...second]), 'after restore');
    console.log(`[apps/streams] restored ${restored} changelog records; exact totals after ${Date.now() - t0} ms`);
  });
});
