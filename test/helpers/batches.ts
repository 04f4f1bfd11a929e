// Builds Kafka RecordBatch v2 bytes (uncompressed) for wire-level tests.
import { crc32c } from '@node-rs/crc32';
import { encodeBatch } from './encode-batch.js';

export interface TestRecord { key: Buffer | null; value: Buffer | null; timestamp?: number; headers?: Array<[string, Buffer | null]> }

export interface BatchOptions {
  producerId?: number;
  producerEpoch?: number;
  baseSequence?: number;
  baseTimestamp?: number;
  /** Sets the isTransactional attribute (bit 4): the batch belongs to its producer's open transaction. */
  transactional?: boolean;
}

/**
 * An uncompressed batch as a producer sends it (base offset 0, partition leader
 * epoch -1): the one test encoder (encode-batch.ts) with this file's record shape.
 */
export function buildBatch(records: TestRecord[], o: BatchOptions = {}): Buffer {
  const out = encodeBatch(records.map((r) => ({
    key: r.key,
    value: r.value,
    ...(r.timestamp !== undefined ? { timestamp: r.timestamp } : {}),
    headers: (r.headers ?? []).map(([key, value]) => ({ key, value })),
  })), {
    partitionLeaderEpoch: -1,
    transactional: o.transactional ?? false,
    producerId: BigInt(o.producerId ?? -1),
    producerEpoch: o.producerEpoch ?? -1,
    baseSequence: o.baseSequence ?? -1,
    ...(o.baseTimestamp !== undefined ? { baseTimestamp: o.baseTimestamp } : {}),
  });
  // an empty batch says lastOffsetDelta -1, as the count minus one
  if (records.length === 0) resign(withLastOffsetDelta(out, -1));
  return out;
}

const withLastOffsetDelta = (batch: Buffer, delta: number): Buffer => {
  batch.writeInt32BE(delta, 23);
  return batch;
};

// ---------------------------------------------------------------- malformed batches
// Helpers that take a well-formed uncompressed batch (buildBatch) and bend one
// thing, then re-sign it (batchLength and CRC), so a broker's CRC check passes
// and only the deeper validation can catch the fault.

const RECORDS_AT = 61;

/** Rewrites batchLength and the CRC-32C after the batch bytes were changed. */
export function resign(batch: Buffer): Buffer {
  batch.writeInt32BE(batch.length - 12, 8);
  batch.writeUInt32BE(crc32c(batch.subarray(21)), 17);
  return batch;
}

/** The batch with its records section replaced by `section` and codec bits set to `codec`. */
export function withRecordsSection(batch: Buffer, section: Buffer, codec = batch.readInt16BE(21) & 0x07): Buffer {
  const out = Buffer.concat([batch.subarray(0, RECORDS_AT), section]);
  out.writeInt16BE((out.readInt16BE(21) & ~0x07) | codec, 21);
  return resign(out);
}

/** The records section of an uncompressed batch. */
export const recordsSection = (batch: Buffer): Buffer => Buffer.from(batch.subarray(RECORDS_AT));

/** Overwrites header int32 fields: lastOffsetDelta (byte 23), recordCount (byte 57). */
export function withHeader(batch: Buffer, o: { lastOffsetDelta?: number; recordCount?: number; attributes?: number }): Buffer {
  const out = Buffer.from(batch);
  if (o.lastOffsetDelta !== undefined) out.writeInt32BE(o.lastOffsetDelta, 23);
  if (o.recordCount !== undefined) out.writeInt32BE(o.recordCount, 57);
  if (o.attributes !== undefined) out.writeInt16BE(o.attributes, 21);
  return resign(out);
}
