// Whole-batch checks, after Kafka's produce-side validation (UnifiedLog's
// analyzeAndValidateRecords and LogValidator): magic 2, length framing,
// CRC-32C, offset range consistent with the record count, a known codec, and
// records that decompress and frame exactly.
import { checkCrc, readBatchHeader, type BatchHeader } from './header.js';
import { decompress, isKnownCodec } from './codecs.js';
import { corrupt, invalid, RecordBatchError, recordErrorsMessage, type RecordError } from './errors.js';
import { BATCH_HEADER_SIZE } from './layout.js';
import { walkRecords, type DeltaRule, type RecordSink } from './records.js';

/**
 * 'client': a batch a producer sent (Kafka's AppendOrigin.CLIENT): the count
 * must equal lastOffsetDelta + 1 and deltas run 0..count-1.
 * 'stored': a batch read back from a log: fewer records than offsets is
 * allowed (compacted batches keep lastOffsetDelta), more is not.
 */
export type BatchOrigin = 'client' | 'stored';

const ruleOf = (origin: BatchOrigin): DeltaRule => (origin === 'client' ? 'contiguous' : 'increasing');

/**
 * Checks everything that does not need the records: magic, that `batch` is
 * exactly one batch, the CRC (unless `crc` is false), offset range and count,
 * and the codec id. Returns the header.
 */
export function checkBatchHeader(batch: Buffer, origin: BatchOrigin, crc = true): BatchHeader {
  const h = readBatchHeader(batch);
  if (h.magic !== 2) throw invalid(`record batch magic ${h.magic}, only magic 2 is supported`);
  if (h.size < BATCH_HEADER_SIZE || h.size !== batch.length) {
    throw corrupt(`record batch declares ${h.size} bytes, ${batch.length} are present`);
  }
  if (crc) checkCrc(batch);
  if (h.lastOffsetDelta < 0) throw invalid(`record batch has a negative lastOffsetDelta ${h.lastOffsetDelta}`);
  if (origin === 'client') {
    if (h.recordCount <= 0) throw invalid(`invalid record count ${h.recordCount}`);
    if (h.recordCount !== h.lastOffsetDelta + 1) {
      throw invalid(`inconsistent batch offset range [0, ${h.lastOffsetDelta}] and count of records ${h.recordCount}`);
    }
  } else if (h.recordCount < 0 || h.recordCount > h.lastOffsetDelta + 1) {
    throw invalid(`record count ${h.recordCount} does not fit the offset range [0, ${h.lastOffsetDelta}]`);
  }
  if (!isKnownCodec(h.codec)) throw new RecordBatchError('UNSUPPORTED_COMPRESSION_TYPE', `unknown compression codec id ${h.codec}`);
  return h;
}

/**
 * Per-record rules of a produce request (Kafka's LogValidator.validateRecord).
 * requireKeys: a compacted topic refuses records without a key; the value is
 * the per-record message. timestamps: a CreateTime topic refuses a record
 * whose timestamp (other than -1) lies outside [now - beforeMaxMs, now +
 * afterMaxMs] (message.timestamp.before.max.ms / after.max.ms).
 */
export interface RecordRules {
  requireKeys?: string;
  timestamps?: { now: number; beforeMaxMs: bigint; afterMaxMs: bigint };
  /** Sees every record of the same walk (the broker's schema-id check), so the records are decompressed once. */
  also?: RecordSink;
}

/**
 * Full validation of one batch: header checks, then the records are
 * decompressed once and walked. Uncompressed records are walked in place.
 * Throws RecordBatchError; returns the header. A framing fault fails the
 * batch at once; records breaking a RecordRules rule are all collected and
 * reported together in recordErrors (KIP-467), as Kafka does.
 */
export function validateBatch(batch: Buffer, origin: BatchOrigin, opts: { crc?: boolean } & RecordRules = {}): BatchHeader {
  const h = checkBatchHeader(batch, origin, opts.crc !== false);
  // Only walked here, never kept.
  const data = decompress(h.codec, batch.subarray(BATCH_HEADER_SIZE));
  const rules = opts.requireKeys !== undefined || opts.timestamps !== undefined ? recordRules(h, opts) : null;
  walkRecords(data, 0, data.length, h, ruleOf(origin), both(rules?.sink ?? null, opts.also ?? null));
  rules?.finish();
  return h;
}

/** One sink that calls `a`, then `b` (either may be absent). */
function both(a: RecordSink | null, b: RecordSink | null): RecordSink | null {
  if (!a || !b) return a ?? b;
  return {
    record(...args) {
      a.record(...args);
      b.record(...args);
    },
    header(...args) {
      a.header(...args);
      b.header(...args);
    },
  };
}

/**
 * The sink that checks each record, and the verdict afterwards (Kafka's
 * processRecordErrors): any timestamp error makes the batch INVALID_TIMESTAMP,
 * otherwise INVALID_RECORD naming at most the first three errors. Each record
 * gets at most one error, the key check first.
 */
function recordRules(h: BatchHeader, rules: RecordRules): { sink: RecordSink; finish(): void } {
  const errors: RecordError[] = [];
  let timestampErrors = 0;
  const keys = rules.requireKeys;
  const ts = rules.timestamps;
  const lowBig = ts ? BigInt(ts.now) - ts.beforeMaxMs : 0n;
  const highBig = ts ? BigInt(ts.now) + ts.afterMaxMs : 0n;
  const low = Number(lowBig);
  const high = Number(highBig);
  const sink: RecordSink = {
    record(offset, timestampMs, _tt, _b, _ks, keyLen) {
      const batchIndex = offset - h.baseOffset;
      if (keys !== undefined && keyLen < 0) {
        errors.push({ batchIndex, message: keys });
      } else if (ts && timestampMs !== -1 && (timestampMs < low || timestampMs > high)) {
        timestampErrors++;
        errors.push({ batchIndex, message: `Timestamp ${timestampMs} of message with offset ${offset} is out of range. The timestamp should be within [${lowBig}, ${highBig}]` });
      }
    },
    header() {},
  };
  return {
    sink,
    finish() {
      if (errors.length === 0) return;
      if (timestampErrors > 0) throw new RecordBatchError('INVALID_TIMESTAMP', 'One or more records have been rejected due to invalid timestamp', errors);
      throw new RecordBatchError('INVALID_RECORD', recordErrorsMessage(errors), errors);
    },
  };
}
