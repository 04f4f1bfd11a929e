// Which record timestamps the lake can hold. Kafka's timestamp is any int64 of
// milliseconds; the data files store it as a Parquet TIMESTAMP(MICROS) and the
// Delta partition column `date` as `yyyy-MM-dd`, and the add stats carry it as
// an ISO-8601 string. The range where all three are exact is the one Delta
// readers use for `timestamp` and `date` (Spark's, and Python's datetime):
// 0001-01-01T00:00:00.000Z .. 9999-12-31T23:59:59.999Z. A record outside it
// is never clamped or nulled: its batch stalls its partition (RN4007,
// records/stall.ts) until an operator removes it from the log.
import { decompress } from '../../../common/record-batch/codecs.js';
import type { BatchHeader } from '../../../common/record-batch/header.js';
import { BATCH_HEADER_SIZE } from '../../../common/record-batch/layout.js';
import { walkRecords, type RecordSink } from '../../../common/record-batch/records.js';

/** 0001-01-01T00:00:00.000Z in ms since the epoch. */
export const MIN_LAKE_TIMESTAMP_MS = -62_135_596_800_000;
/** 9999-12-31T23:59:59.999Z in ms since the epoch. */
export const MAX_LAKE_TIMESTAMP_MS = 253_402_300_799_999;

export function lakeTimestampOk(ms: number): boolean {
  return ms >= MIN_LAKE_TIMESTAMP_MS && ms <= MAX_LAKE_TIMESTAMP_MS;
}

/** Why the record at `offset` with timestamp `ms` cannot be archived. */
export function timestampReason(offset: number, ms: number): string {
  return `record at offset ${offset} has timestamp ${ms} ms, outside the range a Delta timestamp/date column holds (0001-01-01 to 9999-12-31 UTC)`;
}

class Found extends Error {}

/**
 * Null when every record of the (non-control) batch above `skipUpTo` has a
 * timestamp the lake holds, else the reason for the first that has not.
 * LogAppendTime batches: every record carries the header's maxTimestamp.
 * CreateTime batches: when `walk` is false and the header's base and max
 * timestamps are both in range the header is trusted (the Parquet worker
 * still refuses a record outside the range, and the topic is then re-read
 * with `walk` true); otherwise the records are decompressed and walked.
 */
export function unencodableReason(b: Buffer, h: BatchHeader, skipUpTo: number, walk: boolean): string | null {
  if (h.timestampType === 1) {
    return lakeTimestampOk(h.maxTimestamp) ? null : timestampReason(h.baseOffset, h.maxTimestamp);
  }
  if (!walk && lakeTimestampOk(h.baseTimestamp) && lakeTimestampOk(h.maxTimestamp)) return null;
  let reason: string | null = null;
  const sink: RecordSink = {
    record(offset, ts) {
      if (!lakeTimestampOk(ts)) {
        reason = timestampReason(offset, ts);
        throw new Found();
      }
    },
    header() {},
  };
  try {
    const data = decompress(h.codec, b.subarray(BATCH_HEADER_SIZE));
    walkRecords(data, 0, data.length, h, 'increasing', sink, skipUpTo);
  } catch (e) {
    if (!(e instanceof Found)) throw e; // RecordBatchError: corrupt, the caller's RN4003 path
  }
  return reason;
}
