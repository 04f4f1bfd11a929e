// Kafka RecordBatch (magic v2) header parsing and record decoding.
//
//   baseOffset int64 | batchLength int32 | partitionLeaderEpoch int32 | magic int8
//   | crc uint32 (CRC-32C of everything from attributes to the end)
//   | attributes int16 | lastOffsetDelta int32 | baseTimestamp int64 | maxTimestamp int64
//   | producerId int64 | producerEpoch int16 | baseSequence int32 | recordCount int32 | records
//
// attributes: bits 0-2 codec, bit 3 timestampType (1 = LogAppendTime),
// bit 4 isTransactional, bit 5 isControlBatch, bit 6 hasDeleteHorizonMs.
import { crc32c } from '@node-rs/crc32';
import { decompress } from './codecs.js';

export const BATCH_HEADER_BYTES = 61;

export interface BatchHeader {
  baseOffset: number;
  batchLength: number;
  partitionLeaderEpoch: number;
  magic: number;
  crc: number;
  attributes: number;
  codec: number;
  timestampType: 0 | 1;
  isTransactional: boolean;
  isControl: boolean;
  lastOffsetDelta: number;
  baseTimestamp: number;
  maxTimestamp: number;
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  recordCount: number;
}

export class CorruptBatchError extends Error {}

function readInt64(b: Buffer, pos: number): number {
  return Number(b.readBigInt64BE(pos));
}

function asBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

export function parseBatchHeader(bytes: Uint8Array): BatchHeader {
  const b = asBuffer(bytes);
  if (b.length < BATCH_HEADER_BYTES) throw new CorruptBatchError(`batch too short (${b.length} bytes)`);
  const magic = b.readInt8(16);
  if (magic !== 2) throw new CorruptBatchError(`unsupported magic ${magic}`);
  const batchLength = b.readInt32BE(8);
  if (batchLength + 12 > b.length) throw new CorruptBatchError(`batchLength ${batchLength} exceeds ${b.length - 12} stored bytes`);
  const attributes = b.readInt16BE(21);
  return {
    baseOffset: readInt64(b, 0),
    batchLength,
    partitionLeaderEpoch: b.readInt32BE(12),
    magic,
    crc: b.readUInt32BE(17),
    attributes,
    codec: attributes & 0x07,
    timestampType: (attributes & 0x08) !== 0 ? 1 : 0,
    isTransactional: (attributes & 0x10) !== 0,
    isControl: (attributes & 0x20) !== 0,
    lastOffsetDelta: b.readInt32BE(23),
    baseTimestamp: readInt64(b, 27),
    maxTimestamp: readInt64(b, 35),
    producerId: b.readBigInt64BE(43),
    producerEpoch: b.readInt16BE(51),
    baseSequence: b.readInt32BE(53),
    recordCount: b.readInt32BE(57),
  };
}

export function verifyCrc(bytes: Uint8Array, h: BatchHeader): void {
  const b = asBuffer(bytes);
  const actual = crc32c(b.subarray(21, 12 + h.batchLength)) >>> 0;
  if (actual !== h.crc) {
    throw new CorruptBatchError(`CRC-32C mismatch at offset ${h.baseOffset}: stored ${h.crc}, computed ${actual}`);
  }
}

/** Receives decoded records without per-record allocations. Slices are (start, length) in `buf`; length -1 = null. */
export interface RecordSink {
  record(
    offset: number,
    timestampMs: number,
    timestampType: 0 | 1,
    buf: Buffer,
    keyStart: number,
    keyLen: number,
    valueStart: number,
    valueLen: number,
    headerCount: number,
  ): void;
  header(buf: Buffer, keyStart: number, keyLen: number, valueStart: number, valueLen: number): void;
}

class Reader {
  pos: number;
  constructor(readonly b: Buffer, pos: number, readonly end: number) {
    this.pos = pos;
  }
  varint(): number {
    // zigzag varint up to 64 bits, returned as a Number (exact up to 2^53)
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new CorruptBatchError('truncated varint');
      const byte = this.b[this.pos++]!;
      result += (byte & 0x7f) * mul;
      if ((byte & 0x80) === 0) {
        // zigzag decode without 32-bit truncation
        return result % 2 === 0 ? result / 2 : -(result + 1) / 2;
      }
      mul *= 128;
    }
    throw new CorruptBatchError('varint too long');
  }
  int8(): number {
    if (this.pos >= this.end) throw new CorruptBatchError('truncated record');
    return this.b.readInt8(this.pos++);
  }
  skip(n: number): number {
    const start = this.pos;
    if (n > 0) {
      if (this.pos + n > this.end) throw new CorruptBatchError('truncated record field');
      this.pos += n;
    }
    return start;
  }
}

/**
 * Decode all records of a batch into `sink`. Checks the CRC unless told not to.
 * Returns the number of records decoded. Records with offset <= `skipUpTo` are skipped
 * (used when a batch straddles an already archived offset).
 */
export function decodeBatch(bytes: Uint8Array, sink: RecordSink, opts: { verifyCrc?: boolean; skipUpTo?: number } = {}): number {
  const b = asBuffer(bytes);
  const h = parseBatchHeader(b);
  if (opts.verifyCrc !== false) verifyCrc(b, h);
  if (h.isControl) return 0;
  const end = 12 + h.batchLength;
  const payload = b.subarray(BATCH_HEADER_BYTES, end);
  const data = h.codec === 0 ? payload : decompress(h.codec, payload);
  const r = new Reader(data, 0, data.length);
  const skipUpTo = opts.skipUpTo ?? -1;
  let n = 0;
  for (let i = 0; i < h.recordCount; i++) {
    const len = r.varint();
    const recEnd = r.pos + len;
    if (len < 0 || recEnd > data.length) throw new CorruptBatchError('record length out of bounds');
    r.int8(); // record attributes (unused)
    const tsDelta = r.varint();
    const offDelta = r.varint();
    const keyLen = r.varint();
    const keyStart = r.skip(keyLen);
    const valueLen = r.varint();
    const valueStart = r.skip(valueLen);
    const headerCount = r.varint();
    if (headerCount < 0) throw new CorruptBatchError('negative header count');
    const offset = h.baseOffset + offDelta;
    const keep = offset > skipUpTo;
    const ts = h.timestampType === 1 ? h.maxTimestamp : h.baseTimestamp + tsDelta;
    if (keep) sink.record(offset, ts, h.timestampType, data, keyStart, keyLen, valueStart, valueLen, headerCount);
    for (let j = 0; j < headerCount; j++) {
      const hkLen = r.varint();
      if (hkLen < 0) throw new CorruptBatchError('null header key');
      const hkStart = r.skip(hkLen);
      const hvLen = r.varint();
      const hvStart = r.skip(hvLen);
      if (keep) sink.header(data, hkStart, hkLen, hvStart, hvLen);
    }
    if (r.pos !== recEnd) throw new CorruptBatchError(`record ${i} length mismatch`);
    if (keep) n++;
  }
  return n;
}
