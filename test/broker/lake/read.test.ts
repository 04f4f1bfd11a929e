// The remote tier's read: batches rebuilt from real lake tables decode to
// exactly the records the producers wrote.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openLakeRemoteLog, type LakeObservation, type LakeRemoteLog } from '../../../broker/src/lake/remote-log.js';
import { readBatchHeader } from '../../../common/record-batch/header.js';
import { Codec } from '../../../common/record-batch/layout.js';
import { createLogger } from '../../../common/logger/logger.js';
import { commitFiles, fetched, records, removeLakes, table, tmpLake, writeDataFiles, type BatchSpec, type Rec } from './fixture.js';

const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);
const ID = 'b1b0c7e2-0000-4000-8000-000000000001';
const quiet = createLogger('warn', 'broker', { stream: { write: () => true } });

const open: LakeRemoteLog[] = [];
function reader(lake: string, o: { cacheBytes?: number; targetBatchBytes?: number; observe?: (e: LakeObservation) => void } = {}) {
  const r = openLakeRemoteLog({ lake, cacheBytes: o.cacheBytes ?? 64 << 20, refreshIntervalMs: 60_000, logger: quiet, targetBatchBytes: o.targetBatchBytes ?? 2048, observe: o.observe, workers: 1 });
  open.push(r);
  return r;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});
afterAll(removeLakes);

/** Reads [from, end) to its end as a consumer does: each read from one past the last record. */
async function replay(r: LakeRemoteLog, topic: string, partition: number, from: number, end: number, maxBytes = 1 << 20): Promise<Rec[]> {
  const out: Rec[] = [];
  for (;;) {
    const got = fetched(await r.read({ topic, partition }, ID, from, end, maxBytes), partition);
    if (!got.length) return out;
    out.push(...got);
    from = got[got.length - 1]!.offset + 1;
  }
}

/** Three partitions interleaved in two commits of data files; p0 has a LogAppendTime run, p2 compacted-style gaps. */
async function orders(lake: string) {
  const specs1: BatchSpec[] = [
    { partition: 0, baseOffset: 0, records: records(40, T0) },
    { partition: 1, baseOffset: 0, records: records(25, T0 + 5), codec: Codec.ZSTD },
    { partition: 0, baseOffset: 40, records: records(6, T0 + 100), logAppendTime: true },
    { partition: 2, baseOffset: 10, records: records(4, T0), offsetDeltas: [0, 2, 3, 9] },
    { partition: 0, baseOffset: 46, records: records(6, T0 + 200), logAppendTime: true },
  ];
  const specs2: BatchSpec[] = [
    { partition: 1, baseOffset: 25, records: records(30, T0 + 50) },
    { partition: 0, baseOffset: 52, records: records(20, T0 + 300) },
    { partition: 2, baseOffset: 20, records: records(3, T0 + 9), offsetDeltas: [1, 5, 6] },
  ];
  const t = await table(lake, 'orders', ID);
  const f1 = await writeDataFiles(lake, 'orders', specs1);
  await commitFiles(t, f1);
  const f2 = await writeDataFiles(lake, 'orders', specs2);
  await commitFiles(t, f2);
  const all = [...f1, ...f2].flatMap((f) => f.records);
  const of = (p: number) => all.filter((x) => x.partition === p).sort((a, b) => a.offset - b.offset);
  return { t, files: [...f1, ...f2], of };
}

describe('lake reader: read', () => {
  it('replays every partition from offset 0: offsets, timestamps and their types, keys, values, headers, nulls exact', async () => {
    const lake = tmpLake();
    const { of } = await orders(lake);
    const r = reader(lake);
    for (const p of [0, 1, 2]) {
      const want = of(p);
      expect(want.length).toBeGreaterThan(0);
      expect(await replay(r, 'orders', p, 0, 1_000)).toEqual(want);
    }
    // p2's gaps stay gaps
    expect((await replay(r, 'orders', 2, 0, 1_000)).map((x) => x.offset)).toEqual([10, 12, 13, 19, 21, 25, 26]);
  });

  it('rebuilt batches: magic 2, uncompressed, no producer, leader epoch -1, one timestamp per LogAppendTime batch', async () => {
    const lake = tmpLake();
    await orders(lake);
    const r = reader(lake);
    const got = await r.read({ topic: 'orders', partition: 0 }, ID, 0, 1_000, 1 << 20);
    expect(got.length).toBeGreaterThan(3);
    let lat = 0;
    for (const b of got) {
      const bytes = Buffer.concat(b.pieces);
      expect(bytes.length).toBe(b.size);
      const h = readBatchHeader(bytes);
      expect(h).toMatchObject({ magic: 2, codec: 0, producerId: -1, producerEpoch: -1, baseSequence: -1, partitionLeaderEpoch: -1, isTransactional: false, isControl: false, baseOffset: b.baseOffset, lastOffsetDelta: b.lastOffsetDelta, size: b.size });
      if (h.timestampType === 1) {
        lat++;
        const ts = new Set(fetched([b], 0).map((x) => x.timestamp));
        expect(ts).toEqual(new Set([h.maxTimestamp]));
      }
    }
    // the two LogAppendTime batches (different append times) are not merged into one
    expect(lat).toBe(2);
  });

  it('a read from inside a batch or a gap starts at the first record at or after the offset; endOffset is respected', async () => {
    const lake = tmpLake();
    const { of } = await orders(lake);
    const r = reader(lake);
    const got = await r.read({ topic: 'orders', partition: 0 }, ID, 17, 44, 1 << 20);
    expect(got[0]!.baseOffset).toBe(17);
    expect(fetched(got, 0)).toEqual(of(0).filter((x) => x.offset >= 17 && x.offset < 44));
    const gap = await r.read({ topic: 'orders', partition: 2 }, ID, 14, 1_000, 1 << 20);
    expect(gap[0]!.baseOffset).toBe(19);
    expect(await r.read({ topic: 'orders', partition: 2 }, ID, 27, 1_000, 1 << 20)).toEqual([]);
    expect(await r.read({ topic: 'orders', partition: 7 }, ID, 0, 1_000, 1 << 20)).toEqual([]);
    expect(await r.read({ topic: 'absent', partition: 0 }, ID, 0, 1_000, 1 << 20)).toEqual([]);
  });

  it('the byte budget: whole batches within maxBytes, the first one even when larger (KIP-74), no file read beyond it', async () => {
    const lake = tmpLake();
    await orders(lake);
    const decodes: LakeObservation[] = [];
    const r = reader(lake, { observe: (e) => e.op === 'decode' && decodes.push(e) });
    const tp = { topic: 'orders', partition: 0 };
    const one = await r.read(tp, ID, 0, 1_000, 1);
    expect(one).toHaveLength(1);
    expect(one[0]!.size).toBeGreaterThan(1);
    const sizes = (await r.read(tp, ID, 0, 1_000, 1 << 20)).map((b) => b.size);
    const budget = sizes[0]! + sizes[1]! + Math.floor(sizes[2]! / 2);
    const two = await r.read(tp, ID, 0, 1_000, budget);
    expect(two.map((b) => b.size)).toEqual(sizes.slice(0, 2));
    // p0's first file covers the budget: the second commit's file is never decoded
    decodes.length = 0;
    const r2 = reader(lake, { observe: (e) => e.op === 'decode' && decodes.push(e) });
    await r2.read(tp, ID, 0, 1_000, 1);
    expect(decodes).toHaveLength(1);
  });

  it('overlapping files (CreateTime crossing midnight out of order) are merged in offset order', async () => {
    const lake = tmpLake();
    const midnight = Date.UTC(2026, 11, 2);
    const recs = records(12, 0).map((x, i) => ({ ...x, timestamp: midnight + (i % 2 === 0 ? -1000 + i : 1000 + i) }));
    const t = await table(lake, 'late', ID);
    const files = await writeDataFiles(lake, 'late', [{ partition: 0, baseOffset: 100, records: recs }]);
    expect(files).toHaveLength(2);
    await commitFiles(t, files);
    const r = reader(lake);
    const want = files.flatMap((f) => f.records).sort((a, b) => a.offset - b.offset);
    expect(await replay(r, 'late', 0, 0, 1_000)).toEqual(want);
    expect(fetched(await r.read({ topic: 'late', partition: 0 }, ID, 105, 1_000, 1 << 20), 0)[0]!.offset).toBe(105);
  });

  it('finds records committed after its first look at the table', async () => {
    const lake = tmpLake();
    const t = await table(lake, 'grow', ID);
    await commitFiles(t, await writeDataFiles(lake, 'grow', [{ partition: 0, baseOffset: 0, records: records(10, T0) }]));
    const r = reader(lake);
    expect(await replay(r, 'grow', 0, 0, 1_000)).toHaveLength(10);
    await commitFiles(t, await writeDataFiles(lake, 'grow', [{ partition: 0, baseOffset: 10, records: records(5, T0 + 10) }]));
    expect((await replay(r, 'grow', 0, 10, 1_000)).map((x) => x.offset)).toEqual([10, 11, 12, 13, 14]);
    expect(await r.extent({ topic: 'grow', partition: 0 }, ID)).toMatchObject({ startOffset: 0, endOffset: 15, records: 15 });
  });

  it('files without the partitions tag: single-partition stats place them, others are indexed by decoding once', async () => {
    const lake = tmpLake();
    const t = await table(lake, 'old', ID);
    const single = await writeDataFiles(lake, 'old', [{ partition: 3, baseOffset: 0, records: records(8, T0) }], { tags: false });
    const mixed = await writeDataFiles(lake, 'old', [
      { partition: 3, baseOffset: 8, records: records(5, T0 + 8) },
      { partition: 4, baseOffset: 0, records: records(7, T0) },
    ], { tags: false });
    await commitFiles(t, [...single, ...mixed]);
    const r = reader(lake);
    const all = [...single, ...mixed].flatMap((f) => f.records);
    expect(await replay(r, 'old', 3, 0, 1_000)).toEqual(all.filter((x) => x.partition === 3));
    expect(await replay(r, 'old', 4, 0, 1_000)).toEqual(all.filter((x) => x.partition === 4));
    expect(await r.extent({ topic: 'old', partition: 4 }, ID)).toMatchObject({ startOffset: 0, endOffset: 7, records: 7 });
  });
});
