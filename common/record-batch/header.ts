// Parsing the 61-byte RecordBatch v2 header and checking its CRC-32C.
import { crc32c } from '@node-rs/crc32';
import { corrupt } from './errors.js';
import { At, Attr, BATCH_HEADER_SIZE, LOG_OVERHEAD } from './layout.js';

export interface BatchHeader {
  baseOffset: number;
  /** batchLength field: bytes after the 12-byte offset+length prefix */
  batchLength: number;
  /** whole batch in bytes, prefix included (batchLength + 12) */
  size: number;
  partitionLeaderEpoch: number;
  magic: number;
  /** stored CRC-32C (unsigned) */
  crc: number;
  attributes: number;
  codec: number;
  timestampType: 0 | 1;
  isTransactional: boolean;
  isControl: boolean;
  lastOffsetDelta: number;
  baseTimestamp: number;
  maxTimestamp: number;
  /** -1 = none; exact as a Number (producer ids are allocated from 0 upward) */
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  recordCount: number;
}

/** int64 as a Number, exact below 2^53 in magnitude. */
export function readInt64(b: Buffer, at: number): number {
  return b.readInt32BE(at) * 4294967296 + b.readUInt32BE(at + 4);
}

/**
 * Reads the header fields of the batch starting at `b[0]`. Checks only that the
 * header is there; `validateBatch` checks the rest.
 */
export function readBatchHeader(b: Buffer): BatchHeader {
  if (b.length < BATCH_HEADER_SIZE) throw corrupt(`record batch of ${b.length} bytes is shorter than its ${BATCH_HEADER_SIZE}-byte header`);
  const attributes = b.readInt16BE(At.ATTRIBUTES);
  const batchLength = b.readInt32BE(At.LENGTH);
  return {
    baseOffset: readInt64(b, At.BASE_OFFSET),
    batchLength,
    size: batchLength + LOG_OVERHEAD,
    partitionLeaderEpoch: b.readInt32BE(At.PARTITION_LEADER_EPOCH),
    magic: b.readInt8(At.MAGIC),
    crc: b.readUInt32BE(At.CRC),
    attributes,
    codec: attributes & Attr.CODEC_MASK,
    timestampType: (attributes & Attr.LOG_APPEND_TIME) !== 0 ? 1 : 0,
    isTransactional: (attributes & Attr.TRANSACTIONAL) !== 0,
    isControl: (attributes & Attr.CONTROL) !== 0,
    lastOffsetDelta: b.readInt32BE(At.LAST_OFFSET_DELTA),
    baseTimestamp: readInt64(b, At.BASE_TIMESTAMP),
    maxTimestamp: readInt64(b, At.MAX_TIMESTAMP),
    producerId: readInt64(b, At.PRODUCER_ID),
    producerEpoch: b.readInt16BE(At.PRODUCER_EPOCH),
    baseSequence: b.readInt32BE(At.BASE_SEQUENCE),
    recordCount: b.readInt32BE(At.RECORD_COUNT),
  };
}

/** CRC-32C over attributes..end, the bytes the stored CRC covers. */
export function computeCrc(batch: Buffer): number {
  return crc32c(batch.subarray(At.ATTRIBUTES)) >>> 0;
}

/** Throws CORRUPT_MESSAGE when the stored CRC does not match `batch` (exactly one batch). */
export function checkCrc(batch: Buffer): void {
  const stored = batch.readUInt32BE(At.CRC);
  const actual = computeCrc(batch);
  if (actual !== stored) throw corrupt(`record batch CRC-32C mismatch: stored ${stored}, computed ${actual}`);
}

/** Rewrites the CRC after a change to attributes..end (LogAppendTime stamping, test encoders). */
export function writeCrc(batch: Buffer): void {
  batch.writeUInt32BE(computeCrc(batch), At.CRC);
}
