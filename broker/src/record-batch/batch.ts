// Record batches on the produce path. The broker stores the batch the
// validation step passed (log/log-validator.ts: the producer's bytes, or
// recompressed for the topic's compression.type) and rewrites only the fields
// that are the broker's: baseOffset and partitionLeaderEpoch (outside the
// CRC), and with LogAppendTime the timestamp type and maxTimestamp (re-signed).
import { At, Attr, BATCH_HEADER_SIZE } from '../../../common/record-batch/layout.js';
import { readBatchHeader, writeCrc, type BatchHeader } from '../../../common/record-batch/header.js';

export type { BatchHeader } from '../../../common/record-batch/header.js';

export const HEADER_SIZE = BATCH_HEADER_SIZE;

export const readHeader = readBatchHeader;
export const compressionOf = (h: BatchHeader): number => h.codec;
export const lastOffsetOf = (h: BatchHeader): number => h.baseOffset + h.lastOffsetDelta;

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
