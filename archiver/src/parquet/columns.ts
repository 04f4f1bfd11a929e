// Columnar accumulation of decoded Kafka records and conversion to Arrow / Parquet.
//
// Data file schema (the Delta partition column `date` is NOT inside the files):
//   partition       int32 not null
//   offset          int64 not null
//   timestamp       int64 TIMESTAMP(MICROS, isAdjustedToUTC=true) not null
//   timestamp_type  string not null: "CreateTime" | "LogAppendTime" (Kafka's names;
//                   dictionary-encoded by the writer, so it costs ~nothing on disk)
//   key             binary (null = Kafka null key)
//   value           binary (null = tombstone)
//   headers         list<element: struct<key: string not null, value: binary>> (ordered, may repeat; empty list when none)
import * as arrow from 'apache-arrow';
import type { RecordSink } from '../../../common/record-batch/records.js';
import { emptyFileStats, type FileStats } from './file-stats.js';
import { PartitionStats, type PartitionAcc } from './partition-stats.js';
import { lakeTimestampOk, timestampReason } from '../records/timestamps.js';

export const TIMESTAMP_TYPES = ['CreateTime', 'LogAppendTime'] as const;

const headerStruct = new arrow.Struct([
  new arrow.Field('key', new arrow.Utf8(), false),
  new arrow.Field('value', new arrow.Binary(), true),
]);
const headersType = new arrow.List(new arrow.Field('element', headerStruct, false));

export const DATA_SCHEMA = new arrow.Schema([
  new arrow.Field('partition', new arrow.Int32(), false),
  new arrow.Field('offset', new arrow.Int64(), false),
  new arrow.Field('timestamp', new arrow.TimestampMicrosecond('UTC'), false),
  new arrow.Field('timestamp_type', new arrow.Utf8(), false),
  new arrow.Field('key', new arrow.Binary(), true),
  new arrow.Field('value', new arrow.Binary(), true),
  new arrow.Field('headers', headersType, true),
]);

class Bytes {
  buf: Uint8Array<ArrayBuffer>;
  len = 0;
  constructor(cap = 1024) {
    this.buf = new Uint8Array(cap);
  }
  push(src: Uint8Array, start: number, n: number) {
    if (this.len + n > this.buf.length) {
      let cap = this.buf.length * 2;
      while (cap < this.len + n) cap *= 2;
      const nb = new Uint8Array(cap);
      nb.set(this.buf.subarray(0, this.len));
      this.buf = nb;
    }
    this.buf.set(src.subarray(start, start + n), this.len);
    this.len += n;
  }
  pushString(s: string) {
    const b = Buffer.from(s, 'utf8');
    this.push(b, 0, b.length);
  }
  view() {
    return this.buf.subarray(0, this.len);
  }
}

function growI32(a: Int32Array<ArrayBuffer>, need: number): Int32Array<ArrayBuffer> {
  if (need <= a.length) return a;
  const n = new Int32Array(Math.max(need, a.length * 2));
  n.set(a);
  return n;
}
function growI64(a: BigInt64Array<ArrayBuffer>, need: number): BigInt64Array<ArrayBuffer> {
  if (need <= a.length) return a;
  const n = new BigInt64Array(Math.max(need, a.length * 2));
  n.set(a);
  return n;
}
const TWO32 = 4294967296;
/** |ms| below this: ms * 1000 is below 2^53, exact as a Number. */
const EXACT_MICROS_MS = Math.floor(Number.MAX_SAFE_INTEGER / 1000);
/** Element i of an int64 column seen as int32 words (little-endian) = v, an integer with |v| < 2^53. */
function setI64(w: Int32Array<ArrayBuffer>, i: number, v: number) {
  w[2 * i] = v | 0;
  w[2 * i + 1] = Math.floor(v / TWO32);
}
const words = (a: BigInt64Array<ArrayBuffer>) => new Int32Array(a.buffer, a.byteOffset, a.length * 2);
function growU8(a: Uint8Array<ArrayBuffer>, need: number): Uint8Array<ArrayBuffer> {
  if (need <= a.length) return a;
  const n = new Uint8Array(Math.max(need, a.length * 2));
  n.set(a);
  return n;
}

/** A nullable binary column under construction. */
class BinCol {
  data: Bytes;
  offsets = new Int32Array(65);
  valid = new Uint8Array(64);
  n = 0;
  nulls = 0;
  constructor(cap: number) {
    this.data = new Bytes(cap);
  }
  push(src: Uint8Array, start: number, len: number) {
    this.offsets = growI32(this.offsets, this.n + 2);
    this.valid = growU8(this.valid, this.n + 1);
    if (len < 0) {
      this.nulls++;
      this.valid[this.n] = 0;
    } else {
      this.valid[this.n] = 1;
      this.data.push(src, start, len);
    }
    this.n++;
    this.offsets[this.n] = this.data.len;
  }
  toData(type: arrow.Binary | arrow.Utf8): arrow.Data {
    return arrow.makeData({
      type: type as arrow.Binary,
      length: this.n,
      nullCount: this.nulls,
      nullBitmap: this.nulls ? packBits(this.valid, this.n) : undefined,
      valueOffsets: this.offsets.subarray(0, this.n + 1),
      data: this.data.view(),
    });
  }
}

function packBits(valid: Uint8Array, n: number): Uint8Array {
  const bm = new Uint8Array((n + 7) >> 3);
  for (let i = 0; i < n; i++) if (valid[i]) bm[i >> 3]! |= 1 << (i & 7);
  return bm;
}

/** Rows for one data file (one Delta `date` partition). */
export class ColumnSet {
  n = 0;
  partition = new Int32Array(64);
  offset = new BigInt64Array(64);
  timestamp = new BigInt64Array(64);
  private offsetW = words(this.offset);
  private timestampW = words(this.timestamp);
  tsType = new Uint8Array(64);
  key: BinCol;
  value: BinCol;
  headerOffsets = new Int32Array(65);
  hkey = new BinCol(256);
  hval = new BinCol(256);
  stats: FileStats = emptyFileStats();
  /** per Kafka partition, for the `runnel.partitions` tag; filled in the same pass as the columns */
  readonly parts = new PartitionStats();
  private curPart: PartitionAcc | undefined;
  constructor(capBytes = 64 * 1024) {
    this.key = new BinCol(Math.max(1024, capBytes >> 4));
    this.value = new BinCol(Math.max(1024, capBytes));
  }
  add(
    partition: number,
    offset: number,
    tsMs: number,
    tsType: number,
    buf: Uint8Array,
    kS: number,
    kL: number,
    vS: number,
    vL: number,
  ) {
    const i = this.n;
    if (i + 1 > this.partition.length) {
      const cap = this.partition.length * 2;
      this.partition = growI32(this.partition, cap);
      this.offset = growI64(this.offset, cap);
      this.timestamp = growI64(this.timestamp, cap);
      this.offsetW = words(this.offset);
      this.timestampW = words(this.timestamp);
      this.tsType = growU8(this.tsType, cap);
    }
    this.headerOffsets = growI32(this.headerOffsets, i + 2);
    this.partition[i] = partition;
    // int64 columns written as two little-endian int32 words: no BigInt per record
    // (values are integers below 2^53: exact as doubles)
    setI64(this.offsetW, i, offset);
    // micros: a Number product is exact only below 2^53; later timestamps (from about
    // the year 2255 on) are multiplied as BigInt, so no microsecond value is rounded
    if (tsMs < EXACT_MICROS_MS && tsMs > -EXACT_MICROS_MS) setI64(this.timestampW, i, tsMs * 1000);
    else this.timestamp[i] = BigInt(tsMs) * 1000n;
    this.tsType[i] = tsType;
    this.key.push(buf, kS, kL);
    this.value.push(buf, vS, vL);
    this.n = i + 1;
    this.headerOffsets[this.n] = this.headerOffsets[i]!;
    const s = this.stats;
    s.numRecords++;
    if (partition < s.minPartition) s.minPartition = partition;
    if (partition > s.maxPartition) s.maxPartition = partition;
    if (offset < s.minOffset) s.minOffset = offset;
    if (offset > s.maxOffset) s.maxOffset = offset;
    if (tsMs < s.minTimestampMs) s.minTimestampMs = tsMs;
    if (tsMs > s.maxTimestampMs) s.maxTimestampMs = tsMs;
    if (kL < 0) s.keyNulls++;
    if (vL < 0) s.valueNulls++;
    this.curPart = this.parts.row(partition, offset, tsMs, (kL > 0 ? kL : 0) + (vL > 0 ? vL : 0));
  }
  addHeader(buf: Uint8Array, kS: number, kL: number, vS: number, vL: number) {
    this.hkey.push(buf, kS, kL);
    this.hval.push(buf, vS, vL);
    this.curPart!.weight += (kL > 0 ? kL : 0) + (vL > 0 ? vL : 0);
    this.headerOffsets[this.n] = this.headerOffsets[this.n]! + 1;
  }
  toRecordBatch(): arrow.RecordBatch {
    const n = this.n;
    const f = DATA_SCHEMA.fields;
    // timestamp_type: Utf8 built from the two constant names
    const tt = new BinCol(n * 10 + 16);
    const names = TIMESTAMP_TYPES.map((s) => Buffer.from(s));
    for (let i = 0; i < n; i++) {
      const nm = names[this.tsType[i]!]!;
      tt.push(nm, 0, nm.length);
    }
    const hcount = this.headerOffsets[n]!;
    const hstruct = arrow.makeData({
      type: headerStruct,
      length: hcount,
      nullCount: 0,
      children: [this.hkey.toData(new arrow.Utf8()), this.hval.toData(new arrow.Binary())],
    });
    const children = [
      arrow.makeData({ type: f[0]!.type as arrow.Int32, length: n, nullCount: 0, data: this.partition.subarray(0, n) }),
      arrow.makeData({ type: f[1]!.type as arrow.Int64, length: n, nullCount: 0, data: this.offset.subarray(0, n) }),
      arrow.makeData({
        type: f[2]!.type as arrow.TimestampMicrosecond,
        length: n,
        nullCount: 0,
        data: this.timestamp.subarray(0, n),
      }),
      tt.toData(new arrow.Utf8()),
      this.key.toData(new arrow.Binary()),
      this.value.toData(new arrow.Binary()),
      arrow.makeData({
        type: headersType,
        length: n,
        nullCount: 0,
        valueOffsets: this.headerOffsets.subarray(0, n + 1),
        child: hstruct,
      }),
    ];
    const struct = arrow.makeData({ type: new arrow.Struct(DATA_SCHEMA.fields), length: n, nullCount: 0, children });
    return new arrow.RecordBatch(DATA_SCHEMA, struct);
  }
}

export const DAY_MS = 86_400_000;

export function dayString(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** Max bytes of one binary column in one file (Arrow/Parquet offsets are int32). */
export const MAX_COLUMN_BYTES = 1 << 30;

/** RecordSink that splits rows by UTC date of the record timestamp (and at 1 GiB of values). */
export class DateSplitter implements RecordSink {
  /** all column sets per day, in creation order (the last one is being filled) */
  readonly byDay = new Map<number, ColumnSet[]>();
  partition = 0;
  private cur: ColumnSet | undefined;
  private curDay = NaN;
  private first = true;
  constructor(private readonly capBytes: number) {}
  private open(day: number): ColumnSet {
    // the first set usually holds everything: size it from the input; later ones grow
    const cs = new ColumnSet(this.first ? this.capBytes : 1 << 20);
    this.first = false;
    let arr = this.byDay.get(day);
    if (!arr) this.byDay.set(day, (arr = []));
    arr.push(cs);
    return cs;
  }
  record(offset: number, ts: number, tsType: 0 | 1, buf: Buffer, kS: number, kL: number, vS: number, vL: number): void {
    // never clamped: the caller stalls the record's partition (RN4007, records/timestamps.ts)
    if (!lakeTimestampOk(ts)) throw new Error(timestampReason(offset, ts));
    const day = Math.floor(ts / DAY_MS);
    if (day !== this.curDay) {
      const arr = this.byDay.get(day);
      this.cur = arr ? arr[arr.length - 1]! : this.open(day);
      this.curDay = day;
    }
    if (this.cur!.value.data.len + Math.max(0, vL) > MAX_COLUMN_BYTES || this.cur!.key.data.len + Math.max(0, kL) > MAX_COLUMN_BYTES) {
      this.cur = this.open(day);
    }
    this.cur!.add(this.partition, offset, ts, tsType, buf, kS, kL, vS, vL);
  }
  header(buf: Buffer, kS: number, kL: number, vS: number, vL: number): void {
    this.cur!.addHeader(buf, kS, kL, vS, vL);
  }
}
