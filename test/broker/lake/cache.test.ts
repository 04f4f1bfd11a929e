// The decoded-file cache: a second read is a hit, old entries go over the
// limit, a file larger than the limit is used and not kept, concurrent reads
// share one decode, and OPTIMIZE's removed files leave it.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openLakeRemoteLog, type LakeObservation, type LakeRemoteLog } from '../../../broker/src/lake/remote-log.js';
import { createLogger } from '../../../common/logger/logger.js';
import { commitFiles, fetched, records, removeLakes, table, tmpLake, writeDataFiles, type Rec } from './fixture.js';

const T0 = Date.UTC(2026, 11, 1, 10);
const ID = 'c0c0c0c0-0000-4000-8000-000000000002';
const quiet = createLogger('warn', 'broker', { stream: { write: () => true } });
const open: LakeRemoteLog[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});
afterAll(removeLakes);

function reader(lake: string, cacheBytes: number, seen: LakeObservation[], o: { readAhead?: boolean; targetBatchBytes?: number } = {}) {
  const r = openLakeRemoteLog({ lake, cacheBytes, refreshIntervalMs: 60_000, logger: quiet, observe: (e) => seen.push(e), workers: 1, readAhead: o.readAhead ?? false, targetBatchBytes: o.targetBatchBytes });
  open.push(r);
  return r;
}

/** Three files of one partition, ~88 KB of records each. */
async function lake3() {
  const lake = tmpLake();
  const t = await table(lake, 'c', ID);
  for (let f = 0; f < 3; f++) await commitFiles(t, await writeDataFiles(lake, 'c', [{ partition: 0, baseOffset: f * 100, records: records(100, T0 + f * 100, { valueBytes: 1000 }) }]));
  return lake;
}
const tp = { topic: 'c', partition: 0 };

describe('lake reader: cache', () => {
  it('a second read of a file is a cache hit; over the limit the least recently used file goes', async () => {
    const lake = await lake3();
    const seen: LakeObservation[] = [];
    const r = reader(lake, 250_000, seen);
    await r.read(tp, ID, 0, 1_000, 1);
    const first = r.stats();
    expect(first.cacheEntries).toBe(1);
    expect(first.cacheBytes).toBeGreaterThan(80_000);
    seen.length = 0;
    await r.read(tp, ID, 50, 1_000, 1);
    expect(seen.filter((e) => e.op === 'decode')).toHaveLength(0);
    expect(seen.find((e) => e.op === 'read')).toMatchObject({ cacheHit: true, ok: true });
    await r.read(tp, ID, 100, 1_000, 1);
    await r.read(tp, ID, 200, 1_000, 1);
    expect(r.stats().cacheEntries).toBe(2);
    expect(r.stats().cacheBytes).toBeLessThanOrEqual(250_000);
    seen.length = 0;
    await r.read(tp, ID, 0, 1_000, 1);
    expect(seen.filter((e) => e.op === 'decode')).toHaveLength(1);
    expect(seen.find((e) => e.op === 'read')).toMatchObject({ cacheHit: false });
  });

  it('a file larger than the limit is decoded, used and not kept', async () => {
    const lake = await lake3();
    const seen: LakeObservation[] = [];
    const r = reader(lake, 10_000, seen);
    const got = await r.read(tp, ID, 0, 1_000, 1 << 20);
    expect(got.length).toBeGreaterThan(0);
    expect(r.stats()).toEqual({ cacheBytes: 0, cacheEntries: 0 });
  });

  it('concurrent reads of one file share one decode', async () => {
    const lake = await lake3();
    const seen: LakeObservation[] = [];
    const r = reader(lake, 1 << 24, seen);
    const all = await Promise.all(Array.from({ length: 5 }, (_, i) => r.read(tp, ID, i * 10, 100, 1)));
    expect(all.map((b) => b[0]!.baseOffset)).toEqual([0, 10, 20, 30, 40]);
    expect(seen.filter((e) => e.op === 'decode')).toHaveLength(1);
  });

  it('one decode of a file serves all its partitions', async () => {
    const lake = tmpLake();
    const t = await table(lake, 'm', ID);
    await commitFiles(t, await writeDataFiles(lake, 'm', [0, 1, 2, 3].map((p) => ({ partition: p, baseOffset: 0, records: records(20, T0) }))));
    const seen: LakeObservation[] = [];
    const r = reader(lake, 1 << 24, seen);
    for (const p of [0, 1, 2, 3]) expect((await r.read({ topic: 'm', partition: p }, ID, 0, 100, 1 << 20)).length).toBeGreaterThan(0);
    expect(seen.filter((e) => e.op === 'decode')).toHaveLength(1);
    expect(r.stats().cacheEntries).toBe(4);
  });

  it('read-ahead: a reader of a file has the next one decoded for it while it reads this one', async () => {
    const lake = await lake3();
    const seen: LakeObservation[] = [];
    const r = reader(lake, 1 << 24, seen, { readAhead: true, targetBatchBytes: 8192 });
    await r.read(tp, ID, 10, 1_000, 1);
    await expect.poll(() => seen.filter((e) => e.op === 'decode').length).toBe(2);
    seen.length = 0;
    await r.read(tp, ID, 100, 1_000, 1);
    expect(seen.find((e) => e.op === 'read')).toMatchObject({ cacheHit: true });
  });

  it('a partition larger than the cache: a window of its batches is kept, so a sequential replay decodes it a few times, not once per read', async () => {
    const lake = tmpLake();
    const t = await table(lake, 'big', ID);
    const files = await writeDataFiles(lake, 'big', [{ partition: 0, baseOffset: 0, records: records(300, T0, { valueBytes: 1000 }) }]);
    await commitFiles(t, files);
    const seen: LakeObservation[] = [];
    const r = reader(lake, 100_000, seen, { targetBatchBytes: 8192 });
    const got: Rec[] = [];
    let reads = 0;
    for (let from = 0; ; reads++) {
      const b = fetched(await r.read({ topic: 'big', partition: 0 }, ID, from, 1_000, 8192), 0);
      if (!b.length) break;
      got.push(...b);
      from = b.at(-1)!.offset + 1;
    }
    expect(got).toEqual(files[0]!.records);
    const decodes = seen.filter((e) => e.op === 'decode').length;
    expect(reads).toBeGreaterThan(25);
    expect(decodes).toBeLessThanOrEqual(8);
    expect(r.stats().cacheBytes).toBeLessThanOrEqual(100_000);
  });
});
