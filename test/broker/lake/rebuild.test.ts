// The remote tier's batch rebuild (broker/src/lake/rebuild.ts) on real data
// files from the archiver's encoder and from a foreign Arrow layout: the
// records come back as written, every batch is byte for byte the product
// encoder's batch of its records, and the bytes equal those of the rebuild
// before its rewrite (digests below, produced by commit f0af225's rebuild).
import { createHash } from 'node:crypto';
import * as arrow from 'apache-arrow';
import * as pq from 'parquet-wasm';
import { describe, expect, it } from 'vitest';
import { encodeDataFiles, writeParquet } from '../../../archiver/src/parquet/jobs.js';
import { M, META_FIELDS } from '../../../broker/src/lake/batch-meta.js';
import { rebuild, type PartBatches } from '../../../broker/src/lake/rebuild.js';
import { encodeBatch, type EncodeRecord } from '../../../common/record-batch/encode.js';
import { batchBytes, recordsOf, type BatchSpec, type Rec } from './fixture.js';

const T0 = Date.UTC(2026, 11, 1, 23, 59, 59, 900);
const DAY = 86_400_000;

const payload = (i: number, n: number) => Buffer.from(`p${i}:`.padEnd(n, String.fromCharCode(97 + (i % 26))));

/** Records of every shape: null and empty keys/values, long values (multi-byte varints), 0..4 headers with null values and repeats. */
function recs(seed: number, n: number, t: number, step: number): EncodeRecord[] {
  return Array.from({ length: n }, (_, j) => {
    const i = seed + j;
    const size = i % 11 === 0 ? 20_000 : i % 4 === 0 ? 300 : i % 13 === 0 ? 0 : 1 + (i % 70);
    return {
      key: i % 6 === 5 ? null : i % 17 === 0 ? Buffer.alloc(0) : Buffer.from(`key-${i % 40}`),
      value: i % 9 === 8 ? null : payload(i, size),
      timestamp: t + j * step,
      headers: Array.from({ length: i % 5 }, (_, h) => ({ key: h === 2 ? 'trace-é' : `h${h % 2}`, value: h === 1 ? null : payload(h + i, (i * 7 + h) % 90) })),
    };
  });
}

/** Three partitions interleaved, across a UTC midnight (two files), with gaps, LogAppendTime runs, out-of-order CreateTime and offsets past 2^32. */
function specs(): BatchSpec[] {
  const out: BatchSpec[] = [];
  const big = 2 ** 32 + 7;
  for (let b = 0; b < 12; b++) {
    const t = T0 + (b - 6) * 17;
    out.push({ partition: 0, baseOffset: b * 40, records: recs(b * 40, 30, t, b % 3 === 0 ? -3 : 5), offsetDeltas: Array.from({ length: 30 }, (_, j) => j + (j > 10 ? 10 : 0)) });
    out.push({ partition: 3, baseOffset: big + b * 25, records: recs(1000 + b * 25, 25, t + 1, 1), logAppendTime: b % 4 !== 1 });
    if (b % 2 === 0) out.push({ partition: 7, baseOffset: 500 + b * 3, records: recs(5000 + b, 3, t, DAY / 5) });
  }
  // partition 7's rows out of offset order in the file
  out.push({ partition: 7, baseOffset: 100, records: recs(9000, 4, T0 - 50, 2) });
  return out;
}

function archiverFiles(s: BatchSpec[]): Uint8Array[] {
  const meta = new Float64Array(s.length * 2);
  s.forEach((x, i) => meta.set([x.partition, -1], i * 2));
  return encodeDataFiles({ batches: s.map((x) => new Uint8Array(batchBytes(x))), meta, verifyCrc: true }).files.map((f) => f.bytes);
}

/** A data file in another writer's Arrow layout: LargeBinary key and value, a dictionary timestamp_type. */
function foreignFile(): Uint8Array {
  const n = 40;
  const r = recs(300, n, T0, 3);
  const key = arrow.vectorFromArray(r.map((x) => x.key ?? null), new arrow.LargeBinary());
  const value = arrow.vectorFromArray(r.map((x) => x.value ?? null), new arrow.LargeBinary());
  const tt = arrow.vectorFromArray(r.map((_, i) => (i >= 20 && i < 30 ? 'LogAppendTime' : 'CreateTime')), new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32()));
  const hType = new arrow.List(new arrow.Field('element', new arrow.Struct([new arrow.Field('key', new arrow.Utf8(), false), new arrow.Field('value', new arrow.Binary(), true)]), false));
  const headers = arrow.vectorFromArray(r.map((x) => (x.headers ?? []).map((h) => ({ key: h.key, value: h.value }))), hType);
  const t = new arrow.Table({
    partition: arrow.vectorFromArray(r.map(() => 2), new arrow.Int32()),
    offset: arrow.vectorFromArray(r.map((_, i) => BigInt(10 + i * 2)), new arrow.Int64()),
    timestamp: arrow.makeVector(arrow.makeData({ type: new arrow.TimestampMicrosecond('UTC'), length: n, data: BigInt64Array.from(r, (x, i) => BigInt((i >= 20 && i < 30 ? T0 + 5 : x.timestamp!) * 1000)) })),
    timestamp_type: tt,
    key,
    value,
    headers,
  });
  return writeParquet(t);
}

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex').slice(0, 16);
const digest = (parts: PartBatches[]) => parts.map((p) => [p.partition, p.records, sha(p.bytes), sha(new Uint8Array(p.meta.buffer, p.meta.byteOffset, p.meta.byteLength))].join(' '));

const batchesOf = (p: PartBatches) =>
  Array.from({ length: p.meta.length / META_FIELDS }, (_, j) => Buffer.from(p.bytes.buffer, p.bytes.byteOffset + p.meta[j * META_FIELDS + M.START]!, p.meta[j * META_FIELDS + M.SIZE]!));

/** Each batch re-encoded from its decoded records by the product encoder: the rebuild writes canonical Kafka bytes. */
function expectCanonical(p: PartBatches): void {
  for (const b of batchesOf(p)) {
    const got = recordsOf([b], p.partition);
    const lat = got[0]!.timestampType === 1;
    const again = encodeBatch(
      got.map((x) => ({ key: x.key === null ? null : Buffer.from(x.key, 'latin1'), value: x.value === null ? null : Buffer.from(x.value, 'latin1'), timestamp: lat ? undefined : x.timestamp, headers: x.headers.map(([k, v]) => ({ key: k, value: v === null ? null : Buffer.from(v, 'latin1') })) })),
      { baseOffset: got[0]!.offset, offsetDeltas: got.map((x) => x.offset - got[0]!.offset), logAppendTime: lat, baseTimestamp: got[0]!.timestamp },
    );
    expect(b.equals(again)).toBe(true);
  }
}

/** The rows each partition must get back: offset order, each offset once. */
function expected(s: BatchSpec[]): Map<number, Rec[]> {
  const by = new Map<number, Map<number, Rec>>();
  for (const x of s) for (const r of recordsOf([batchBytes(x)], x.partition)) (by.get(x.partition) ?? by.set(x.partition, new Map()).get(x.partition)!).set(r.offset, r);
  return new Map([...by].map(([p, m]) => [p, [...m.values()].sort((a, b) => a.offset - b.offset)]));
}

describe('lake batch rebuild', () => {
  const s = specs();
  const files = archiverFiles(s);
  // a second copy of one day's rows: overlapping files keep each offset once
  const overlap = archiverFiles(s.filter((x) => x.partition === 0 && x.records[0]!.timestamp! < T0 - 20));

  it('gives back every record in offset order, with canonical batches, across files given in any order', () => {
    expect(files).toHaveLength(2);
    const want = expected(s);
    for (const target of [1 << 20, 2048, 1]) {
      const parts = rebuild({ files: [files[1]!, ...overlap, files[0]!], partition: -1, targetBatchBytes: target });
      expect(parts.map((p) => p.partition)).toEqual([0, 3, 7]);
      for (const p of parts) {
        const got = recordsOf(batchesOf(p), p.partition);
        expect(got).toEqual(want.get(p.partition));
        expect(p.records).toBe(got.length);
        expect([p.minOffset, p.maxOffset]).toEqual([got[0]!.offset, got.at(-1)!.offset]);
        expect([p.minTimestampMs, p.maxTimestampMs]).toEqual([Math.min(...got.map((x) => x.timestamp)), Math.max(...got.map((x) => x.timestamp))]);
        expect(p.payloadBytes).toBe(got.reduce((n, x) => n + (x.key?.length ?? 0) + (x.value?.length ?? 0) + x.headers.reduce((m, [k, v]) => m + Buffer.byteLength(k) + (v?.length ?? 0), 0), 0));
        expectCanonical(p);
      }
    }
  });

  it('reads a foreign Arrow layout (LargeBinary, dictionary timestamp_type) and one partition alone', () => {
    const parts = rebuild({ files: [foreignFile()], partition: -1, targetBatchBytes: 4096 });
    expect(parts.map((p) => [p.partition, p.records])).toEqual([[2, 40]]);
    const got = recordsOf(batchesOf(parts[0]!), 2);
    expect(got.map((x) => x.timestampType)).toEqual(Array.from({ length: 40 }, (_, i) => (i >= 20 && i < 30 ? 1 : 0)));
    expect(got.map((x) => x.offset)).toEqual(Array.from({ length: 40 }, (_, i) => 10 + i * 2));
    expectCanonical(parts[0]!);
    expect(rebuild({ files, partition: 3, targetBatchBytes: 4096 }).map((p) => p.partition)).toEqual([3]);
  });

  it("frees parquet-wasm's decoded arrays after each rebuild, a failed one included", () => {
    const big = archiverFiles([{ partition: 1, baseOffset: 0, records: recs(0, 3000, T0 - 10_000, 1) }]);
    const corrupt = new Uint8Array(Buffer.from('PAR1 not a parquet file PAR1'));
    const sizes: number[] = [];
    for (let k = 0; k < 6; k++) {
      expect(rebuild({ files: big, partition: -1, targetBatchBytes: 1 << 16 })[0]!.records).toBe(3000);
      expect(() => rebuild({ files: [...big, corrupt], partition: -1, targetBatchBytes: 1 << 16 })).toThrow();
      sizes.push(pq.wasmMemory().buffer.byteLength);
    }
    expect(sizes.slice(2)).toEqual(sizes.slice(1, -1));
  });

  it('writes the same bytes as the rebuild it replaced', () => {
    const run = (target: number) => digest(rebuild({ files: [files[1]!, ...overlap, files[0]!], partition: -1, targetBatchBytes: target }));
    // partition, records, sha256 prefix of bytes, of meta
    expect(run(1 << 20)).toEqual(['0 360 ee370a94f1850749 cf2b966d332fd9bd', '3 300 49cf72a3d771aa3d 554fa7b0be6cb12b', '7 22 666ea3e9ffba8546 270ef4c552ec0b69']);
    expect(run(2048)).toEqual(['0 360 5df2037ed4a4d791 c7d7017a93e77dc0', '3 300 5d5693ef0f70957f be2322fde8ff0f8c', '7 22 5658b4608c3e321d 0808c19c001dd167']);
    expect(run(1)).toEqual(['0 360 c1bac9542bfc28e4 67763b1643716b18', '3 300 c9a9c1c3211f1af1 8244c19714ad2241', '7 22 f4d8595ecfbdc948 134bae9e0c78ecc2']);
    expect(digest(rebuild({ files: [foreignFile()], partition: -1, targetBatchBytes: 4096 }))).toEqual(['2 40 aa04b8d5991415b6 d547042eca642e23']);
  });
});
