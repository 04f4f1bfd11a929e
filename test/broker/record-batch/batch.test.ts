// splitAndValidate: the produce path's synchronous validation, mapped to Kafka error codes.
import { describe, expect, it } from 'vitest';
import { ErrorCode, KafkaError } from '../../../common/errors.js';
import { RecordValidationError, readHeader, splitAndValidate, stampBatch, stampLogAppendTime } from '../../../broker/src/record-batch/batch.js';
import { Codec } from '../../../common/record-batch/layout.js';
import { compress } from '../../../common/record-batch/compress.js';
import { buildBatch, recordsSection, resign, withHeader, withRecordsSection } from '../../helpers/batches.js';

const batch = () => buildBatch([{ key: Buffer.from('k'), value: Buffer.from('v1') }, { key: null, value: Buffer.from('v2'), headers: [['h', null]] }]);

function codeOf(records: Buffer): number {
  try {
    splitAndValidate(records);
    return ErrorCode.NONE;
  } catch (e) {
    if (e instanceof KafkaError) return e.code;
    throw e;
  }
}

describe('splitAndValidate', () => {
  it('returns the one batch, as a view of the request bytes', () => {
    const b = batch();
    const out = splitAndValidate(b);
    expect(out).toHaveLength(1);
    expect(out[0]!.buffer).toBe(b.buffer); // no copy
    expect(out[0]!.equals(b)).toBe(true);
  });

  it('accepts every codec', () => {
    for (const codec of [Codec.GZIP, Codec.SNAPPY, Codec.LZ4, Codec.ZSTD]) {
      const b = withRecordsSection(batch(), compress(codec, recordsSection(batch()), { xerial: true }), codec);
      expect({ codec, code: codeOf(b) }).toEqual({ codec, code: ErrorCode.NONE });
    }
  });

  it('maps each fault to the Kafka error code', () => {
    const b = batch();
    expect(codeOf(withRecordsSection(b, Buffer.alloc(50, 1), Codec.ZSTD))).toBe(ErrorCode.CORRUPT_MESSAGE);
    expect(codeOf(withHeader(b, { lastOffsetDelta: 2 ** 31 - 1 }))).toBe(ErrorCode.INVALID_RECORD);
    expect(codeOf(withHeader(b, { attributes: 7 }))).toBe(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE);
    expect(codeOf(Buffer.concat([b, b]))).toBe(ErrorCode.INVALID_RECORD); // one batch per partition
    expect(codeOf(b.subarray(0, b.length - 1))).toBe(ErrorCode.INVALID_RECORD); // partial batch
    expect(codeOf(Buffer.concat([b, Buffer.alloc(5)]))).toBe(ErrorCode.INVALID_RECORD); // trailing bytes after the batch
    const short = Buffer.from(b);
    short.writeInt32BE(20, 8);
    expect(codeOf(short)).toBe(ErrorCode.CORRUPT_MESSAGE);
    const flipped = Buffer.from(b);
    flipped[70] ^= 1;
    expect(codeOf(flipped)).toBe(ErrorCode.CORRUPT_MESSAGE);
  });

  it('stamped batches stay valid: baseOffset and epoch are outside the CRC, LogAppendTime re-signs', () => {
    const b = batch();
    stampBatch(b, 1234, 7);
    stampLogAppendTime(b, 1_700_000_000_000);
    expect(codeOf(b)).toBe(ErrorCode.NONE);
    const h = readHeader(b);
    expect([h.baseOffset, h.partitionLeaderEpoch, h.timestampType, h.maxTimestamp]).toEqual([1234, 7, 1, 1_700_000_000_000]);
  });
});

// Kafka's LogValidator per-record rules: every offending record is named
// (KIP-467 record_errors), the batch fails with INVALID_TIMESTAMP if any
// timestamp is out of range, else INVALID_RECORD.
describe('splitAndValidate record rules', () => {
  const NOW = 1_800_000_000_000;
  const bounds = { now: NOW, beforeMaxMs: 9223372036854775807n, afterMaxMs: 3600000n };
  const refusal = (records: Buffer, rules: Parameters<typeof splitAndValidate>[1]) => {
    try {
      splitAndValidate(records, rules);
    } catch (e) {
      if (e instanceof RecordValidationError) return { code: e.code, message: e.message, recordErrors: e.recordErrors };
      throw e;
    }
    return null;
  };

  it('CreateTime bounds: records within [now - before, now + after] pass, -1 (no timestamp) is not checked', () => {
    const ok = buildBatch([{ key: null, value: null, timestamp: NOW - 10 ** 12 }, { key: null, value: null, timestamp: NOW + 3_600_000 }]);
    expect(refusal(ok, { timestamps: bounds })).toBeNull();
    expect(refusal(buildBatch([{ key: null, value: null, timestamp: -1 }]), { timestamps: { ...bounds, beforeMaxMs: 0n } })).toBeNull();
  });

  it('a record 9e15 ms (CreateTime) ahead -> INVALID_TIMESTAMP naming only that record, with Kafka\'s messages', () => {
    const b = buildBatch([0, 1, 2].map((i) => ({ key: null, value: Buffer.from(`v${i}`), timestamp: i === 1 ? 9e15 : NOW })));
    expect(refusal(b, { timestamps: bounds })).toEqual({
      code: ErrorCode.INVALID_TIMESTAMP,
      message: 'One or more records have been rejected due to invalid timestamp',
      recordErrors: [{ batchIndex: 1, message: `Timestamp 9000000000000000 of message with offset 1 is out of range. The timestamp should be within [${BigInt(NOW) - 9223372036854775807n}, ${NOW + 3_600_000}]` }],
    });
  });

  it('each record is checked, not the batch header: a maxTimestamp that hides a 9e15 record does not pass', () => {
    const b = buildBatch([{ key: null, value: null, timestamp: NOW }, { key: null, value: null, timestamp: 9e15 }]);
    b.writeBigInt64BE(BigInt(NOW), 35); // maxTimestamp
    expect(refusal(resign(b), { timestamps: bounds })).toMatchObject({ code: ErrorCode.INVALID_TIMESTAMP, recordErrors: [{ batchIndex: 1 }] });
  });

  it('before.max.ms bounds old records; a zstd batch is checked record by record too', () => {
    const recs = [{ key: null, value: null, timestamp: NOW - 5000 }, { key: null, value: null, timestamp: NOW }];
    const plain = buildBatch(recs);
    const z = withRecordsSection(plain, compress(Codec.ZSTD, recordsSection(plain)), Codec.ZSTD);
    for (const x of [plain, z]) {
      expect(refusal(x, { timestamps: { ...bounds, beforeMaxMs: 1000n } })).toMatchObject({ code: ErrorCode.INVALID_TIMESTAMP, recordErrors: [{ batchIndex: 0 }] });
    }
  });

  it('keyless records on a compacted topic -> INVALID_RECORD naming each of them; the message shows the first three', () => {
    const b = buildBatch(Array.from({ length: 10 }, (_, i) => ({ key: i % 2 === 0 ? null : Buffer.from(`k${i}`), value: Buffer.from('v') })));
    const why = 'Compacted topic cannot accept message without key in topic partition t-0';
    const r = refusal(b, { requireKeys: why, timestamps: bounds })!;
    expect(r.code).toBe(ErrorCode.INVALID_RECORD);
    expect(r.recordErrors).toEqual([0, 2, 4, 6, 8].map((batchIndex) => ({ batchIndex, message: why })));
    expect(r.message).toBe(`One or more records have been rejected due to 5 record errors in total, and only showing the first three errors at most: [${[0, 2, 4].map((i) => `RecordError(batchIndex=${i}, message='${why}')`).join(', ')}]`);
  });

  it('a keyless record and a bad timestamp in one batch: one error per record, the batch fails INVALID_TIMESTAMP (as Kafka)', () => {
    const b = buildBatch([{ key: null, value: null, timestamp: 9e15 }, { key: Buffer.from('k'), value: null, timestamp: 9e15 }, { key: Buffer.from('k'), value: null, timestamp: NOW }]);
    const r = refusal(b, { requireKeys: 'no key', timestamps: bounds })!;
    expect(r.code).toBe(ErrorCode.INVALID_TIMESTAMP);
    expect(r.recordErrors.map((e) => [e.batchIndex, e.message.slice(0, 9)])).toEqual([[0, 'no key'], [1, 'Timestamp']]);
  });

  it('a framing fault still fails the whole batch without record errors', () => {
    const r = refusal(withHeader(buildBatch([{ key: null, value: null }]), { recordCount: 2, lastOffsetDelta: 1 }), { requireKeys: 'no key' });
    expect(r).toMatchObject({ code: ErrorCode.INVALID_RECORD, recordErrors: [] });
  });
});
