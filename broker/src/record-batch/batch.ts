// Record batches on the produce path. The broker stores batches as the
// producer sent them: it validates them the way Kafka's LogValidator does
// (common/record-batch), then rewrites only the two fields the CRC does not
// cover (baseOffset, partitionLeaderEpoch).
import { At, Attr, BATCH_HEADER_SIZE, Codec, LOG_OVERHEAD } from '../../../common/record-batch/layout.js';
import { readBatchHeader, writeCrc, type BatchHeader } from '../../../common/record-batch/header.js';
import { RecordBatchError, type RecordError } from '../../../common/record-batch/errors.js';
import { validateBatch, type RecordRules } from '../../../common/record-batch/validate.js';
import { ErrorCode, KafkaError, type KafkaErrorCode } from '../../../common/errors.js';

export type { BatchHeader } from '../../../common/record-batch/header.js';
export type { RecordRules } from '../../../common/record-batch/validate.js';

/**
 * A refused batch (Kafka's RecordValidationException): recordErrors names the
 * records that broke a per-record rule; the Produce response (v8+) carries
 * them so the client fails only those records (KIP-467).
 */
export class RecordValidationError extends KafkaError {
  constructor(code: KafkaErrorCode, message: string, readonly recordErrors: readonly RecordError[]) {
    super(code, message);
  }
}
export const HEADER_SIZE = BATCH_HEADER_SIZE;
export const Compression = Codec;

export const readHeader = readBatchHeader;
export const isControl = (h: BatchHeader): boolean => h.isControl;
export const isTransactional = (h: BatchHeader): boolean => h.isTransactional;
export const compressionOf = (h: BatchHeader): number => h.codec;
export const lastOffsetOf = (h: BatchHeader): number => h.baseOffset + h.lastOffsetDelta;

/**
 * Splits a produce request's records field into its batches and validates
 * each completely (magic 2, CRC-32C, count = lastOffsetDelta + 1, offset
 * deltas 0..n-1, record framing, decompression). Since produce v3 Kafka
 * accepts exactly one batch per partition (ProduceRequest.validateRecords).
 * Synchronous on purpose: the produce handler appends right after it, with no
 * await, so offsets are assigned in request order.
 * Throws RecordValidationError: CORRUPT_MESSAGE (CRC, undecompressable data),
 * INVALID_RECORD (framing, counts, magic, a keyless record on a compacted
 * topic), INVALID_TIMESTAMP (`opts.timestamps`) or UNSUPPORTED_COMPRESSION_TYPE.
 */
export function splitAndValidate(records: Buffer, opts: RecordRules = {}): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at < records.length) {
    const left = records.length - at;
    // a partial batch is no batch to Kafka's batch iterator (then "exactly one batch" fails)
    if (left < LOG_OVERHEAD) throw new KafkaError(ErrorCode.INVALID_RECORD, `${left} trailing bytes are not a record batch`);
    const size = records.readInt32BE(at + At.LENGTH) + LOG_OVERHEAD;
    if (size < BATCH_HEADER_SIZE) throw new KafkaError(ErrorCode.CORRUPT_MESSAGE, `record batch size ${size} is below the ${BATCH_HEADER_SIZE}-byte v2 header`);
    if (size > left) throw new KafkaError(ErrorCode.INVALID_RECORD, `record batch declares ${size} bytes, ${left} are present`);
    out.push(records.subarray(at, at + size));
    at += size;
  }
  if (out.length !== 1) throw new KafkaError(ErrorCode.INVALID_RECORD, `${out.length} record batches; produce requests carry exactly one per partition`);
  try {
    validateBatch(out[0]!, 'client', opts);
  } catch (e) {
    if (e instanceof RecordBatchError) throw new RecordValidationError(ErrorCode[e.kind], e.message, e.recordErrors);
    throw e;
  }
  return out;
}

/** Writes the broker-owned header fields in place (not covered by the CRC). */
export function stampBatch(batch: Buffer, baseOffset: number, leaderEpoch: number): void {
  batch.writeBigInt64BE(BigInt(baseOffset), At.BASE_OFFSET);
  batch.writeInt32BE(leaderEpoch, At.PARTITION_LEADER_EPOCH);
}

/** LogAppendTime: sets the timestamp-type bit and maxTimestamp, then re-signs the batch. */
export function stampLogAppendTime(batch: Buffer, now: number): void {
  batch.writeInt16BE(batch.readInt16BE(At.ATTRIBUTES) | Attr.LOG_APPEND_TIME, At.ATTRIBUTES);
  batch.writeBigInt64BE(BigInt(now), At.MAX_TIMESTAMP);
  writeCrc(batch);
}
