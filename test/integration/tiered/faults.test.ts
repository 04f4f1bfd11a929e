// Real faults under tiered topics: the broker SIGKILLed while consumers replay
// the lake, the archiver SIGKILLed between its Delta commit and publishing its
// watermark, a data file removed from under the reader, and consumers at the
// tier boundary while retention trims Redis every 500 ms.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAll } from '../../helpers/faults.js';
import { sleep, waitFor } from '../../helpers/procs.js';
import { WireClient } from '../../helpers/wire.js';
import {
  EARLIEST, EARLIEST_LOCAL, KAFKA_STORAGE_ERROR, OFFSET_OUT_OF_RANGE, RETENTION_CHECK_MS,
  archived, chase, createTopic, fetchAt, fetchMany, filesOf, firstStoredOffset, kcatConsumer, kcatProblems, logKey, offsetOf,
  later, produceRun, waitKcat, readProblems, recordsFrom, replay, tiered, useTieredLab, waitArchived, waitLocalStart,
  type Chase, type FetchedRecord, type Produced,
} from './fault-support.js';

const lab = useTieredLab();
let c: WireClient;

beforeAll(async () => {
  c = await WireClient.connect(lab.broker.port);
});
afterAll(() => c?.close());

/** Offsets of a delta-rs read of one partition, sorted; each must appear once. */
const lakeOffsets = (rows: Array<[number, number, ...unknown[]]>, p: number): number[] => rows.filter((r) => r[0] === p).map((r) => r[1]).sort((a, b) => a - b);
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

describe('tiered topics under faults', () => {
  it('(b) the archiver SIGKILLed after its Delta commit, before its watermark: Redis keeps what the watermark does not cover', async () => {
    const topic = 'tf-crash';
    expect(await createTopic(c, topic, 1, tiered(100))).toEqual({ errorCode: 0, errorMessage: null });
    const produced: Produced[] = await produceRun(c, topic, 0, 20, 10);
    // after-commit (archiver/src/commit.ts): the process SIGKILLs itself once the commit is in the Delta log, before publishArchived.
    const crashing = lab.archiver({ RUNNEL_ARCHIVER_TOPICS: topic, RUNNEL_ARCHIVER_CRASH_POINTS: 'after-commit:1' });
    const code = await Promise.race([crashing.exited, sleep(30_000).then(() => 'alive' as const)]);
    expect(code, crashing.log.slice(-20).join('\n')).not.toBe('alive');
    expect(crashing.proc.signalCode).toBe('SIGKILL');
    const table = await lab.delta(topic);
    const committed = table.txn[`runnel/${topic}/0`];
    expect(typeof committed).toBe('number');
    expect(table.rows.length).toBeGreaterThan(0);
    const watermark = await archived(lab, topic, 0);
    expect(watermark).toBeLessThan(committed as number);

    // Retention passes run; the lake holds more than the watermark says, but Redis trims only up to the watermark.
    await sleep(4 * RETENTION_CHECK_MS);
    const local = await offsetOf(c, topic, 0, EARLIEST_LOCAL);
    expect(local).toBeLessThanOrEqual(watermark + 1);
    expect(await firstStoredOffset(lab, topic, 0)).toBeLessThanOrEqual(watermark + 1);
    expect(await offsetOf(c, topic, 0, EARLIEST)).toBe(0);
    expect(readProblems(await replay(lab.broker.port, topic, 0, 0, 200), produced)).toEqual([]);

    // A fresh archiver adopts the partition from the table's txn version: it neither rewrites nor skips anything.
    const next = lab.archiver({ RUNNEL_ARCHIVER_TOPICS: topic });
    try {
      produced.push(...await produceRun(c, topic, 0, 10, 10, { firstSeq: produced.length }));
      await waitArchived(lab, topic, 0, 299);
      await waitLocalStart(c, topic, 0, 290);
      expect(lakeOffsets((await lab.delta(topic)).rows, 0)).toEqual(range(300));
      expect(readProblems(await replay(lab.broker.port, topic, 0, 0, 300), produced)).toEqual([]);
      // and a real client (librdkafka) from the beginning
      const viaKcat = await readAll(lab.broker.bootstrap, topic);
      expect(kcatProblems(viaKcat, produced)).toEqual([]);
    } finally {
      await next.kill();
    }
  });

  it('(c) a data file removed from the lake, another cut short: their offsets answer KAFKA_STORAGE_ERROR, the rest is served', async () => {
    const topic = 'tf-files';
    const other = 'tf-files-other';
    expect(await createTopic(c, topic, 2, tiered(100))).toEqual({ errorCode: 0, errorMessage: null });
    expect(await createTopic(c, other, 1, tiered(100))).toEqual({ errorCode: 0, errorMessage: null });
    const archiver = lab.archiver({ RUNNEL_ARCHIVER_TOPICS: `${topic},${other}` });
    try {
      // Partition 0 in three rounds, each archived alone: three files of partition 0 only; then partition 1 and the other topic.
      const p0: Produced[] = [];
      for (let round = 0; round < 3; round++) {
        p0.push(...await produceRun(c, topic, 0, 5, 10, { firstSeq: p0.length }));
        await waitArchived(lab, topic, 0, p0.length - 1);
      }
      const p1 = await produceRun(c, topic, 1, 5, 10);
      const o0 = await produceRun(c, other, 0, 5, 10);
      await waitArchived(lab, topic, 1, 49);
      await waitArchived(lab, other, 0, 49);
      await waitLocalStart(c, topic, 0, 140);
      await waitLocalStart(c, topic, 1, 40);
      await waitLocalStart(c, other, 0, 40);

      const files = filesOf(await lab.delta(topic), 0).filter((f) => f.actual.max_partition === 0);
      expect(files.length, JSON.stringify(files.map((f) => f.actual))).toBeGreaterThanOrEqual(3);
      const victim = files[1]!;
      expect(victim.actual.max_offset).toBeLessThan(140); // wholly below the Redis log start
      fs.rmSync(path.join(lab.lakeDir, topic, decodeURIComponent(victim.path)));
      // And a later file cut in half (a torn upload): its footer is gone.
      const torn = files[2]!;
      expect(torn.actual.min_offset).toBeLessThan(140);
      const tornPath = path.join(lab.lakeDir, topic, decodeURIComponent(torn.path));
      fs.truncateSync(tornPath, Math.floor(fs.statSync(tornPath).size / 2));

      const inVictim = victim.actual.min_offset;
      for (let i = 0; i < 3; i++) {
        const a = await fetchAt(c, topic, 0, inVictim, { timeoutMs: 10_000 });
        expect({ errorCode: a.errorCode, records: a.batches.length }).toEqual({ errorCode: KAFKA_STORAGE_ERROR, records: 0 });
        expect(a.ms).toBeLessThan(5000);
      }
      const cut = await fetchAt(c, topic, 0, torn.actual.min_offset, { timeoutMs: 10_000 });
      expect({ errorCode: cut.errorCode, records: cut.batches.length }).toEqual({ errorCode: KAFKA_STORAGE_ERROR, records: 0 });
      expect(cut.ms).toBeLessThan(5000);
      // One request naming the broken offsets and healthy ones: only the broken partition fails.
      const [bad, good1, goodOther] = await fetchMany(c, [
        { topic, partition: 0, offset: inVictim }, { topic, partition: 1, offset: 0 }, { topic: other, partition: 0, offset: 0 },
      ]);
      expect(bad!.errorCode).toBe(KAFKA_STORAGE_ERROR);
      expect(good1!.errorCode).toBe(0);
      expect(goodOther!.errorCode).toBe(0);
      expect(readProblems(await replay(lab.broker.port, topic, 1, 0, 50), p1)).toEqual([]);
      expect(readProblems(await replay(lab.broker.port, other, 0, 0, 50), o0)).toEqual([]);
      // Partition 0's Redis part and its first file are still served.
      const redisPart = await fetchAt(c, topic, 0, 140);
      expect(redisPart.errorCode).toBe(0);
      expect(readProblems(recordsFrom(redisPart, 140), p0.slice(140))).toEqual([]);
      const head = await fetchAt(c, topic, 0, 0, { maxBytes: 1 });
      expect(head.errorCode).toBe(0);
      expect(readProblems(recordsFrom(head, 0), p0.slice(0, recordsFrom(head, 0).length))).toEqual([]);
      // Offsets and timestamps still answer from the Delta log and Redis.
      expect(await offsetOf(c, topic, 0, EARLIEST)).toBe(0);
    } finally {
      await archiver.kill();
    }
  });

  it('(e) consumers at the tier boundary while retention trims every 500 ms: nothing lost, duplicated or reordered', async () => {
    const topic = 'tf-boundary';
    expect(await createTopic(c, topic, 1, tiered(200))).toEqual({ errorCode: 0, errorMessage: null });
    const archiver = lab.archiver({ RUNNEL_ARCHIVER_TOPICS: topic });
    try {
      const produced: Produced[] = [];
      let end: number | null = null;
      const kcat = kcatConsumer(lab.broker.bootstrap, topic, 0);
      // One consumer slower than the producer (it falls into the lake and climbs back at the end), one that
      // catches up and then sleeps past a retention pass now and then (it wakes below the Redis log start).
      let failed = false;
      const watch = <T>(p: Promise<T>): Promise<T> => later(p.catch((e: unknown) => { failed = true; throw e; }));
      // (about one batch a fetch while producing: a quarter of the producer's pace; 64 KiB fetches to catch up after)
      const slow = watch(chase(lab.broker.port, topic, 0, { maxBytes: () => (end === null ? 300 : 65536), pauseMs: () => (end === null ? 30 : 0), end: () => end }));
      const jumpy = watch(chase(lab.broker.port, topic, 0, { maxBytes: () => 1 << 20, pauseMs: () => (Math.random() < 0.2 ? 800 : 5), end: () => end }));
      const stopAt = Date.now() + 12_000;
      // librdkafka stopped now and then for longer than local.retention.ms plus a retention pass.
      const pauser = (async () => {
        while (Date.now() < stopAt && !failed) {
          await sleep(700);
          kcat.signal('SIGSTOP');
          await sleep(900);
          kcat.signal('SIGCONT');
        }
      })();
      const localStarts = new Set<number>();
      while (Date.now() < stopAt && !failed) {
        produced.push(...await produceRun(c, topic, 0, 1, 5, { firstSeq: produced.length }));
        if (produced.length % 100 === 0) localStarts.add(await offsetOf(c, topic, 0, EARLIEST_LOCAL));
        await sleep(5);
      }
      await pauser;
      end = produced.length;
      let s: Chase, j: Chase;
      try {
        [s, j] = await Promise.all([slow, jumpy]);
        await waitKcat(kcat, end, 60_000);
        await sleep(500); // a duplicate would show up now
      } finally {
        await kcat.stop();
      }
      console.log(`tier boundary: ${end} records; slow consumer ${s.fetches} fetches (${s.lakeFetches} below the Redis log start), jumpy ${j.fetches} (${j.lakeFetches}); ${localStarts.size} Redis log starts sampled`);
      expect(localStarts.size).toBeGreaterThan(5); // retention really moved the Redis log start while consumers read
      expect(s.lakeFetches).toBeGreaterThan(0);
      expect(j.lakeFetches).toBeGreaterThan(0);
      expect(readProblems(s.records, produced).slice(0, 20)).toEqual([]);
      expect(readProblems(j.records, produced).slice(0, 20)).toEqual([]);
      expect(kcatProblems(kcat.records(), produced).slice(0, 20)).toEqual([]);
      await waitArchived(lab, topic, 0, end - 1);
      expect(lakeOffsets((await lab.delta(topic)).rows, 0)).toEqual(range(end));
    } finally {
      await archiver.kill();
    }
  });

  // Last: it kills the broker (the shared connection is replaced after).
  it('(a) the broker SIGKILLed mid-replay: both consumers finish, every record once and in order', async () => {
    const topic = 'tf-replay';
    expect(await createTopic(c, topic, 1, tiered(100))).toEqual({ errorCode: 0, errorMessage: null });
    const archiver = lab.archiver({ RUNNEL_ARCHIVER_TOPICS: topic });
    try {
      const produced = await produceRun(c, topic, 0, 600, 10, { pad: 180 });
      await waitArchived(lab, topic, 0, 5999);
      await waitLocalStart(c, topic, 0, 5990);
      // The lake answers batches of up to 256 KiB (about 1200 of these records): kcat is held to 200 KB/s
      // of output with a small prefetch queue, the wire consumer waits 400 ms after each fetch.
      const kcat = kcatConsumer(lab.broker.bootstrap, topic, 0, { 'queued.max.messages.kbytes': '300', 'queued.min.messages': '100' }, { bytesPerSec: 200_000 });
      let wireAt = 0;
      let read: FetchedRecord[];
      let atKill: { kcat: number; wire: number };
      try {
        await waitKcat(kcat, 100, 30_000);
        const wire = later(replay(lab.broker.port, topic, 0, 0, 6000, {
          maxBytes: 1500, pauseMs: 400, timeoutMs: 120_000, retry: (code) => code !== OFFSET_OUT_OF_RANGE, onFetch: (a, offset) => { if (a.errorCode === 0) wireAt = Math.max(wireAt, offset + recordsFrom(a, offset).length); },
        }));
        let settled = false;
        void wire.finally(() => { settled = true; }).catch(() => {});
        await waitFor('both consumers inside the lake', () => settled || (kcat.records().length >= 300 && wireAt > 0), { timeoutMs: 30_000, intervalMs: 20 });
        if (settled) await wire; // it failed (or read everything before the kill): its error says which
        atKill = { kcat: kcat.records().length, wire: wireAt };
        await lab.broker.kill();
        expect(atKill.kcat, 'kcat read past the lake before the kill').toBeLessThan(5990);
        expect(atKill.wire, 'the wire consumer read past the lake before the kill').toBeLessThan(5990);
        await sleep(1000);
        await lab.broker.restart();
        read = await wire;
        await waitKcat(kcat, 6000, 60_000);
        await sleep(500);
      } finally {
        await kcat.stop();
      }
      console.log(`broker killed mid-replay: kcat at ${atKill.kcat}, wire consumer at ${atKill.wire} of 6000`);
      expect(readProblems(read, produced).slice(0, 20)).toEqual([]);
      expect(kcatProblems(kcat.records(), produced).slice(0, 20)).toEqual([]);
      // The log starts survived the crash (they are in the partition meta).
      c.close();
      c = await WireClient.connect(lab.broker.port);
      expect(await offsetOf(c, topic, 0, EARLIEST)).toBe(0);
      expect(await offsetOf(c, topic, 0, EARLIEST_LOCAL)).toBe(5990);
      expect(await lab.client.xlen(logKey(topic, 0))).toBe(1);
    } finally {
      await archiver.kill();
    }
  });
});
