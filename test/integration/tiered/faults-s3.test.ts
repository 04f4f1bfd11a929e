// A tiered topic on S3 (moto) whose broker reaches S3 through a proxy that
// answers 500, drops connections or never answers: fetches of lake offsets
// answer KAFKA_STORAGE_ERROR (or, for a read slower than
// remote.fetch.max.wait.ms, no records) within that bound, never a hang; Redis
// offsets and other topics are served all along; reads succeed once S3 is back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

beforeAll(async () => {
  c = await WireClient.connect(lab.broker.port);
});
afterAll(() => c?.close());

describe('tiered topic on a failing S3', () => {
  it('500s, dropped connections and stalls: 56 or no records within remote.fetch.max.wait.ms, Redis served, recovery after', async () => {
    const topic = 'ts3';
    const plain = 'ts3-plain';
    expect(await createTopic(c, topic, 1, tiered(100))).toEqual({ errorCode: 0, errorMessage: null });
    expect(await createTopic(c, plain, 1, {})).toEqual({ errorCode: 0, errorMessage: null });
    const archiver = lab.archiver({ RUNNEL_ARCHIVER_TOPICS: topic });
    try {
      const produced: Produced[] = await produceRun(c, topic, 0, 20, 10);
      const plainProduced = await produceRun(c, plain, 0, 2, 10);
      await waitArchived(lab, topic, 0, 199);
      await waitLocalStart(c, topic, 0, 190);
      // Healthy: the lake serves offset 0.
      await waitFor('a lake read through the proxy', async () => recordsFrom(await fetchAt(c, topic, 0, 0), 0).length > 0, { timeoutMs: 20_000 });

      const phase = async (fault: S3Fault, offset: number, expectError: boolean): Promise<FetchAnswer[]> => {
        const before = lab.proxy!.counts[fault];
        lab.proxy!.set(fault);
        const answers: FetchAnswer[] = [];
        const until = Date.now() + 12_000;
        while (Date.now() < until && (answers.length < 4 || (expectError && !answers.some((a) => a.errorCode === KAFKA_STORAGE_ERROR)))) {
          const [lake, other] = await fetchMany(c, [{ topic, partition: 0, offset }, { topic: plain, partition: 0, offset: 0 }], { maxWaitMs: 0, timeoutMs: 20_000 });
          // (a partition named twice in one Fetch is read once: its Redis part is asked for on its own)
          const local = await fetchAt(c, topic, 0, 195, { maxWaitMs: 0 });
          answers.push(lake!);
          const summary = { fault, ms: lake!.ms, errorCode: lake!.errorCode, records: lake!.batches.length };
          // Never records from a failing S3 (nothing is cached), never a hang, only 56 or an empty answer.
          expect(lake!.ms, JSON.stringify(summary)).toBeLessThan(BOUND_MS);
          expect(lake!.batches.length, JSON.stringify(summary)).toBe(0);
          expect([0, KAFKA_STORAGE_ERROR], JSON.stringify(summary)).toContain(lake!.errorCode);
          // Another topic in the same request, and the partition's Redis part, are served.
          expect(local!.errorCode).toBe(0);
          expect(readProblems(recordsFrom(local!, 195), produced.slice(195))).toEqual([]);
          expect(other!.errorCode).toBe(0);
          expect(readProblems(recordsFrom(other!, 0), plainProduced)).toEqual([]);
        }
        console.log(`S3 ${fault}: ${answers.length} fetches, codes ${answers.map((a) => a.errorCode).join(',')}, ms ${answers.map((a) => a.ms).join(',')}`);
        expect(lab.proxy!.counts[fault]).toBeGreaterThan(before); // the broker did go to S3
        if (expectError) expect(answers.map((a) => a.errorCode)).toContain(KAFKA_STORAGE_ERROR);
        return answers;
      };

      await phase('500', 50, true);
      await phase('reset', 80, true);
      // A stall is a slow read, not a failure: the answer comes at remote.fetch.max.wait.ms, empty.
      const stalls = await phase('stall', 120, false);
      expect(stalls.every((a) => a.ms >= REMOTE_FETCH_MAX_WAIT_MS - 50 || a.errorCode === KAFKA_STORAGE_ERROR), stalls.map((a) => a.ms).join(',')).toBe(true);
      expect(await offsetOf(c, topic, 0, EARLIEST)).toBe(0);

      lab.proxy!.set('none');
      await waitFor('lake reads after S3 is back', async () => {
        const a = await fetchAt(c, topic, 0, 50);
        return a.errorCode === 0 && recordsFrom(a, 50).length > 0;
      }, { timeoutMs: 20_000, intervalMs: 200 });
      expect(readProblems(await replay(lab.broker.port, topic, 0, 0, 200, { retry: () => false }), produced)).toEqual([]);
    } finally {
      await archiver.kill();
    }
  });
});
