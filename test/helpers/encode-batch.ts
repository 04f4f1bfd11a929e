// Kafka RecordBatch v2 encoder for tests: byte-exact batches like real producers
// write them (codecs, control and transactional batches, offset gaps). The
// records section and the header are the product encoder's
// (common/record-batch/encode.ts); this adds the codecs and producer fields.
import { compress } from '../../common/record-batch/compress.js';
import { assembleBatch, encodeRecords, type EncodeRecord } from '../../common/record-batch/encode.js';
import { Attr } from '../../common/record-batch/layout.js';

export type { EncodeRecord };

export interface EncodeBatchOptions {
  baseOffset?: number;
  codec?: number;
  xerial?: boolean; // snappy only: xerial framing
  logAppendTime?: boolean;
  transactional?: boolean;
  control?: boolean;
  producerId?: bigint;
  producerEpoch?: number;
  baseSequence?: number;
  partitionLeaderEpoch?: number;
  baseTimestamp?: number;
  offsetDeltas?: number[]; // for compacted-style gaps
}

export function encodeBatch(records: EncodeRecord[], o: EncodeBatchOptions = {}): Buffer {
  const codec = o.codec ?? 0;
  const baseTs = o.baseTimestamp ?? records[0]?.timestamp ?? Date.now();
  const deltas = o.offsetDeltas ?? records.map((_, i) => i);
  const raw = encodeRecords(records, baseTs, deltas);
  const payload = codec === 0 ? raw : compress(codec, raw, { xerial: o.xerial });
  let maxTs = baseTs;
  for (const r of records) maxTs = Math.max(maxTs, r.timestamp ?? baseTs);
  const attributes =
    codec | (o.logAppendTime ? Attr.LOG_APPEND_TIME : 0) | (o.transactional ? Attr.TRANSACTIONAL : 0) | (o.control ? Attr.CONTROL : 0);
  return assembleBatch(
    {
      baseOffset: o.baseOffset ?? 0,
      lastOffsetDelta: deltas.length ? deltas[deltas.length - 1]! : 0,
      baseTimestamp: baseTs,
      maxTimestamp: maxTs,
      recordCount: records.length,
      attributes,
      partitionLeaderEpoch: o.partitionLeaderEpoch ?? 0,
      producerId: o.producerId ?? -1n,
      producerEpoch: o.producerEpoch ?? -1,
      baseSequence: o.baseSequence ?? -1,
    },
    payload,
  );
}

/** Rewrite baseOffset the way the broker does before storing (not covered by the CRC). */
export function setBaseOffset(batch: Buffer, baseOffset: number): Buffer {
  batch.writeBigInt64BE(BigInt(baseOffset), 0);
  return batch;
}
