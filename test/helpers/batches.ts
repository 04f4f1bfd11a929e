// Builds Kafka RecordBatch v2 bytes (uncompressed) for wire-level tests.
import { crc32c } from '@node-rs/crc32';
import { Writer } from '../../broker/src/protocol/writer.js';

export interface TestRecord { key: Buffer | null; value: Buffer | null; timestamp?: number; headers?: Array<[string, Buffer | null]> }

export interface BatchOptions {
  producerId?: number;
  producerEpoch?: number;
  baseSequence?: number;
  baseTimestamp?: number;
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
  w.int64(0).int32(0).int32(-1).int8(2).uint32(0).int16(0).int32(records.length - 1)
    .int64(baseTs).int64(maxTs).int64(o.producerId ?? -1).int16(o.producerEpoch ?? -1).int32(o.baseSequence ?? -1)
    .int32(records.length).bytes(recs);
  const out = Buffer.from(w.toBuffer());
  out.writeInt32BE(out.length - 12, 8);
  out.writeUInt32BE(crc32c(out.subarray(21)), 17);
  return out;
}
