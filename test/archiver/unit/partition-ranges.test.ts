// The per-partition ranges of data files (the Delta `add.tags["runnel.partitions"]`)
// against what the files' rows say when read back, for flush files and OPTIMIZE output.
import { describe, expect, it } from 'vitest';
import { Codec } from '../../../common/record-batch/layout.js';
import { encodeBatch, type EncodeRecord } from '../../helpers/encode-batch.js';
import { compactFiles, encodeDataFiles, readParquetTable } from '../../../archiver/src/parquet/jobs.js';
import { ROW_OVERHEAD_BYTES, shareBytes } from '../../../archiver/src/parquet/partition-stats.js';
import type { PartitionRange } from '../../../common/lake/partition-ranges.js';

const day1 = Date.UTC(2024, 0, 31, 23, 59, 30);
const day2 = Date.UTC(2024, 1, 1, 0, 0, 30);

/** Records of partition p: its own value size, some null keys/values and headers, timestamps from `ts`. */
function recs(p: number, n: number, ts: number): EncodeRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    key: i % 3 === 1 ? null : Buffer.from(`k${p}-${i}`),
    value: i % 4 === 3 ? null : Buffer.alloc([700, 5, 90, 40][p]! + i, 97 + p),
    headers: p === 2 ? [{ key: 'trace', value: Buffer.from(`t${i}`) }, { key: 'é', value: null }] : [],
    timestamp: ts + i * 1000,
  }));
}

function job(batches: { bytes: Buffer; p: number }[]) {
  const meta = new Float64Array(batches.length * 2);
  batches.forEach((b, i) => meta.set([b.p, -1], i * 2));
  return { batches: batches.map((b) => new Uint8Array(b.bytes)), meta, verifyCrc: true };
}

/** Ranges recomputed from the rows of a Parquet file, with each partition's weight (key + value + header bytes + overhead per row). */
function fromRows(bytes: Uint8Array): { ranges: Omit<PartitionRange, 'bytes'>[]; weight: Map<number, number> } {
  const by = new Map<number, Omit<PartitionRange, 'bytes'>>();
  const weight = new Map<number, number>();
  for (const row of readParquetTable(bytes)) {
    const p = row.partition as number;
    const o = Number(row.offset as bigint);
    const ts = row.timestamp as number;
    const r = by.get(p);
    if (!r) by.set(p, { partition: p, minOffset: o, maxOffset: o, records: 1, minTimestampMs: ts, maxTimestampMs: ts });
    else {
      r.minOffset = Math.min(r.minOffset, o);
      r.maxOffset = Math.max(r.maxOffset, o);
      r.records++;
      r.minTimestampMs = Math.min(r.minTimestampMs, ts);
      r.maxTimestampMs = Math.max(r.maxTimestampMs, ts);
    }
    let w = ROW_OVERHEAD_BYTES + ((row.key as Uint8Array | null)?.length ?? 0) + ((row.value as Uint8Array | null)?.length ?? 0);
    for (const h of row.headers ?? []) w += Buffer.byteLength(h.key as string) + ((h.value as Uint8Array | null)?.length ?? 0);
    weight.set(p, (weight.get(p) ?? 0) + w);
  }
  return { ranges: [...by.values()].sort((a, b) => a.partition - b.partition), weight };
}

/** The shares of a file's size: they sum to it, and each is its weight's share of the size, rounded. */
function expectShares(ranges: PartitionRange[], weights: number[], size: number) {
  expect(ranges.reduce((s, r) => s + r.bytes, 0)).toBe(size);
  const total = weights.reduce((s, w) => s + w, 0);
  ranges.forEach((r, i) => expect(Math.abs(r.bytes - (weights[i]! / total) * size)).toBeLessThan(1));
}

const strip = (ranges: PartitionRange[]) => ranges.map(({ bytes: _b, ...rest }) => rest);

/** 3 partitions, interleaved batch by batch, two UTC dates: partitions 0 and 2 land in both files. */
function interleaved() {
  const b = (p: number, base: number, n: number, ts: number, codec: number = Codec.NONE) => ({ bytes: encodeBatch(recs(p, n, ts), { baseOffset: base, codec }), p });
  return encodeDataFiles(
    job([
      b(0, 0, 4, day1),
      b(1, 0, 3, day1 + 10),
      b(2, 10, 5, day1 + 20, Codec.ZSTD),
      b(0, 4, 3, day1 + 50),
      b(1, 3, 3, day1 + 40),
      b(2, 15, 40, day1 + 30, Codec.LZ4),
      b(0, 7, 2, day2),
    ]),
  );
}

describe('per-partition ranges of data files', () => {
  it('a flush file: each partition range equals its rows read back, bytes are its share of the file', () => {
    const r = interleaved();
    expect(r.files.map((f) => f.date)).toEqual(['2024-01-31', '2024-02-01']);
    for (const f of r.files) {
      const rows = fromRows(f.bytes);
      expect(strip(f.ranges)).toEqual(rows.ranges);
      expectShares(f.ranges, f.ranges.map((x) => rows.weight.get(x.partition)!), f.bytes.length);
    }
    expect(r.files[0]!.ranges.map((x) => x.partition)).toEqual([0, 1, 2]);
    // partition 2's batch of 40 crosses midnight: offsets 15..44 before it, 45..54 after
    expect(r.files[1]!.ranges.map((x) => [x.partition, x.minOffset, x.maxOffset, x.records])).toEqual([
      [0, 7, 8, 2],
      [2, 45, 54, 10],
    ]);
    // partition 0's values are the largest: the largest share of the first file
    const [p0, p1, p2] = r.files[0]!.ranges;
    expect(p0!.bytes).toBeGreaterThan(p2!.bytes);
    expect(p2!.bytes).toBeGreaterThan(p1!.bytes);
  });

  it('OPTIMIZE with every input tagged: merged ranges equal the merged file rows, bytes re-shared by the inputs shares', () => {
    const a = interleaved().files[0]!;
    const b = encodeDataFiles(job([{ bytes: encodeBatch(recs(1, 6, day1 + 90), { baseOffset: 6 }), p: 1 }, { bytes: encodeBatch(recs(3, 2, day1), { baseOffset: 0 }), p: 3 }])).files[0]!;
    const out = compactFiles({ files: [a.bytes, b.bytes], ranges: [a.ranges, b.ranges] });
    expect(strip(out.ranges)).toEqual(fromRows(out.bytes).ranges);
    const inputBytes = (p: number) => [a, b].flatMap((f) => f.ranges).filter((x) => x.partition === p).reduce((s, x) => s + x.bytes, 0);
    expectShares(out.ranges, out.ranges.map((x) => inputBytes(x.partition)), out.bytes.length);
  });

  it('OPTIMIZE with an input without the tag: ranges computed from the rows while merging', () => {
    const first = interleaved().files[0]!;
    const one = (p: number, base: number, n: number) => encodeDataFiles(job([{ bytes: encodeBatch(recs(p, n, day1 + 5), { baseOffset: base }), p }])).files[0]!;
    const inputs = [first, one(2, 55, 3), one(0, 9, 2)];
    const out = compactFiles({ files: inputs.map((f) => f.bytes), ranges: [first.ranges, null, inputs[2]!.ranges] });
    const rows = fromRows(out.bytes);
    expect(strip(out.ranges)).toEqual(rows.ranges);
    expect(out.ranges.find((x) => x.partition === 2)).toMatchObject({ minOffset: 10, maxOffset: 57, records: 38 });
    expectShares(out.ranges, out.ranges.map((x) => rows.weight.get(x.partition)!), out.bytes.length);
    // no ranges passed at all: the same
    const bare = compactFiles({ files: inputs.map((f) => f.bytes) });
    expect(strip(bare.ranges)).toEqual(rows.ranges);
  });
});

describe('shareBytes', () => {
  it('sums to the total with shares by weight, rounding by largest remainder', () => {
    expect(shareBytes([1, 1, 1], 10)).toEqual([4, 3, 3]);
    expect(shareBytes([2, 1, 1], 10)).toEqual([5, 3, 2]);
    expect(shareBytes([0, 3], 7)).toEqual([0, 7]);
    expect(shareBytes([0, 0], 5)).toEqual([3, 2]);
    expect(shareBytes([], 5)).toEqual([]);
    expect(shareBytes([1e9, 1, 1], 1000).reduce((s, x) => s + x, 0)).toBe(1000);
  });
});
