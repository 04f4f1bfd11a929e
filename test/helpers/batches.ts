// Builds Kafka RecordBatch v2 bytes (uncompressed) for wire-level tests.
import { crc32c } from '@node-rs/crc32';
import { Writer } from '../../broker/src/protocol/writer.js';

export interface TestRecord { key: Buffer | null; value: Buffer | null; timestamp?: number; headers?: Array<[string, Buffer | null]> }

export interface BatchOptions {
  producerId?: number;
  producerEpoch?: number;
  baseSequence?: number;
  baseTimestamp?: number;
  /** Sets the isTransactional attribute (bit 4): the batch belongs to its producer's open transaction. */
  transactional?: boolean;
}

export function buildBatch(records: TestRecord[], o: BatchOptions = {}): Buffer {
  const baseTs = o.baseTimestamp ?? records[0]?.timestamp ?? Date.now();
  const body = new Writer();
  let maxTs = baseTs;
  records.forEach((r, i) => {
    const ts = r.timestamp ?? baseTs;
    maxTs = Math.max(maxTs, ts);
    const rec = new Writer();
    rec.int8(0).varlong(ts - baseTs).varint(i);
    if (r.key === null) rec.varint(-1); else rec.varint(r.key.length).bytes(r.key);
    if (r.value === null) rec.varint(-1); else rec.varint(r.value.length).bytes(r.value);
    const hs = r.headers ?? [];
    rec.varint(hs.length);
    for (const [k, v] of hs) {
      const kb = Buffer.from(k);
      rec.varint(kb.length).bytes(kb);
      if (v === null) rec.varint(-1); else rec.varint(v.length).bytes(v);
    }
    const rb = rec.toBuffer();
    body.varint(rb.length).bytes(rb);
  });
  const recs = body.toBuffer();
  const w = new Writer(61 + recs.length);
  w.int64(0).int32(0).int32(-1).int8(2).uint32(0).int16(o.transactional ? 0x10 : 0).int32(records.length - 1)
    .int64(baseTs).int64(maxTs).int64(o.producerId ?? -1).int16(o.producerEpoch ?? -1).int32(o.baseSequence ?? -1)
    .int32(records.length).bytes(recs);
  const out = Buffer.from(w.toBuffer());
  out.writeInt32BE(out.length - 12, 8);
  out.writeUInt32BE(crc32c(out.subarray(21)), 17);
  return out;
}

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
