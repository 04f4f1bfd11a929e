// Kafka RecordBatch v2 encoding (layout.ts): a records section written field
// by field, and the 61-byte header with its CRC-32C around a payload. The
// broker's remote tier rebuilds batches from lake rows with it; the test
// encoder (test/helpers/encode-batch.ts) adds codecs and producer fields.
//
// Record: length varint | attributes int8 (0) | timestampDelta varlong
//   | offsetDelta varint | keyLength varint | key | valueLength varint | value
//   | headerCount varint | [keyLength varint | key | valueLength varint | value]...
// Varints are zigzag (Kafka's ByteUtils); a length of -1 is null.
import { writeCrc } from './header.js';
import { At, Attr, BATCH_HEADER_SIZE, LOG_OVERHEAD } from './layout.js';

/** A record's length prefix is a varint of at most 5 bytes: reserved, then closed up. */
const MAX_VARINT = 5;

/** Bytes of `v` as a zigzag varint/varlong. */
export function varintSize(v: number): number {
  const z = v >= 0 ? v * 2 : -v * 2 - 1;
  if (z < 0x80) return 1;
  if (z < 0x4000) return 2;
  if (z < 0x200000) return 3;
  if (z < 0x10000000) return 4;
  let n = 5;
  for (let t = z / 0x800000000; t >= 1; t /= 128) n++;
  return n;
}

/** Writes `v` as a zigzag varint/varlong at `b[at]`; returns the position after it. Exact for any integer Number (BigInt above 2^51). */
export function putVarint(b: Uint8Array, at: number, v: number): number {
  if (v >= 0 && v < 0x40000000) {
    let z = v * 2;
    while (z >= 0x80) {
      b[at++] = (z & 0x7f) | 0x80;
      z >>>= 7;
    }
    b[at++] = z;
    return at;
  }
  if (v >= 2 ** 51 || v <= -(2 ** 51)) {
    let z = v >= 0 ? BigInt(v) * 2n : -BigInt(v) * 2n - 1n;
    while (z >= 0x80n) {
      b[at++] = Number(z & 0x7fn) | 0x80;
      z >>= 7n;
    }
    b[at++] = Number(z);
    return at;
  }
  let z = v >= 0 ? v * 2 : -v * 2 - 1;
  while (z >= 0x80) {
    b[at++] = (z % 128) | 0x80;
    z = Math.floor(z / 128);
  }
  b[at++] = z;
  return at;
}

/** The records section of a batch, grown as records are added. */
export class RecordsWriter {
  buf: Buffer;
  pos = 0;
  count = 0;
  private recStart = -1;

  constructor(capacity = 4096) {
    this.buf = Buffer.allocUnsafe(Math.max(64, capacity));
  }

  reset(): void {
    this.pos = 0;
    this.count = 0;
    this.recStart = -1;
  }

  /** Reserves `n` bytes (a batch header written later); returns where they start. */
  skip(n: number): number {
    this.ensure(n);
    const at = this.pos;
    this.pos += n;
    return at;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const nb = Buffer.allocUnsafe(size);
    this.buf.copy(nb, 0, 0, this.pos);
    this.buf = nb;
  }

  /** Zigzag varint/varlong; exact for any integer Number (BigInt above 2^51, where zigzag leaves 2^53). */
  varint(v: number): void {
    this.ensure(10);
    this.pos = putVarint(this.buf, this.pos, v);
  }

  /** A nullable byte field: `src[start, start + len)`, len -1 = null. */
  field(src: Uint8Array, start: number, len: number): void {
    if (len < 0) {
      this.varint(-1);
      return;
    }
    this.varint(len);
    this.ensure(len);
    const b = this.buf;
    let at = this.pos;
    if (len < 64) {
      // short fields (keys, header names): a loop beats allocating a view to copy from
      for (let i = start, e = start + len; i < e; i++) b[at++] = src[i]!;
    } else {
      b.set(src.subarray(start, start + len), at);
      at += len;
    }
    this.pos = at;
  }

  /** Opens a record: everything up to the header count. Headers follow with `field` (key, value) pairs, then `endRecord`. */
  beginRecord(timestampDelta: number, offsetDelta: number, key: Uint8Array | null, kS: number, kL: number, value: Uint8Array | null, vS: number, vL: number, headerCount: number): void {
    this.ensure(MAX_VARINT + 1);
    this.recStart = this.pos;
    this.pos += MAX_VARINT;
    this.buf[this.pos++] = 0;
    this.varint(timestampDelta);
    this.varint(offsetDelta);
    this.field(key ?? EMPTY, kS, key === null ? -1 : kL);
    this.field(value ?? EMPTY, vS, value === null ? -1 : vL);
    this.varint(headerCount);
  }

  /** Writes the open record's length prefix and closes the reserved gap. */
  endRecord(): void {
    const start = this.recStart;
    const bodyStart = start + MAX_VARINT;
    const len = this.pos - bodyStart;
    const z = len * 2;
    const lenSize = z < 0x80 ? 1 : z < 0x4000 ? 2 : z < 0x200000 ? 3 : z < 0x10000000 ? 4 : 5;
    if (lenSize < MAX_VARINT) this.buf.copyWithin(start + lenSize, bodyStart, this.pos);
    this.pos -= MAX_VARINT - lenSize;
    let v = z;
    let at = start;
    while (v >= 0x80) {
      this.buf[at++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buf[at] = v;
    this.recStart = -1;
    this.count++;
  }

  view(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

const EMPTY = Buffer.alloc(0);

/** The header fields of a batch (attributes as in layout.ts Attr | codec). */
export interface BatchFields {
  baseOffset: number;
  lastOffsetDelta: number;
  baseTimestamp: number;
  maxTimestamp: number;
  recordCount: number;
  attributes?: number;
  /** -1 where unknown (the lake does not keep it) */
  partitionLeaderEpoch?: number;
  producerId?: bigint;
  producerEpoch?: number;
  baseSequence?: number;
}

/** Header + `payload` (the records section, compressed or not) as one batch with its CRC. */
export function assembleBatch(f: BatchFields, payload: Uint8Array): Buffer {
  const b = Buffer.allocUnsafe(BATCH_HEADER_SIZE + payload.length);
  writeBatchHeader(b, f, payload.length);
  b.set(payload, BATCH_HEADER_SIZE);
  writeCrc(b);
  return b;
}

/** Writes the header of a batch whose `payloadLength` record bytes follow at b[61..]; the CRC is left to writeCrc. */
export function writeBatchHeader(b: Buffer, f: BatchFields, payloadLength: number): void {
  b.writeBigInt64BE(BigInt(f.baseOffset), At.BASE_OFFSET);
  b.writeInt32BE(BATCH_HEADER_SIZE - LOG_OVERHEAD + payloadLength, At.LENGTH);
  b.writeInt32BE(f.partitionLeaderEpoch ?? -1, At.PARTITION_LEADER_EPOCH);
  b.writeInt8(2, At.MAGIC);
  b.writeUInt32BE(0, At.CRC);
  b.writeInt16BE(f.attributes ?? 0, At.ATTRIBUTES);
  b.writeInt32BE(f.lastOffsetDelta, At.LAST_OFFSET_DELTA);
  b.writeBigInt64BE(BigInt(f.baseTimestamp), At.BASE_TIMESTAMP);
  b.writeBigInt64BE(BigInt(f.maxTimestamp), At.MAX_TIMESTAMP);
  b.writeBigInt64BE(f.producerId ?? -1n, At.PRODUCER_ID);
  b.writeInt16BE(f.producerEpoch ?? -1, At.PRODUCER_EPOCH);
  b.writeInt32BE(f.baseSequence ?? -1, At.BASE_SEQUENCE);
  b.writeInt32BE(f.recordCount, At.RECORD_COUNT);
}

export interface EncodeRecord {
  key?: Uint8Array | null;
  value?: Uint8Array | null;
  headers?: { key: string; value: Uint8Array | null }[];
  /** ms; defaults to the batch's base timestamp */
  timestamp?: number;
}

/** The uncompressed records section of `records` with the given offset deltas. */
export function encodeRecords(records: readonly EncodeRecord[], baseTimestamp: number, offsetDeltas: readonly number[]): Buffer {
  const w = new RecordsWriter(1024);
  records.forEach((r, i) => {
    const k = r.key ?? null;
    const v = r.value ?? null;
    const hs = r.headers ?? [];
    w.beginRecord((r.timestamp ?? baseTimestamp) - baseTimestamp, offsetDeltas[i]!, k, 0, k?.length ?? -1, v, 0, v?.length ?? -1, hs.length);
    for (const h of hs) {
      const hk = Buffer.from(h.key, 'utf8');
      w.field(hk, 0, hk.length);
      w.field(h.value ?? EMPTY, 0, h.value == null ? -1 : h.value.length);
    }
    w.endRecord();
  });
  return Buffer.from(w.view());
}

export interface EncodeOptions {
  baseOffset: number;
  /** default: 0, 1, 2, ... (gaps allowed, strictly increasing) */
  offsetDeltas?: readonly number[];
  logAppendTime?: boolean;
  /** default: the first record's timestamp */
  baseTimestamp?: number;
}

/**
 * An uncompressed, non-transactional batch as the lake rebuilds it: no
 * producer (id -1, epoch -1, sequence -1), partition leader epoch -1.
 */
export function encodeBatch(records: readonly EncodeRecord[], o: EncodeOptions): Buffer {
  const baseTs = o.baseTimestamp ?? records[0]?.timestamp ?? 0;
  const deltas = o.offsetDeltas ?? records.map((_, i) => i);
  let maxTs = baseTs;
  for (const r of records) maxTs = Math.max(maxTs, r.timestamp ?? baseTs);
  return assembleBatch(
    {
      baseOffset: o.baseOffset,
      lastOffsetDelta: deltas.length ? deltas[deltas.length - 1]! : 0,
      baseTimestamp: baseTs,
      maxTimestamp: maxTs,
      recordCount: records.length,
      attributes: o.logAppendTime ? Attr.LOG_APPEND_TIME : 0,
    },
    encodeRecords(records, baseTs, deltas),
  );
}
