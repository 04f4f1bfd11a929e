// A tiered topic on S3 (moto) whose broker reaches S3 through a proxy that
// answers 500, drops connections or never answers: fetches of lake offsets
// answer KAFKA_STORAGE_ERROR (or, for a read slower than
// remote.fetch.max.wait.ms, no records) within that bound, never a hang; Redis
// offsets and other topics are served all along; reads succeed once S3 is back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArchiverProc } from '../../archiver/integration/helpers.js';
import { waitFor } from '../../helpers/procs.js';
import { WireClient } from '../../helpers/wire.js';
import {
  EARLIEST, KAFKA_STORAGE_ERROR, REMOTE_FETCH_MAX_WAIT_MS,
  createTopic, fetchAt, fetchMany, produceRun, readProblems, recordsFrom, replay, tiered, useTieredLab, waitArchived, waitLocalStart,
  offsetOf, type FetchAnswer, type Produced, type S3Fault,
} from './fault-support.js';

// A 1-byte reader cache keeps nothing: every lake fetch goes to S3.
const lab = useTieredLab({ s3: true, sets: ['remote.log.reader.cache.size.bytes=1'] });
let c: WireClient;
/** The longest a fetch with max_wait 0 may take while S3 fails: remote.fetch.max.wait.ms plus slack for two loaded cores. */
const BOUND_MS = REMOTE_FETCH_MAX_WAIT_MS + 1500;

const topic = 'ts3';
/** An offset in each data file of the topic. */
const FILE = { a: 10, b: 60, c: 110, d: 160 } as const;
/** An offset of the batch Redis keeps. */
const LOCAL = 205;
const plain = 'ts3-plain';
let produced: Produced[];
let plainProduced: Produced[];
let archiver: ArchiverProc;

beforeAll(async () => {
  c = await WireClient.connect(lab.broker.port);
  expect(await createTopic(c, topic, 1, tiered(100))).toEqual({ errorCode: 0, errorMessage: null });
  expect(await createTopic(c, plain, 1, {})).toEqual({ errorCode: 0, errorMessage: null });
  archiver = lab.archiver({ RUNNEL_ARCHIVER_TOPICS: topic });
  // Four rounds archived one by one: four data files (FILE), one per test phase, so that a phase never
  // joins a read that an earlier phase left retrying; then a batch that stays in Redis (200-209).
  produced = [];
  for (let round = 0; round < 4; round++) {
    produced.push(...await produceRun(c, topic, 0, 5, 10, { firstSeq: produced.length }));
    await waitArchived(lab, topic, 0, produced.length - 1);
  }
  produced.push(...await produceRun(c, topic, 0, 1, 10, { firstSeq: produced.length }));
  plainProduced = await produceRun(c, plain, 0, 2, 10);
  await waitArchived(lab, topic, 0, 209);
  await waitLocalStart(c, topic, 0, 200);
  // Healthy: the lake serves all four files through the proxy.
  expect(readProblems(await replay(lab.broker.port, topic, 0, 0, 200), produced.slice(0, 200))).toEqual([]);
});
afterAll(async () => {
  await archiver?.kill();
  c?.close();
});

interface Phase { answers: FetchAnswer[]; firstErrorMs: number | null }

/**
 * Puts `fault` on the broker's S3 and fetches lake offset `offset` (max_wait 0)
 * until 56 was answered and 3 fetches more, or `windowMs` passed. Every answer
 * must come within BOUND_MS with no records (a failing S3, nothing cached);
 * another topic in the same request and the partition's Redis part are served.
 */
async function phase(fault: S3Fault, offset: number, windowMs: number): Promise<Phase> {
  const before = lab.proxy!.counts[fault];
  const t0 = Date.now();
  lab.proxy!.set(fault);
  const answers: FetchAnswer[] = [];
  let firstErrorMs: number | null = null;
  let after = 0;
  while (Date.now() < t0 + windowMs && after < 3) {
    const [lake, other] = await fetchMany(c, [{ topic, partition: 0, offset }, { topic: plain, partition: 0, offset: 0 }], { maxWaitMs: 0, timeoutMs: 20_000 });
    // (a partition named twice in one Fetch is read once: its Redis part is asked for on its own)
    const local = await fetchAt(c, topic, 0, LOCAL, { maxWaitMs: 0 });
    answers.push(lake!);
    if (firstErrorMs !== null) after++;
    else if (lake!.errorCode === KAFKA_STORAGE_ERROR) firstErrorMs = Date.now() - t0;
    const summary = JSON.stringify({ fault, ms: lake!.ms, errorCode: lake!.errorCode, batches: lake!.batches.length });
    expect(lake!.ms, summary).toBeLessThan(BOUND_MS);
    expect(lake!.batches.length, summary).toBe(0);
    expect([0, KAFKA_STORAGE_ERROR], summary).toContain(lake!.errorCode);
    expect(local.errorCode).toBe(0);
    expect(readProblems(recordsFrom(local, LOCAL), produced.slice(LOCAL))).toEqual([]);
    expect(other!.errorCode).toBe(0);
    expect(readProblems(recordsFrom(other!, 0), plainProduced)).toEqual([]);
  }
  console.log(`S3 ${fault}: ${answers.length} fetches in ${Date.now() - t0} ms, first 56 after ${firstErrorMs} ms; codes ${answers.map((a) => a.errorCode).join(',')}; ms ${answers.map((a) => a.ms).join(',')}`);
  expect(lab.proxy!.counts[fault]).toBeGreaterThan(before); // the broker did go to S3
  return { answers, firstErrorMs };
}

describe('tiered topic on a failing S3', () => {
  // First in the file: the S3 client's retry quota is still full. The broker's S3 reads take 3 attempts
  // (broker/src/lake/remote-log.ts; the archiver's take 10), and a fetch of an offset joins the lake read
  // already in flight for it (handlers/support/remote-read.ts), so the read's failure reaches the client as
  // 56 within 3 x remote.fetch.max.wait.ms. Before (10 attempts, a new read per fetch): the first 56 came
  // after 5-27 s of empty answers.
  it('S3 answering 500: KAFKA_STORAGE_ERROR within 3 x remote.fetch.max.wait.ms', async () => {
    try {
      const { firstErrorMs } = await phase('500', FILE.a, 3 * REMOTE_FETCH_MAX_WAIT_MS);
      expect(firstErrorMs, 'first 56').not.toBe(null);
    } finally {
      lab.proxy!.set('none');
    }
  });

  // The window: the broker's S3 client gives up after 3 attempts (2 backoffs of the AWS SDK's standard
  // retry, well under a second) or its 10 s request timeout.
  it('500s and dropped connections: every fetch answered within remote.fetch.max.wait.ms, then KAFKA_STORAGE_ERROR; the rest served', async () => {
    try {
      for (const [fault, offset] of [['500', FILE.b], ['reset', FILE.c]] as const) {
        const { firstErrorMs } = await phase(fault, offset, 12_000);
        expect(firstErrorMs, `no 56 in 12 s of S3 ${fault}`).not.toBe(null);
      }
      expect(await offsetOf(c, topic, 0, EARLIEST)).toBe(0);
    } finally {
      lab.proxy!.set('none');
    }
  });

  it('a stalled S3 is a slow read: empty answers at remote.fetch.max.wait.ms, never a hang; reads succeed once S3 is back', async () => {
    try {
      const { answers } = await phase('stall', FILE.d, 3000);
      expect(answers.length).toBeGreaterThanOrEqual(3);
      for (const a of answers) expect(a.ms >= REMOTE_FETCH_MAX_WAIT_MS - 50 || a.errorCode === KAFKA_STORAGE_ERROR, `${a.ms} ms, error ${a.errorCode}`).toBe(true);
    } finally {
      lab.proxy!.set('none');
    }
    // Reads still in the S3 client's backoff finish (or fail, 56, and are fetched again, as clients do).
    await waitFor('lake reads after S3 is back', async () => {
      const a = await fetchAt(c, topic, 0, FILE.d);
      return a.errorCode === 0 && recordsFrom(a, FILE.d).length > 0;
    }, { timeoutMs: 45_000, intervalMs: 200 });
    expect(readProblems(await replay(lab.broker.port, topic, 0, 0, 210, { retry: (code) => code === KAFKA_STORAGE_ERROR, timeoutMs: 60_000 }), produced)).toEqual([]);
  });
});
