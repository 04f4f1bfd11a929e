// Whole-batch checks, after Kafka's produce-side validation (UnifiedLog's
// analyzeAndValidateRecords and LogValidator): magic 2, length framing,
// CRC-32C, offset range consistent with the record count, a known codec, and
// records that decompress and frame exactly.
import { checkCrc, readBatchHeader, type BatchHeader } from './header.js';
import { decompress, isKnownCodec } from './codecs.js';
import { corrupt, invalid, RecordBatchError } from './errors.js';
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
 * Full validation of one batch: header checks, then the records are
 * decompressed once and walked. Uncompressed records are walked in place.
 * Throws RecordBatchError; returns the header.
 */
export function validateBatch(batch: Buffer, origin: BatchOrigin, opts: { crc?: boolean; requireKeys?: string } = {}): BatchHeader {
  const h = checkBatchHeader(batch, origin, opts.crc !== false);
  // Only walked here, never kept.
  const data = decompress(h.codec, batch.subarray(BATCH_HEADER_SIZE));
  walkRecords(data, 0, data.length, h, ruleOf(origin), opts.requireKeys === undefined ? null : keyRequired(opts.requireKeys));
  return h;
}

/** A compacted topic refuses records without a key (Kafka's LogValidator); `message` is the refusal. */
function keyRequired(message: string): RecordSink {
  return {
    record(_o, _t, _tt, _b, _ks, keyLen) {
      if (keyLen < 0) throw invalid(message);
    },
    header() {},
  };
}
