// Lake data files (archiver/src/parquet/columns.ts schema) back into Kafka
// record batches: the CPU-heavy half of the remote tier, run in a worker
// thread (decode-worker.ts). Pure: bytes in, batches out.
//
// Per partition, rows are taken in offset order (a file holds the rows of
// several partitions, interleaved) and cut into uncompressed batches of about
// `targetBatchBytes` of records. A batch holds one timestamp type, and a
// LogAppendTime batch one timestamp: Kafka gives every record of a
// LogAppendTime batch the batch's maxTimestamp.
import * as arrow from 'apache-arrow';
import * as pq from 'parquet-wasm';
import { RecordsWriter, writeBatchHeader } from '../../../common/record-batch/encode.js';
import { writeCrc } from '../../../common/record-batch/header.js';
import { Attr, BATCH_HEADER_SIZE } from '../../../common/record-batch/layout.js';
import { M } from './batch-meta.js';


/** The rebuilt batches of one partition, back to back in `bytes`. */
export interface PartBatches {
  partition: number;
  bytes: Uint8Array;
  /** META_FIELDS numbers per batch (batch-meta.ts) */
  meta: Float64Array;
  records: number;
  minOffset: number;
  maxOffset: number;
  minTimestampMs: number;
  maxTimestampMs: number;
  /** key, value and header bytes of its rows */
  payloadBytes: number;
}

export interface RebuildJob {
  files: Uint8Array[];
  /** only this partition; -1 = every partition in the files */
  partition: number;
  targetBatchBytes: number;
}

interface BinCol {
  offs: Int32Array | Float64Array;
  values: Uint8Array;
  bitmap: Uint8Array | null;
  bitBase: number;
}

interface Chunk {
  part: Int32Array;
  off: Int32Array;
  ts: Int32Array;
  tsBig: BigInt64Array;
  tsLat: Uint8Array;
  key: BinCol;
  value: BinCol;
  hOffs: Int32Array;
  hKey: BinCol;
  hVal: BinCol;
}

function binCol(d: arrow.Data): BinCol {
  const o = d.valueOffsets as Int32Array | BigInt64Array;
  // 64-bit offsets (LargeBinary, from other writers): as doubles, exact below 2^53
  const offs = o instanceof BigInt64Array ? Float64Array.from(o, Number) : o;
  return { offs, values: d.values as Uint8Array, bitmap: d.nullCount > 0 ? d.nullBitmap ?? null : null, bitBase: d.offset };
}

const isNull = (c: BinCol, i: number): boolean => c.bitmap !== null && ((c.bitmap[(c.bitBase + i) >> 3]! >> ((c.bitBase + i) & 7)) & 1) === 0;
const at = (o: Int32Array | Float64Array, i: number): number => o[i]!;
const words = (a: BigInt64Array): Int32Array => new Int32Array(a.buffer, a.byteOffset, a.length * 2);

/** 1 where the row's timestamp_type is LogAppendTime (a Utf8 column, or a dictionary of it). */
function latFlags(v: arrow.Vector, n: number): Uint8Array {
  const out = new Uint8Array(n);
  const d = v.data[0]!;
  if (arrow.DataType.isUtf8(d.type)) {
    const offs = d.valueOffsets as Int32Array;
    const vals = d.values as Uint8Array;
    for (let i = 0; i < n; i++) out[i] = vals[offs[i]!] === 0x4c /* 'L' */ ? 1 : 0;
  } else {
    for (let i = 0; i < n; i++) out[i] = v.get(i) === 'LogAppendTime' ? 1 : 0;
  }
  return out;
}

function chunksOf(bytes: Uint8Array): Chunk[] {
  const t = arrow.tableFromIPC(pq.readParquet(bytes).intoIPCStream());
  const col = (name: string) => {
    const i = t.schema.fields.findIndex((f) => f.name === name);
    if (i < 0) throw new Error(`data file has no column ${name}`);
    return i;
  };
  const ix = ['partition', 'offset', 'timestamp', 'timestamp_type', 'key', 'value', 'headers'].map(col);
  const out: Chunk[] = [];
  for (const b of t.batches) {
    const c = b.data.children;
    const ts = c[ix[2]!]!.values as BigInt64Array;
    const headers = c[ix[6]!]!;
    const hstruct = headers.children[0]!;
    out.push({
      part: c[ix[0]!]!.values as Int32Array,
      off: words(c[ix[1]!]!.values as BigInt64Array),
      ts: words(ts),
      tsBig: ts,
      tsLat: latFlags(new arrow.Vector([c[ix[3]!]!]), b.numRows),
      key: binCol(c[ix[4]!]!),
      value: binCol(c[ix[5]!]!),
      hOffs: headers.valueOffsets as Int32Array,
      hKey: binCol(hstruct.children[0]!),
      hVal: binCol(hstruct.children[1]!),
    });
  }
  return out;
}

const TWO32 = 4294967296;
/** An int64 element from its little-endian int32 words, exact below 2^52 in magnitude. */
function int64(w: Int32Array, i: number): number {
  return w[2 * i + 1]! * TWO32 + (w[2 * i]! >>> 0);
}
function tsMs(c: Chunk, i: number): number {
  const hi = c.ts[2 * i + 1]!;
  if (hi < 0x100000 && hi >= -0x100000) return Math.floor(int64(c.ts, i) / 1000);
  return Number(c.tsBig[i]! / 1000n - (c.tsBig[i]! % 1000n < 0n ? 1n : 0n));
}

/** Rebuilds the batches of the rows in `job.files` (merged in offset order per partition). */
export function rebuild(job: RebuildJob): PartBatches[] {
  const chunks = job.files.flatMap(chunksOf);
  // row refs per partition: chunk index and row as one number
  const rows = new Map<number, number[]>();
  const offsetOf = (ref: number) => int64(chunks[Math.floor(ref / TWO32)]!.off, ref % TWO32);
  chunks.forEach((c, ci) => {
    const n = c.part.length;
    for (let i = 0; i < n; i++) {
      const p = c.part[i]!;
      if (job.partition >= 0 && p !== job.partition) continue;
      let r = rows.get(p);
      if (!r) rows.set(p, (r = []));
      r.push(ci * TWO32 + i);
    }
  });
  const out: PartBatches[] = [];
  for (const [p, refs] of [...rows.entries()].sort((a, b) => a[0] - b[0])) {
    let sorted = true;
    for (let k = 1; k < refs.length && sorted; k++) sorted = offsetOf(refs[k - 1]!) < offsetOf(refs[k]!);
    if (!sorted) refs.sort((a, b) => offsetOf(a) - offsetOf(b));
    out.push(buildPartition(p, chunks, refs, job.targetBatchBytes));
  }
  return out;
}

function buildPartition(partition: number, chunks: Chunk[], refs: number[], target: number): PartBatches {
  const w = new RecordsWriter(Math.min(1 << 26, 4096 + refs.length * 64));
  const meta: number[] = [];
  let payloadBytes = 0;
  let minTs = Infinity;
  let maxTs = -Infinity;
  let records = 0;
  let lastOffset = -1;
  // the open batch
  let start = -1;
  let base = 0;
  let baseTs = 0;
  let bMin = 0;
  let bMax = 0;
  let lat = 0;
  let count = 0;
  let last = 0;
  const close = () => {
    if (start < 0) return;
    const b = w.buf.subarray(start, w.pos);
    writeBatchHeader(b, { baseOffset: base, lastOffsetDelta: last - base, baseTimestamp: baseTs, maxTimestamp: bMax, recordCount: count, attributes: lat ? Attr.LOG_APPEND_TIME : 0 }, w.pos - start - BATCH_HEADER_SIZE);
    writeCrc(b);
    meta.push(base, last, start, w.pos - start, count, bMin, bMax);
    start = -1;
  };
  for (const ref of refs) {
    const c = chunks[Math.floor(ref / TWO32)]!;
    const i = ref % TWO32;
    const offset = int64(c.off, i);
    if (offset === lastOffset) continue; // the same row twice (overlapping files): once
    lastOffset = offset;
    const ts = tsMs(c, i);
    const rowLat = c.tsLat[i]!;
    if (start >= 0 && (w.pos - start >= target || rowLat !== lat || (lat === 1 && ts !== baseTs) || offset - base > 0x7fffffff)) close();
    if (start < 0) {
      start = w.skip(BATCH_HEADER_SIZE);
      base = offset;
      baseTs = ts;
      bMin = ts;
      bMax = ts;
      lat = rowLat;
      count = 0;
    }
    const kNull = isNull(c.key, i);
    const vNull = isNull(c.value, i);
    const kS = at(c.key.offs, i);
    const kL = kNull ? -1 : at(c.key.offs, i + 1) - kS;
    const vS = at(c.value.offs, i);
    const vL = vNull ? -1 : at(c.value.offs, i + 1) - vS;
    const h0 = c.hOffs[i]!;
    const h1 = c.hOffs[i + 1]!;
    w.beginRecord(lat ? 0 : ts - baseTs, offset - base, kNull ? null : c.key.values, kS, kL, vNull ? null : c.value.values, vS, vL, h1 - h0);
    payloadBytes += Math.max(0, kL) + Math.max(0, vL);
    for (let h = h0; h < h1; h++) {
      const hkS = at(c.hKey.offs, h);
      const hkL = at(c.hKey.offs, h + 1) - hkS;
      const hvS = at(c.hVal.offs, h);
      const hvL = isNull(c.hVal, h) ? -1 : at(c.hVal.offs, h + 1) - hvS;
      w.field(c.hKey.values, hkS, hkL);
      w.field(c.hVal.values, hvS, hvL);
      payloadBytes += hkL + Math.max(0, hvL);
    }
    w.endRecord();
    count++;
    records++;
    last = offset;
    if (ts < bMin) bMin = ts;
    if (ts > bMax) bMax = ts;
    if (ts < minTs) minTs = ts;
    if (ts > maxTs) maxTs = ts;
  }
  close();
  const bytes = new Uint8Array(w.pos);
  bytes.set(w.buf.subarray(0, w.pos));
  return {
    partition,
    bytes,
    meta: Float64Array.from(meta),
    records,
    minOffset: meta.length ? meta[M.BASE]! : -1,
    maxOffset: lastOffset,
    minTimestampMs: minTs,
    maxTimestampMs: maxTs,
    payloadBytes,
  };
}
