// Lake data files (archiver/src/parquet/columns.ts schema) back into Kafka
// record batches: the CPU-heavy half of the remote tier, run in a worker
// thread (decode-worker.ts). Pure: bytes in, batches out.
//
// parquet-wasm decodes a file into Arrow arrays in its wasm memory and hands
// them over by the Arrow C data interface (its FFI export): the columns are
// read there (no IPC round trip, no Arrow JS), and each record is written
// once, at its exact length, from the columns' offsets and value buffers into
// one output buffer per partition.
//
// Per partition, rows are taken in offset order (a file holds the rows of
// several partitions, interleaved) and cut into uncompressed batches of about
// `targetBatchBytes` of records. A batch holds one timestamp type, and a
// LogAppendTime batch one timestamp: Kafka gives every record of a
// LogAppendTime batch the batch's maxTimestamp.
import * as pq from 'parquet-wasm';
import { putVarint, varintSize, writeBatchHeader } from '../../../common/record-batch/encode.js';
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

/** Rows per Arrow record batch asked of the reader: few, large chunks. */
const READ_BATCH_ROWS = 1 << 16;

// ---- Arrow C data interface structs in wasm32 memory (pointers are 4 bytes)

interface CSchema {
  format: string;
  name: string;
  children: CSchema[];
  dictionary: CSchema | null;
}
interface CArray {
  length: number;
  nullCount: number;
  offset: number;
  buffers: number[];
  children: CArray[];
  dictionary: CArray | null;
}

class Wasm {
  readonly dv: DataView;
  readonly u8: Uint8Array;
  constructor(readonly mem: ArrayBuffer) {
    this.dv = new DataView(mem);
    this.u8 = new Uint8Array(mem);
  }
  ptr(at: number): number {
    return this.dv.getUint32(at, true);
  }
  i64(at: number): number {
    return Number(this.dv.getBigInt64(at, true));
  }
  cstr(at: number): string {
    if (at === 0) return '';
    let e = at;
    while (this.u8[e] !== 0) e++;
    return Buffer.from(this.mem, at, e - at).toString('utf8');
  }
  // struct ArrowSchema { format, name, metadata; int64 flags, n_children; children, dictionary, release, private_data }
  schema(at: number): CSchema {
    const n = this.i64(at + 24);
    const ch = this.ptr(at + 32);
    const dict = this.ptr(at + 36);
    return {
      format: this.cstr(this.ptr(at)),
      name: this.cstr(this.ptr(at + 4)),
      children: Array.from({ length: n }, (_, i) => this.schema(this.ptr(ch + 4 * i))),
      dictionary: dict === 0 ? null : this.schema(dict),
    };
  }
  // struct ArrowArray { int64 length, null_count, offset, n_buffers, n_children; buffers, children, dictionary, release, private_data }
  array(at: number): CArray {
    const nb = this.i64(at + 24);
    const nc = this.i64(at + 32);
    const bufs = this.ptr(at + 40);
    const ch = this.ptr(at + 44);
    const dict = this.ptr(at + 48);
    return {
      length: this.i64(at),
      nullCount: this.i64(at + 8),
      offset: this.i64(at + 16),
      buffers: Array.from({ length: nb }, (_, i) => this.ptr(bufs + 4 * i)),
      children: Array.from({ length: nc }, (_, i) => this.array(this.ptr(ch + 4 * i))),
      dictionary: dict === 0 ? null : this.array(dict),
    };
  }
  /** `n` int32 elements at `at`, in place where aligned. */
  int32s(at: number, n: number): Int32Array {
    if (at % 4 === 0) return new Int32Array(this.mem, at, n);
    return new Int32Array(this.mem.slice(at, at + 4 * n));
  }
  /** `n` int64 elements at `at` as doubles, exact below 2^53. */
  int64sAsDoubles(at: number, n: number): Float64Array {
    const w = this.int32s(at, 2 * n);
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = w[2 * i + 1]! * TWO32 + (w[2 * i]! >>> 0);
    return out;
  }
}

// ---- columns of one Arrow record batch

interface BinCol {
  /** element i spans values[offs[i], offs[i + 1]) */
  offs: Int32Array | Float64Array;
  values: Uint8Array;
  bitmap: Uint8Array | null;
  bitBase: number;
}

interface Chunk {
  n: number;
  part: Int32Array;
  /** int64 columns as little-endian int32 words */
  off: Int32Array;
  ts: Int32Array;
  tsLat: Uint8Array;
  key: BinCol;
  value: BinCol;
  hOffs: Int32Array | Float64Array;
  hKey: BinCol;
  hVal: BinCol;
  /** estimated bytes of its records in batches */
  bytes: number;
}

function fail(what: string): never {
  throw new Error(`data file ${what}`);
}

/** Element `skip`.. of a variable-length binary or string array ('z', 'u', 'Z', 'U'). */
function binCol(w: Wasm, s: CSchema, a: CArray, skip = 0): BinCol {
  const large = s.format === 'Z' || s.format === 'U';
  if (!large && s.format !== 'z' && s.format !== 'u') fail(`column ${s.name} has Arrow format ${s.format}, not binary`);
  const base = a.offset + skip;
  const n = a.length - skip;
  const offs = large ? w.int64sAsDoubles(a.buffers[1]! + 8 * base, n + 1) : w.int32s(a.buffers[1]! + 4 * base, n + 1);
  const end = n >= 0 ? offs[n]! : 0;
  const bitmap = a.nullCount !== 0 && a.buffers[0] !== 0 ? w.u8.subarray(a.buffers[0]!, a.buffers[0]! + ((base + n + 7) >> 3)) : null;
  return { offs, values: a.buffers[2] === 0 ? new Uint8Array(0) : w.u8.subarray(a.buffers[2]!, a.buffers[2]! + end), bitmap, bitBase: base };
}

const isNull = (c: BinCol, i: number): boolean => c.bitmap !== null && ((c.bitmap[(c.bitBase + i) >> 3]! >> ((c.bitBase + i) & 7)) & 1) === 0;

/** The little-endian int32 words of an int64 column ('l' or a timestamp). */
function int64Words(w: Wasm, s: CSchema, a: CArray, n: number): Int32Array {
  if (s.format !== 'l' && !s.format.startsWith('ts')) fail(`column ${s.name} has Arrow format ${s.format}, not int64`);
  return w.int32s(a.buffers[1]! + 8 * a.offset, 2 * n);
}

const LAT = Buffer.from('LogAppendTime');
const isLat = (v: Uint8Array, s: number, e: number): boolean => e - s === LAT.length && LAT.equals(v.subarray(s, e));

/** 1 where the row's timestamp_type is LogAppendTime: a Utf8 column (its first letter), or a LargeUtf8 or dictionary of either (the whole name). */
function latFlags(w: Wasm, s: CSchema, a: CArray, n: number): Uint8Array {
  const out = new Uint8Array(n);
  if (s.dictionary === null) {
    const c = binCol(w, s, a);
    if (s.format === 'u') for (let i = 0; i < n; i++) out[i] = c.values[c.offs[i]!] === 0x4c /* 'L' */ ? 1 : 0;
    else for (let i = 0; i < n; i++) out[i] = isLat(c.values, c.offs[i]!, c.offs[i + 1]!) ? 1 : 0;
    return out;
  }
  const dict = binCol(w, s.dictionary, a.dictionary ?? fail(`column ${s.name} has no dictionary`));
  const flags = Uint8Array.from({ length: dict.offs.length - 1 }, (_, k) => (isLat(dict.values, dict.offs[k]!, dict.offs[k + 1]!) ? 1 : 0));
  const width = { c: 1, C: 1, s: 2, S: 2, i: 4, I: 4, l: 8, L: 8 }[s.format] ?? fail(`column ${s.name} has dictionary indices of Arrow format ${s.format}`);
  const dv = w.dv;
  const at = a.buffers[1]! + width * a.offset;
  for (let i = 0; i < n; i++) {
    const p = at + width * i;
    const k = width === 1 ? dv.getUint8(p) : width === 2 ? dv.getUint16(p, true) : dv.getUint32(p, true);
    out[i] = flags[k] ?? 0;
  }
  return out;
}

type Column = 'partition' | 'offset' | 'timestamp' | 'timestamp_type' | 'key' | 'value' | 'headers';

function chunkOf(w: Wasm, s: CSchema, a: CArray): Chunk {
  const n = a.length;
  /** Column `name`: its schema, and its array from the record batch's offset on (struct elements map to children at struct offset + i). */
  const col = (name: Column): [CSchema, CArray] => {
    const i = s.children.findIndex((f) => f.name === name);
    if (i < 0) fail(`has no column ${name}`);
    const x = a.children[i]!;
    return [s.children[i]!, { ...x, offset: x.offset + a.offset, length: x.length - a.offset }];
  };
  const [ps, pa] = col('partition');
  if (ps.format !== 'i') fail(`column partition has Arrow format ${ps.format}, not int32`);
  const [hs, ha] = col('headers');
  if (hs.format !== '+l' && hs.format !== '+L') fail(`column headers has Arrow format ${hs.format}, not a list`);
  const hOffs = hs.format === '+L' ? w.int64sAsDoubles(ha.buffers[1]! + 8 * ha.offset, n + 1) : w.int32s(ha.buffers[1]! + 4 * ha.offset, n + 1);
  // list offsets index the header structs, whose fields start at the struct's offset
  const [ss, sa] = [hs.children[0]!, ha.children[0]!];
  const hKey = binCol(w, ss.children[0]!, sa.children[0]!, sa.offset);
  const hVal = binCol(w, ss.children[1]!, sa.children[1]!, sa.offset);
  const key = binCol(w, ...col('key'));
  const value = binCol(w, ...col('value'));
  const span = (c: BinCol, from: number, to: number) => c.offs[to]! - c.offs[from]!;
  return {
    n,
    part: w.int32s(pa.buffers[1]! + 4 * pa.offset, n),
    off: int64Words(w, ...col('offset'), n),
    ts: int64Words(w, ...col('timestamp'), n),
    tsLat: latFlags(w, ...col('timestamp_type'), n),
    key,
    value,
    hOffs,
    hKey,
    hVal,
    bytes: span(key, 0, n) + span(value, 0, n) + span(hKey, hOffs[0]!, hOffs[n]!) + span(hVal, hOffs[0]!, hOffs[n]!) + 12 * n + 4 * (hOffs[n]! - hOffs[0]!),
  };
}

/** `c` with its arrays copied out of wasm memory. */
function owned(c: Chunk): Chunk {
  const bin = (b: BinCol): BinCol => ({ offs: b.offs.slice(), values: b.values.slice(), bitmap: b.bitmap && b.bitmap.slice(), bitBase: b.bitBase });
  return { ...c, part: c.part.slice(), off: c.off.slice(), ts: c.ts.slice(), key: bin(c.key), value: bin(c.value), hOffs: c.hOffs.slice(), hKey: bin(c.hKey), hVal: bin(c.hVal) };
}

/**
 * The Arrow record batches of each file; `use` must finish before it returns.
 * One file is read in place in parquet-wasm's memory (freed at the end);
 * several are copied out one by one, so that its memory, which never
 * shrinks, holds one decoded file at a time.
 */
function withChunks<T>(files: Uint8Array[], use: (chunks: Chunk[]) => T): T {
  const streams: pq.FFIStream[] = [];
  const copy = files.length > 1;
  try {
    const chunks: Chunk[] = [];
    for (const f of files) {
      const s = pq.readParquet(f, { batchSize: READ_BATCH_ROWS }).intoFFI();
      streams.push(s);
      const schemaAt = s.schemaAddr();
      const arrays = s.arrayAddrs();
      // no wasm calls while its memory is viewed: growing it would detach the views
      const w = new Wasm(pq.wasmMemory().buffer);
      const schema = w.schema(schemaAt);
      for (const at of arrays) {
        const a = w.array(at);
        if (a.length > 0) chunks.push(copy ? owned(chunkOf(w, schema, a)) : chunkOf(w, schema, a));
      }
      if (copy) streams.pop()!.free();
    }
    return use(chunks);
  } finally {
    for (const s of streams) s.free();
  }
}

const TWO32 = 4294967296;
/** An int64 element from its little-endian int32 words, exact below 2^52 in magnitude. */
function int64(w: Int32Array, i: number): number {
  return w[2 * i + 1]! * TWO32 + (w[2 * i]! >>> 0);
}
/** Microseconds to milliseconds, rounded down. */
function tsMs(c: Chunk, i: number): number {
  const hi = c.ts[2 * i + 1]!;
  if (hi < 0x100000 && hi >= -0x100000) return Math.floor(int64(c.ts, i) / 1000);
  const us = (BigInt(hi) << 32n) | BigInt(c.ts[2 * i]! >>> 0);
  return Number(us / 1000n - (us % 1000n < 0n ? 1n : 0n));
}

/** Rebuilds the batches of the rows in `job.files` (merged in offset order per partition). */
export function rebuild(job: RebuildJob): PartBatches[] {
  return withChunks(job.files, (chunks) => {
    // row refs per partition: chunk index and row as one number
    const rows = new Map<number, { refs: number[]; bytes: number }>();
    const offsetOf = (ref: number) => int64(chunks[Math.floor(ref / TWO32)]!.off, ref % TWO32);
    chunks.forEach((c, ci) => {
      const n = c.n;
      const perRow = c.bytes / n;
      let last = -1;
      let r: { refs: number[]; bytes: number } | undefined;
      for (let i = 0; i < n; i++) {
        const p = c.part[i]!;
        if (p !== last) {
          if (job.partition >= 0 && p !== job.partition) continue;
          r = rows.get(p);
          if (!r) rows.set(p, (r = { refs: [], bytes: 0 }));
          last = p;
        }
        r!.refs.push(ci * TWO32 + i);
        r!.bytes += perRow;
      }
    });
    const out: PartBatches[] = [];
    for (const [p, { refs, bytes }] of [...rows.entries()].sort((a, b) => a[0] - b[0])) {
      let sorted = true;
      for (let k = 1; k < refs.length && sorted; k++) sorted = offsetOf(refs[k - 1]!) < offsetOf(refs[k]!);
      if (!sorted) refs.sort((a, b) => offsetOf(a) - offsetOf(b));
      out.push(buildPartition(p, chunks, refs, job.targetBatchBytes, bytes));
    }
    return out;
  });
}

/** Copies `len` bytes of `src` from `s` to `b[at]`; returns the position after them. */
function copy(b: Uint8Array, at: number, src: Uint8Array, s: number, len: number): number {
  if (len < 64) {
    // short fields (keys, header names): a loop beats allocating a view to copy from
    for (let e = s + len; s < e; s++) b[at++] = src[s]!;
    return at;
  }
  b.set(src.subarray(s, s + len), at);
  return at + len;
}

function buildPartition(partition: number, chunks: Chunk[], refs: number[], target: number, estimate: number): PartBatches {
  // records, and a header for every `target` bytes (type and timestamp changes add more: grown then)
  const headers = Math.min(refs.length, 1 + Math.ceil(estimate / Math.max(1, target)));
  let buf = Buffer.allocUnsafeSlow(Math.ceil(estimate * 1.01) + BATCH_HEADER_SIZE * headers + 64);
  let pos = 0;
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
    const b = buf.subarray(start, pos);
    writeBatchHeader(b, { baseOffset: base, lastOffsetDelta: last - base, baseTimestamp: baseTs, maxTimestamp: bMax, recordCount: count, attributes: lat ? Attr.LOG_APPEND_TIME : 0 }, pos - start - BATCH_HEADER_SIZE);
    writeCrc(b);
    meta.push(base, last, start, pos - start, count, bMin, bMax);
    start = -1;
  };
  const grow = (need: number) => {
    const nb = Buffer.allocUnsafeSlow(Math.max(need, buf.length * 2));
    nb.set(buf.subarray(0, pos));
    buf = nb;
  };
  for (const ref of refs) {
    const ci = Math.floor(ref / TWO32);
    const c = chunks[ci]!;
    const i = ref - ci * TWO32;
    const offset = int64(c.off, i);
    if (offset === lastOffset) continue; // the same row twice (overlapping files): once
    lastOffset = offset;
    const ts = tsMs(c, i);
    const rowLat = c.tsLat[i]!;
    if (start >= 0 && (pos - start >= target || rowLat !== lat || (lat === 1 && ts !== baseTs) || offset - base > 0x7fffffff)) close();
    if (start < 0) {
      if (pos + BATCH_HEADER_SIZE > buf.length) grow(pos + BATCH_HEADER_SIZE);
      start = pos;
      pos += BATCH_HEADER_SIZE;
      base = offset;
      baseTs = ts;
      bMin = ts;
      bMax = ts;
      lat = rowLat;
      count = 0;
    }
    const key = c.key;
    const value = c.value;
    const kS = key.offs[i]!;
    const kL = isNull(key, i) ? -1 : key.offs[i + 1]! - kS;
    const vS = value.offs[i]!;
    const vL = isNull(value, i) ? -1 : value.offs[i + 1]! - vS;
    const h0 = c.hOffs[i]!;
    const h1 = c.hOffs[i + 1]!;
    const tsDelta = lat ? 0 : ts - baseTs;
    const offDelta = offset - base;
    // record body: attributes, deltas, key, value, headers
    let body = 1 + varintSize(tsDelta) + varintSize(offDelta) + varintSize(kL) + varintSize(vL) + varintSize(h1 - h0);
    if (kL > 0) body += kL;
    if (vL > 0) body += vL;
    const hKey = c.hKey;
    const hVal = c.hVal;
    for (let h = h0; h < h1; h++) {
      const hkL = hKey.offs[h + 1]! - hKey.offs[h]!;
      const hvL = isNull(hVal, h) ? -1 : hVal.offs[h + 1]! - hVal.offs[h]!;
      body += varintSize(hkL) + hkL + varintSize(hvL) + (hvL > 0 ? hvL : 0);
      payloadBytes += hkL + (hvL > 0 ? hvL : 0);
    }
    if (pos + body + 5 > buf.length) grow(pos + body + 5);
    const b = buf;
    let at = putVarint(b, pos, body);
    b[at++] = 0;
    at = putVarint(b, at, tsDelta);
    at = putVarint(b, at, offDelta);
    at = putVarint(b, at, kL);
    if (kL > 0) at = copy(b, at, key.values, kS, kL);
    at = putVarint(b, at, vL);
    if (vL > 0) at = copy(b, at, value.values, vS, vL);
    at = putVarint(b, at, h1 - h0);
    for (let h = h0; h < h1; h++) {
      const hkS = hKey.offs[h]!;
      const hkL = hKey.offs[h + 1]! - hkS;
      at = putVarint(b, at, hkL);
      at = copy(b, at, hKey.values, hkS, hkL);
      const hvS = hVal.offs[h]!;
      const hvL = isNull(hVal, h) ? -1 : hVal.offs[h + 1]! - hvS;
      at = putVarint(b, at, hvL);
      if (hvL > 0) at = copy(b, at, hVal.values, hvS, hvL);
    }
    pos = at;
    payloadBytes += (kL > 0 ? kL : 0) + (vL > 0 ? vL : 0);
    count++;
    records++;
    last = offset;
    if (ts < bMin) bMin = ts;
    if (ts > bMax) bMax = ts;
    if (ts < minTs) minTs = ts;
    if (ts > maxTs) maxTs = ts;
  }
  close();
  // the batches in a buffer of their own (it is transferred whole): copied only where the estimate left much unused
  const bytes = pos >= buf.length - (buf.length >> 6) ? new Uint8Array(buf.buffer, buf.byteOffset, pos) : Uint8Array.prototype.slice.call(buf, 0, pos);
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
