// Kafka RecordBatch (magic v2) header facts. The broker never inflates
// records: it reads the 61-byte header, checks the CRC and rewrites the two
// fields the CRC does not cover (baseOffset, partitionLeaderEpoch).
import { crc32c } from '@node-rs/crc32';
import { ErrorCode, KafkaError } from '../errors.js';

export const HEADER_SIZE = 61;
const LENGTH_OFFSET = 8;
const EPOCH_OFFSET = 12;
const MAGIC_OFFSET = 16;
const CRC_OFFSET = 17;
const ATTRIBUTES_OFFSET = 21;
const LAST_DELTA_OFFSET = 23;
const BASE_TS_OFFSET = 27;
const MAX_TS_OFFSET = 35;
const PRODUCER_ID_OFFSET = 43;
const PRODUCER_EPOCH_OFFSET = 51;
const BASE_SEQ_OFFSET = 53;
const COUNT_OFFSET = 57;

export const Compression = { NONE: 0, GZIP: 1, SNAPPY: 2, LZ4: 3, ZSTD: 4 } as const;

export interface BatchHeader {
  baseOffset: number;
  /** Whole batch size in bytes, including the 12-byte offset+length prefix. */
  size: number;
  partitionLeaderEpoch: number;
  attributes: number;
  lastOffsetDelta: number;
  baseTimestamp: number;
  maxTimestamp: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  recordCount: number;
}

function int64(b: Buffer, at: number): number {
  return b.readInt32BE(at) * 4294967296 + b.readUInt32BE(at + 4);
}

export function readHeader(b: Buffer): BatchHeader {
  return {
    baseOffset: int64(b, 0),
    size: b.readInt32BE(LENGTH_OFFSET) + 12,
    partitionLeaderEpoch: b.readInt32BE(EPOCH_OFFSET),
    attributes: b.readInt16BE(ATTRIBUTES_OFFSET),
    lastOffsetDelta: b.readInt32BE(LAST_DELTA_OFFSET),
    baseTimestamp: int64(b, BASE_TS_OFFSET),
    maxTimestamp: int64(b, MAX_TS_OFFSET),
    producerId: int64(b, PRODUCER_ID_OFFSET),
    producerEpoch: b.readInt16BE(PRODUCER_EPOCH_OFFSET),
    baseSequence: b.readInt32BE(BASE_SEQ_OFFSET),
    recordCount: b.readInt32BE(COUNT_OFFSET),
  };
}

export const isControl = (h: BatchHeader): boolean => (h.attributes & 0x20) !== 0;
export const isTransactional = (h: BatchHeader): boolean => (h.attributes & 0x10) !== 0;
export const compressionOf = (h: BatchHeader): number => h.attributes & 0x07;
export const lastOffsetOf = (h: BatchHeader): number => h.baseOffset + h.lastOffsetDelta;

/**
 * Splits a produce request's records field into batches and validates each:
 * magic 2, length framing, CRC32C. Throws KafkaError(CORRUPT_MESSAGE) or
 * KafkaError(UNSUPPORTED_FOR_MESSAGE_FORMAT) for anything else.
 */
export function splitAndValidate(records: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at < records.length) {
    if (records.length - at < HEADER_SIZE) throw new KafkaError(ErrorCode.CORRUPT_MESSAGE, 'truncated record batch');
    const size = records.readInt32BE(at + LENGTH_OFFSET) + 12;
    if (size < HEADER_SIZE || at + size > records.length) throw new KafkaError(ErrorCode.CORRUPT_MESSAGE, 'bad batch length');
    const magic = records.readInt8(at + MAGIC_OFFSET);
    if (magic !== 2) throw new KafkaError(ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT, `record batch magic ${magic}`);
    const batch = records.subarray(at, at + size);
    const expected = batch.readUInt32BE(CRC_OFFSET);
    if (crc32c(batch.subarray(ATTRIBUTES_OFFSET)) !== expected) throw new KafkaError(ErrorCode.CORRUPT_MESSAGE, 'CRC mismatch');
    const count = batch.readInt32BE(COUNT_OFFSET);
    const lastDelta = batch.readInt32BE(LAST_DELTA_OFFSET);
    if (count <= 0 || lastDelta < 0 || lastDelta < count - 1) throw new KafkaError(ErrorCode.INVALID_RECORD, 'bad record count');
    out.push(batch);
    at += size;
  }
  if (out.length === 0) throw new KafkaError(ErrorCode.CORRUPT_MESSAGE, 'empty records');
  return out;
}

/** Writes the broker-owned header fields in place (not covered by the CRC). */
export function stampBatch(batch: Buffer, baseOffset: number, leaderEpoch: number): void {
  batch.writeBigInt64BE(BigInt(baseOffset), 0);
  batch.writeInt32BE(leaderEpoch, EPOCH_OFFSET);
}

/** LogAppendTime: sets the timestamp-type bit and maxTimestamp, then re-signs the batch. */
export function stampLogAppendTime(batch: Buffer, now: number): void {
  batch.writeInt16BE(batch.readInt16BE(ATTRIBUTES_OFFSET) | 0x08, ATTRIBUTES_OFFSET);
  batch.writeBigInt64BE(BigInt(now), MAX_TS_OFFSET);
  batch.writeUInt32BE(crc32c(batch.subarray(ATTRIBUTES_OFFSET)), CRC_OFFSET);
}
