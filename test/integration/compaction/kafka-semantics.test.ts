// Log compaction as Kafka does it, checked against either system: run with
// RUNNEL_TEST_TARGET=kafka to see the same test pass on Apache Kafka.
// The same input goes in; after a segment roll and the cleaner's passes a
// consumer reading from the beginning must see, below the active segment,
// exactly the latest record of every key (tombstones removed after
// delete.retention.ms), every record at its original offset.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTarget, type Target } from '../../helpers/target.js';
import { waitFor } from '../../helpers/procs.js';
import type { WireClient } from '../../helpers/wire.js';
import { ErrorCode } from '../../../common/errors.js';
import { FAST_COMPACTION, KAFKA_CLEANER_PROPS, RUNNEL_CLEANER_ENV, connect, createTopic, expectedCompacted, produce, readAll, rec, type ReadRecord } from './support.js';

const DELETE_RETENTION_MS = 3000;
let target: Target;
let c: WireClient;

beforeAll(async () => {
  target = await startTarget({ runnel: { env: RUNNEL_CLEANER_ENV }, kafka: { props: KAFKA_CLEANER_PROPS } });
  c = await connect(target.bootstrap);
}, 120_000);

afterAll(async () => {
  c?.close();
  await target?.stop();
});

/** Produces `batches` (each a list of [key, value]) and returns what was written, offset by offset. */
async function write(topic: string, batches: Array<Array<[string, string | null]>>): Promise<ReadRecord[]> {
  const written: ReadRecord[] = [];
  for (const b of batches) {
    const r = await produce(c, topic, b.map(([k, v]) => rec(k, v)));
    expect(r.errorCode).toBe(0);
    b.forEach(([key, value], i) => written.push({ offset: r.baseOffset + i, key, value }));
  }
  return written;
}

/** Reads the partition until it holds `want` (or the wait ends); returns the last read. */
async function converge(topic: string, want: ReadRecord[]): Promise<ReadRecord[]> {
  let got: ReadRecord[] = [];
  await waitFor('compaction to converge', async () => {
    got = await readAll(c, topic);
    return JSON.stringify(got) === JSON.stringify(want);
  }, { timeoutMs: 45_000, intervalMs: 300 }).catch(() => undefined);
  return got;
}

describe(`log compaction (${process.env.RUNNEL_TEST_TARGET ?? 'runnel'})`, () => {
  it('keeps the latest value of every key at its offset, keeps tombstones for delete.retention.ms then drops them in a later pass, leaves the active segment alone', async () => {
    const topic = `compact-${Date.now()}`;
    // delete.retention.ms is not 0 here: the cleaner may take its first pass while the
    // batches below are still being written (the tombstones' batch is then no longer the
    // newest), and with 0 the pass that the next append triggers would drop the tombstones
    // before the first read could see them. With 3 s they stay until the wait below.
    await createTopic(c, topic, { ...FAST_COMPACTION, 'delete.retention.ms': String(DELETE_RETENTION_MS) });
    // 20 keys, 12 rounds of updates in batches of 10 records; k3 and k7 are deleted, k5 deleted then set again.
    const batches: Array<Array<[string, string | null]>> = [];
    for (let round = 0; round < 12; round++) {
      for (let half = 0; half < 2; half++) batches.push(Array.from({ length: 10 }, (_, i) => [`k${half * 10 + i}`, `v${round}-${half * 10 + i}`]));
    }
    batches.push([['k3', null], ['k7', null], ['k5', null]]);
    batches.push([['k5', 'back'], ['k11', 'last-11']]);
    const written = await write(topic, batches);
    // Let the segment age past segment.ms, then append: the append starts a new
    // (active) segment in Kafka; in Runnel the newest batch is never compacted.
    await new Promise((r) => setTimeout(r, 400));
    const active = await write(topic, [[['k0', 'active-0'], ['k1', 'active-1']]]);
    const all = [...written, ...active];
    // First pass: the latest record of every key, tombstones included (their delete horizon starts now).
    const first = expectedCompacted(all, active[0]!.offset, { tombstones: true });
    expect(await converge(topic, first)).toEqual(first);
    expect(first.filter((r) => r.value === null).map((r) => r.key)).toEqual(['k3', 'k7']);

    // More records and another roll once the tombstones' horizon (first cleaned + delete.retention.ms)
    // has passed: the next pass drops them.
    await new Promise((r) => setTimeout(r, DELETE_RETENTION_MS + 500));
    const more = await write(topic, [[['k2', 'later-2'], ['k4', 'later-4']]]);
    await new Promise((r) => setTimeout(r, 400));
    const active2 = await write(topic, [[['k9', 'active-9']]]);
    const second = expectedCompacted([...all, ...more, ...active2], active2[0]!.offset, { tombstones: false });
    expect(await converge(topic, second)).toEqual(second);
    // Gaps are real: 20 keys minus 2 deleted, plus the newest record, out of 249 offsets.
    expect(second.length).toBe(19);
    expect(second[second.length - 1]!.offset).toBe(all.length + 2);
  }, 120_000);

  it('refuses a record without a key on a compacted topic (INVALID_RECORD), and keeps serving', async () => {
    const topic = `compact-nokey-${Date.now()}`;
    await createTopic(c, topic, FAST_COMPACTION);
    const bad = await produce(c, topic, [rec('a', '1'), rec(null, 'no key')]);
    expect(bad.errorCode).toBe(ErrorCode.INVALID_RECORD);
    const ok = await produce(c, topic, [rec('a', '2')]);
    expect(ok).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect((await readAll(c, topic)).map((r) => r.value)).toEqual(['2']);
  }, 30_000);
});
