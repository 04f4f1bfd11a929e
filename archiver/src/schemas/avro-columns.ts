// Column builders that Avro binary is decoded straight into (no JS object per
// record: the typed archiver's cost is this loop, bench/archiver/typed-micro.mjs).
// Each builder appends one value per row (a struct's children one each, a
// list's child one per element). A row that fails to decode is cut off again
// (truncate): a top-level column held exactly `row` values before it, a struct's
// children as many as the struct, a list's child as many as its last offset.
import { isUtf8 } from 'node:buffer';
import * as arrow from 'apache-arrow';

/** Thrown by a reader on bytes that are not a valid Avro body of its schema. */
export class AvroDecodeError extends Error {}

function truncated(): never {
  throw new AvroDecodeError('truncated');
}

/** Values a new builder has room for (withCapacity): growing a column copies it. */
let capacity = 64;

/** Runs `make` with new builders sized for `n` values (a file's row count; at least 64). */
export function withCapacity<T>(n: number, make: () => T): T {
  const before = capacity;
  capacity = Math.max(64, n);
  try {
    return make();
  } finally {
    capacity = before;
  }
}

export abstract class Col {
  n = 0;
  /**
   * Null flags by row, allocated at the first null: a value pushed writes
   * nothing here (the hot path), a null sets its flag.
   */
  nulls: Uint8Array<ArrayBuffer> | null = null;
  /** flags the value about to be appended (index n) as null */
  protected markNull() {
    if (!this.nulls || this.n >= this.nulls.length) this.nulls = grow8(this.nulls ?? new Uint8Array(0), Math.max(this.n + 1, 64));
    this.nulls[this.n] = 1;
  }
  abstract appendNull(): void;
  /** drops the values from index `n` on (a row that failed to decode) */
  truncate(n: number): void {
    if (this.nulls && n < this.n) this.nulls.fill(0, n, Math.min(this.n, this.nulls.length));
    this.n = n;
  }
  /** null count and validity bitmap, counted once when the column is finished */
  protected nb(): { nullCount: number; nullBitmap: Uint8Array | undefined } {
    const flags = this.nulls;
    if (!flags) return { nullCount: 0, nullBitmap: undefined };
    let nulls = 0;
    const len = Math.min(this.n, flags.length);
    for (let i = 0; i < len; i++) nulls += flags[i]!;
    if (!nulls) return { nullCount: 0, nullBitmap: undefined };
    const bm = new Uint8Array((this.n + 7) >> 3).fill(0xff);
    for (let i = 0; i < len; i++) if (flags[i]) bm[i >> 3]! &= ~(1 << (i & 7));
    return { nullCount: nulls, nullBitmap: bm };
  }
  abstract finish(type: arrow.DataType): arrow.Data;
}

function grow8(a: Uint8Array, need: number): Uint8Array<ArrayBuffer> {
  const n = new Uint8Array(Math.max(need, a.length * 2));
  n.set(a);
  return n;
}
function grow32(a: Int32Array, need: number): Int32Array<ArrayBuffer> {
  const n = new Int32Array(Math.max(need, a.length * 2));
  n.set(a);
  return n;
}

/** int32 / date32 */
export class I32Col extends Col {
  v = new Int32Array(capacity);
  push(x: number) {
    if (this.n >= this.v.length) this.v = grow32(this.v, this.n + 1);
    this.v[this.n++] = x;
  }
  appendNull() {
    if (this.n >= this.v.length) this.v = grow32(this.v, this.n + 1);
    this.markNull();
    this.v[this.n++] = 0;
  }
  finish(type: arrow.DataType) {
    return arrow.makeData({ type: type as arrow.Int32, length: this.n, ...this.nb(), data: this.v.subarray(0, this.n) });
  }
}

const TWO32 = 4294967296;
/** int64 / timestamp: values below 2^53 as two int32 words, others as BigInt */
export class I64Col extends Col {
  v = new BigInt64Array(capacity);
  w = new Int32Array(this.v.buffer);
  private room() {
    if (this.n >= this.v.length) {
      const n = new BigInt64Array(this.v.length * 2);
      n.set(this.v);
      this.v = n;
      this.w = new Int32Array(n.buffer);
    }
  }
  pushNumber(x: number) {
    this.room();
    const i = this.n++;
    this.w[2 * i] = x | 0;
    this.w[2 * i + 1] = Math.floor(x / TWO32);
  }
  pushBig(x: bigint) {
    this.room();
    this.v[this.n++] = x;
  }
  appendNull() {
    this.room();
    this.markNull();
    this.v[this.n++] = 0n;
  }
  finish(type: arrow.DataType) {
    return arrow.makeData({ type: type as arrow.Int64, length: this.n, ...this.nb(), data: this.v.subarray(0, this.n) });
  }
}

export class F64Col extends Col {
  v = new Float64Array(capacity);
  push(x: number) {
    if (this.n >= this.v.length) {
      const n = new Float64Array(this.v.length * 2);
      n.set(this.v);
      this.v = n;
    }
    this.v[this.n++] = x;
  }
  appendNull() {
    this.markNull();
    this.push(0);
  }
  finish(type: arrow.DataType) {
    return arrow.makeData({ type: type as arrow.Float64, length: this.n, ...this.nb(), data: this.v.subarray(0, this.n) });
  }
}

export class F32Col extends Col {
  v = new Float32Array(capacity);
  push(x: number) {
    if (this.n >= this.v.length) {
      const n = new Float32Array(this.v.length * 2);
      n.set(this.v);
      this.v = n;
    }
    this.v[this.n++] = x;
  }
  appendNull() {
    this.markNull();
    this.push(0);
  }
  finish(type: arrow.DataType) {
    return arrow.makeData({ type: type as arrow.Float32, length: this.n, ...this.nb(), data: this.v.subarray(0, this.n) });
  }
}

export class BoolCol extends Col {
  v = new Uint8Array(capacity);
  push(x: boolean) {
    if (this.n >= this.v.length) this.v = grow8(this.v, this.n + 1);
    this.v[this.n++] = x ? 1 : 0;
  }
  appendNull() {
    this.markNull();
    this.push(false);
  }
  finish(type: arrow.DataType) {
    const bits = new Uint8Array((this.n + 7) >> 3);
    for (let i = 0; i < this.n; i++) if (this.v[i]) bits[i >> 3]! |= 1 << (i & 7);
    return arrow.makeData({ type: type as arrow.Bool, length: this.n, ...this.nb(), data: bits });
  }
}

/** Decimal128: 16 bytes per value, little-endian two's complement */
export class DecimalCol extends Col {
  v = new Uint8Array(capacity * 16);
  /** `len` big-endian two's-complement bytes at buf[pos..] */
  push(buf: Uint8Array, pos: number, len: number) {
    if (len > 16) throw new AvroDecodeError(`decimal of ${len} bytes does not fit 128 bits`);
    if ((this.n + 1) * 16 > this.v.length) this.v = grow8(this.v, (this.n + 1) * 16);
    const o = this.n++ * 16;
    const fill = len > 0 && buf[pos]! & 0x80 ? 0xff : 0;
    for (let i = 0; i < 16; i++) this.v[o + i] = i < len ? buf[pos + len - 1 - i]! : fill;
  }
  /** an integer (scale 0) that fits 128 bits */
  pushBig(x: bigint) {
    if ((this.n + 1) * 16 > this.v.length) this.v = grow8(this.v, (this.n + 1) * 16);
    const o = this.n++ * 16;
    let u = BigInt.asUintN(128, x);
    for (let i = 0; i < 16; i++, u >>= 8n) this.v[o + i] = Number(u & 0xffn);
  }
  appendNull() {
    if ((this.n + 1) * 16 > this.v.length) this.v = grow8(this.v, (this.n + 1) * 16);
    this.markNull();
    this.v.fill(0, this.n * 16, this.n * 16 + 16);
    this.n++;
  }
  finish(type: arrow.DataType) {
    const words = new Uint32Array(this.v.buffer, 0, this.n * 4);
    return arrow.makeData({ type: type as arrow.Decimal, length: this.n, ...this.nb(), data: words });
  }
}

/** utf8 / binary */
export class BytesCol extends Col {
  offsets = new Int32Array(capacity + 1);
  data = new Uint8Array(capacity * 8);
  len = 0;
  push(buf: Uint8Array, pos: number, n: number) {
    if (this.n + 2 > this.offsets.length) this.offsets = grow32(this.offsets, this.n + 2);
    if (this.len + n > this.data.length) this.data = grow8(this.data, this.len + n);
    // short values (most strings) byte by byte: cheaper than a subarray view
    if (n < 48) for (let i = 0; i < n; i++) this.data[this.len + i] = buf[pos + i]!;
    else this.data.set(buf.subarray(pos, pos + n), this.len);
    this.len += n;
    this.offsets[++this.n] = this.len;
  }
  /** `n` bytes that must be UTF-8 (an Avro string): ASCII is checked while copying, anything else by isUtf8 */
  pushUtf8(buf: Uint8Array, pos: number, n: number) {
    if (n < 48) {
      if (this.n + 2 > this.offsets.length) this.offsets = grow32(this.offsets, this.n + 2);
      if (this.len + n > this.data.length) this.data = grow8(this.data, this.len + n);
      let high = 0;
      const d = this.data;
      const o = this.len;
      for (let i = 0; i < n; i++) high |= d[o + i] = buf[pos + i]!;
      if (high & 0x80 && !isUtf8(buf.subarray(pos, pos + n))) throw new AvroDecodeError('a string is not valid UTF-8');
      this.len += n;
      this.offsets[++this.n] = this.len;
      return;
    }
    checkUtf8(buf, pos, n);
    this.push(buf, pos, n);
  }
  pushString(s: string) {
    const b = Buffer.from(s, 'utf8');
    this.push(b, 0, b.length);
  }
  appendNull() {
    if (this.n + 2 > this.offsets.length) this.offsets = grow32(this.offsets, this.n + 2);
    this.markNull();
    this.offsets[++this.n] = this.len;
  }
  override truncate(n: number) {
    super.truncate(n);
    this.len = this.offsets[n]!;
  }
  finish(type: arrow.DataType) {
    return arrow.makeData({ type: type as arrow.Utf8, length: this.n, ...this.nb(), valueOffsets: this.offsets.subarray(0, this.n + 1), data: this.data.subarray(0, this.len) });
  }
}

export class StructCol extends Col {
  constructor(readonly children: Col[]) {
    super();
  }
  /** the children were appended by the caller */
  pushValid() {
    this.n++;
  }
  appendNull() {
    this.markNull();
    this.n++;
    for (const c of this.children) c.appendNull();
  }
  override truncate(n: number) {
    super.truncate(n);
    for (const c of this.children) c.truncate(n);
  }
  finish(type: arrow.DataType) {
    const children = this.children.map((c, i) => c.finish(type.children[i]!.type as arrow.DataType));
    return arrow.makeData({ type: type as arrow.Struct, length: this.n, ...this.nb(), children });
  }
}

/** list / map: offsets into one child (a map's child is its key_value struct) */
export class ListCol extends Col {
  offsets = new Int32Array(capacity + 1);
  constructor(readonly child: Col) {
    super();
  }
  /** closes a value whose elements the caller appended to `child` */
  pushValid() {
    if (this.n + 2 > this.offsets.length) this.offsets = grow32(this.offsets, this.n + 2);
    this.offsets[++this.n] = this.child.n;
  }
  appendNull() {
    if (this.n + 2 > this.offsets.length) this.offsets = grow32(this.offsets, this.n + 2);
    this.markNull();
    this.offsets[++this.n] = this.child.n;
  }
  override truncate(n: number) {
    super.truncate(n);
    this.child.truncate(this.offsets[n]!);
  }
  finish(type: arrow.DataType) {
    const child = this.child.finish(type.children[0]!.type as arrow.DataType);
    return arrow.makeData({ type: type as arrow.List, length: this.n, ...this.nb(), valueOffsets: this.offsets.subarray(0, this.n + 1), child });
  }
}

// ---- reading Avro binary

/** A read position in one body; `end` bounds it. */
export interface Cursor {
  buf: Buffer;
  pos: number;
  end: number;
}

/** Avro int / long (zig-zag varint) as a Number; exact below 2^53, else a decode error. Use readLongInto for int64 columns. */
export function readInt(c: Cursor): number {
  const buf = c.buf;
  let pos = c.pos;
  if (pos >= c.end) truncated();
  let b = buf[pos++]!;
  // 1 and 2 bytes (|v| < 8192): small ints, lengths, indexes, in int32 arithmetic
  if (b < 0x80) {
    c.pos = pos;
    return (b >>> 1) ^ -(b & 1);
  }
  if (pos >= c.end) truncated();
  let n = (b & 0x7f) | ((buf[pos]! & 0x7f) << 7);
  if (buf[pos++]! < 0x80) {
    c.pos = pos;
    return (n >>> 1) ^ -(n & 1);
  }
  let shift = 14;
  do {
    if (pos >= c.end) truncated();
    if (shift > 49) throw new AvroDecodeError('varint longer than 53 bits where an int or a length was expected');
    b = buf[pos++]!;
    n += (b & 0x7f) * 2 ** shift;
    shift += 7;
  } while (b & 0x80);
  c.pos = pos;
  return n % 2 ? -(n + 1) / 2 : n / 2;
}

/** An Avro long into an int64 column, exact over the whole range; `scale` multiplies it (timestamp-millis -> micros). */
export function readLongInto(c: Cursor, col: I64Col, scale: number): void {
  const buf = c.buf;
  const start = c.pos;
  let pos = start;
  let b: number;
  do {
    if (pos >= c.end) truncated();
    b = buf[pos++]!;
  } while (b & 0x80 && pos - start < 10);
  if (b & 0x80) throw new AvroDecodeError('varint longer than 10 bytes');
  if (pos - start <= 7) {
    c.pos = start;
    const v = readInt(c) * scale;
    if (Number.isSafeInteger(v)) return col.pushNumber(v);
    return col.pushBig(BigInt(v / scale) * BigInt(scale));
  }
  let z = 0n;
  for (let i = pos - 1; i >= start; i--) z = (z << 7n) | BigInt(buf[i]! & 0x7f);
  z = BigInt.asUintN(64, z);
  const v = BigInt.asIntN(64, (z >> 1n) ^ -(z & 1n));
  c.pos = pos;
  col.pushBig(BigInt.asIntN(64, v * BigInt(scale)));
}

/** The length prefix of bytes / string, checked against the body. */
export function readLen(c: Cursor): number {
  const n = readInt(c);
  if (n < 0) throw new AvroDecodeError(`negative length ${n}`);
  if (c.pos + n > c.end) truncated();
  return n;
}

export function need(c: Cursor, n: number): void {
  if (c.pos + n > c.end) truncated();
}

/** A UTF-8 check (Avro strings must be UTF-8; Parquet's writer refuses invalid UTF-8 in a string column). */
export function checkUtf8(buf: Uint8Array, pos: number, n: number): void {
  if (n && !isUtf8(buf.subarray(pos, pos + n))) throw new AvroDecodeError('a string is not valid UTF-8');
}
