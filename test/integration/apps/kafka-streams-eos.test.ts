// An unmodified Kafka Streams application with processing.guarantee=
// exactly_once_v2 (issue 11): the word count of
// test/integration/apps/java/WordCountApp.java (the guarantee passed as a
// Streams property on its command line), SIGKILLed while input is flowing and
// it is processing (so within a transaction of its own, whose records may or
// may not have reached the broker yet: the test prints how many output and
// changelog records read_committed never showed). Restarted on the same
// state directory (so the same process id and transactional.id), its
// InitProducerId fences the dead producer and aborts that transaction; the
// counts are restored from the changelog (committed records only) and
// processing resumes from the committed offsets.
//
// Read with read_committed, the output ends with the exact count per word, and
// every word's committed updates are exactly 1, 2, ..., n: nothing the killed
// instance had not committed is visible, and nothing is counted twice.
// Runs against RUNNEL_TEST_TARGET (Runnel by default, or Apache Kafka).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTopic } from '../../helpers/java.js';
import { runCommand, sleep, waitFor, type ManagedProcess } from '../../helpers/procs.js';
import { startTarget, type Target } from '../../helpers/target.js';
import { compileAppClasses, logOf, produceLines, prng, readKeyed, spawnJavaApp, unlessDied, waitForLog } from './support.js';

const APP_ID = 'wordcount-eos';
const INPUT = 'eos-lines';
const OUTPUT = 'eos-counts';
const VOCAB = ['kafka', 'redis', 'stream', 'runnel', 'log', 'offset', 'group', 'topic', 'record', 'batch', 'commit', 'store'];

let target: Target;
let classes: string;
let app: ManagedProcess | undefined;
const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-wc-eos-state-'));

beforeAll(async () => {
  [target, classes] = await Promise.all([
    // No initial rebalance delay, so the single Streams member gets its tasks at once.
    startTarget({ runnel: { args: ['--set', 'group.initial.rebalance.delay.ms=0'] } }),
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

function startApp(): ManagedProcess {
  app = spawnJavaApp('wordcount-eos', 'WordCountApp', [
    target.bootstrap, APP_ID, stateDir, INPUT, OUTPUT,
    'processing.guarantee=exactly_once_v2',
  ], { classpath: [classes] });
  return app;
}

const rnd = prng(11);
const nextLine = (): string =>
  Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => VOCAB[Math.floor(rnd() * VOCAB.length)]!).join(' ');

/** Feeds batches of lines to the input topic until stopped; `sent` holds every acknowledged line. */
function startFeeder(batch = 100, pauseMs = 50): { sent: string[]; stop: () => Promise<void> } {
  const sent: string[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const lines = Array.from({ length: batch }, nextLine);
      await produceLines(target.bootstrap, INPUT, lines);
      sent.push(...lines);
      await sleep(pauseMs);
    }
  })();
  return {
    sent,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

function countWords(lines: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const w of lines.flatMap((l) => l.split(' '))) m.set(w, (m.get(w) ?? 0) + 1);
  return m;
}

/** Every word's successive counts in the output, in offset order (a word always lands in one partition). */
async function countHistory(isolation: 'read_committed' | 'read_uncommitted' = 'read_committed'): Promise<Map<string, number[]>> {
  const m = new Map<string, number[]>();
  for (const r of await readKeyed(target.bootstrap, OUTPUT, isolation)) {
    const h = m.get(r.key) ?? [];
    h.push(Number(r.value));
    m.set(r.key, h);
  }
  return m;
}

const latest = (h: Map<string, number[]>): [string, number][] =>
  [...h].map(([w, counts]): [string, number] => [w, counts.at(-1)!]).sort(([a], [b]) => a.localeCompare(b));
const sorted = (m: Map<string, number>): [string, number][] => [...m].sort(([a], [b]) => a.localeCompare(b));
/**
 * Whether the output holds at least `n` committed records. (While
 * transactions keep committing, a read_committed kcat -e may chase the last
 * stable offset without ever seeing the partition's end; -c ends it instead.)
 */
async function committedAtLeast(n: number): Promise<boolean> {
  const r = await runCommand('kcat', ['-b', target.bootstrap, '-C', '-t', OUTPUT, '-X', 'isolation.level=read_committed', '-o', 'beginning', '-c', String(n), '-q', '-f', '.'], {
    timeoutMs: 5_000,
  });
  return r.code === 0 && r.stdout.length >= n;
}

/** Records in `topic` (offsets only) as a consumer with `isolation` sees them. */
async function recordCount(topic: string, isolation: 'read_committed' | 'read_uncommitted'): Promise<number> {
  const r = await runCommand('kcat', ['-b', target.bootstrap, '-C', '-t', topic, '-X', `isolation.level=${isolation}`, '-e', '-o', 'beginning', '-q', '-f', '%o\n'], {
    timeoutMs: 60_000,
  });
  if (r.code !== 0) throw new Error(`kcat consume ${topic} failed: ${r.stderr}`);
  return r.stdout.split('\n').filter(Boolean).length;
}

const outputSize = (h: Map<string, number[]>): number => [...h.values()].reduce((n, c) => n + c.length, 0);

describe(`Kafka Streams word count, exactly_once_v2 (${process.env.RUNNEL_TEST_TARGET ?? 'runnel'})`, () => {
  it('counts exactly once across a SIGKILL mid-transaction and a restart', async () => {
    const t0 = Date.now();
    const first = startApp();
    await waitForLog(first, /-> RUNNING/, 'Streams RUNNING');
    const feeder = startFeeder();
    try {
      // Let it commit a few transactions with input still flowing, then kill it.
      await waitFor('2000 committed output records', () => committedAtLeast(2000), { proc: first, timeoutMs: 45_000, intervalMs: 300 });
      await first.kill();
      const killedAt = feeder.sent.length;
      const before = outputSize(await countHistory());
      console.log(`[apps/streams-eos] killed after ${Date.now() - t0} ms, ${killedAt} lines sent`);

      // More input while it is down, then the same application again.
      await sleep(1000);
      const next = startApp();
      await waitForLog(next, /-> RUNNING/, 'Streams RUNNING after the kill');
      // It processes again (beyond the aborted transaction's input), input still flowing.
      await waitFor(`${before + 2000} committed output records`, () => committedAtLeast(before + 2000), {
        proc: next, timeoutMs: 30_000, intervalMs: 300,
      });
    } finally {
      await feeder.stop();
    }
    const lines = feeder.sent;
    const expected = countWords(lines);

    let history = new Map<string, number[]>();
    await waitFor('exact word counts (read_committed)', async () => {
      history = await countHistory();
      return JSON.stringify(latest(history)) === JSON.stringify(sorted(expected));
    }, { proc: app, timeoutMs: 45_000, intervalMs: 500 }).catch(unlessDied(app));
    expect(latest(history), `final counts of ${lines.length} lines; app logs ${app?.logFile}`).toEqual(sorted(expected));

    // Exactly once: each word's committed updates are 1..n, none repeated or skipped.
    for (const [word, counts] of history) {
      expect(counts, `committed counts of '${word}'`).toEqual(Array.from({ length: counts.length }, (_, i) => i + 1));
    }

    // Records of transactions aborted since (the one the kill left open, if
    // it had sent any): read_uncommitted sees them, read_committed does not.
    const uncommitted = outputSize(await countHistory('read_uncommitted'));
    const committed = outputSize(history);
    console.log(
      `[apps/streams-eos] ${lines.length} lines, ${committed} committed output records, ` +
        `${uncommitted - committed} aborted; exact after ${Date.now() - t0} ms`,
    );
    const changelog = `${APP_ID}-counts-changelog`;
    const [clUncommitted, clCommitted] = [await recordCount(changelog, 'read_uncommitted'), await recordCount(changelog, 'read_committed')];
    console.log(`[apps/streams-eos] changelog: ${clCommitted} committed, ${clUncommitted - clCommitted} aborted`);
    expect(logOf(app!)).not.toMatch(/STATE \S+ -> ERROR/);
  });
});
