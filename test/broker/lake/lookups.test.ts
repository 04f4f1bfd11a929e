// The remote tier's lookups: offsetForTimestamp (ListOffsets by time within
// the lake), extent and segments, from the files' ranges and, for time, the
// candidate file's rows.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openLakeRemoteLog, type LakeObservation, type LakeRemoteLog } from '../../../broker/src/lake/remote-log.js';
import { createLogger } from '../../../common/logger/logger.js';
import { commitFiles, records, removeLakes, table, tmpLake, writeDataFiles } from './fixture.js';

const T0 = Date.UTC(2026, 11, 1, 10);
const ID = '10c0c0c0-0000-4000-8000-000000000004';
const quiet = createLogger('warn', 'broker', { stream: { write: () => true } });
const open: LakeRemoteLog[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});
afterAll(removeLakes);
const tp = { topic: 'ts', partition: 0 };

/** p0: file 1 offsets 0..9 at T0+0..9 s; file 2 offsets 10..19 with CreateTime out of order (T0+100 s + (i*7 % 10) s). */
async function lake2(seen: LakeObservation[]) {
  const lake = tmpLake();
  const t = await table(lake, 'ts', ID);
  await commitFiles(t, await writeDataFiles(lake, 'ts', [{ partition: 0, baseOffset: 0, records: records(10, T0, { step: 1000 }) }]));
  const shuffled = records(10, 0).map((x, i) => ({ ...x, timestamp: T0 + 100_000 + ((i * 7) % 10) * 1000 }));
  await commitFiles(t, await writeDataFiles(lake, 'ts', [{ partition: 0, baseOffset: 10, records: shuffled }, { partition: 1, baseOffset: 0, records: records(3, T0) }]));
  const r = openLakeRemoteLog({ lake, cacheBytes: 1 << 24, refreshIntervalMs: 60_000, logger: quiet, workers: 1, observe: (e) => seen.push(e) });
  open.push(r);
  return r;
}

describe('lake reader: lookups', () => {
  it('offsetForTimestamp: the first offset with a timestamp at or after the target, below endOffset', async () => {
    const seen: LakeObservation[] = [];
    const r = await lake2(seen);
    expect(await r.offsetForTimestamp(tp, ID, T0 - 5, 100)).toEqual({ offset: 0, timestamp: T0 });
    expect(await r.offsetForTimestamp(tp, ID, T0 + 4_500, 100)).toEqual({ offset: 5, timestamp: T0 + 5_000 });
    // file 1 is skipped by its ranges: only file 2 is decoded
    seen.length = 0;
    // offsets 10.. have times 0,7,4,1,8,5,2,9,6,3 (s past T0+100 s): the first at or after +5 s is offset 11 (+7 s)
    expect(await r.offsetForTimestamp(tp, ID, T0 + 105_000, 100)).toEqual({ offset: 11, timestamp: T0 + 107_000 });
    expect(seen.filter((e) => e.op === 'decode')).toHaveLength(1);
    expect(await r.offsetForTimestamp(tp, ID, T0 + 109_000, 100)).toEqual({ offset: 17, timestamp: T0 + 109_000 });
    expect(await r.offsetForTimestamp(tp, ID, T0 + 109_000, 17)).toBeNull();
    expect(await r.offsetForTimestamp(tp, ID, T0 + 200_000, 100)).toBeNull();
    expect(await r.offsetForTimestamp({ topic: 'ts', partition: 9 }, ID, 0, 100)).toBeNull();
  });

  it('extent and segments per partition, from the files ranges, oldest first', async () => {
    const r = await lake2([]);
    expect(await r.extent(tp, ID)).toMatchObject({ startOffset: 0, endOffset: 20, records: 20 });
    expect((await r.extent(tp, ID))!.bytes).toBeGreaterThan(0);
    expect(await r.extent({ topic: 'ts', partition: 1 }, ID)).toMatchObject({ startOffset: 0, endOffset: 3, records: 3 });
    expect(await r.extent({ topic: 'ts', partition: 2 }, ID)).toBeNull();
    const segs = await r.segments(tp, ID);
    expect(segs.map(({ minOffset, maxOffset, maxTimestampMs, records: n }) => [minOffset, maxOffset, maxTimestampMs, n])).toEqual([
      [0, 9, T0 + 9_000, 10],
      [10, 19, T0 + 109_000, 10],
    ]);
    expect(segs.every((s) => s.bytes > 0)).toBe(true);
  });
});
