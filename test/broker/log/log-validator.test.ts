// validateRecords: the produce path's synchronous validation step (Kafka's
// LogValidator), its refusals with Kafka error codes, and the batch facts it
// hands to the append.
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../common/errors.js';
import { validateRecords, type Refusal, type TopicPolicy } from '../../../broker/src/log/log-validator.js';
import { readBatchHeader } from '../../../common/record-batch/header.js';
import { Codec } from '../../../common/record-batch/layout.js';
import { compress } from '../../../common/record-batch/compress.js';
import { decodeBatch } from '../../../common/record-batch/decode.js';
import { buildBatch, recordsSection, resign, withHeader, withRecordsSection } from '../../helpers/batches.js';

const batch = () => buildBatch([{ key: Buffer.from('k'), value: Buffer.from('v1') }, { key: null, value: Buffer.from('v2'), headers: [['h', null]] }]);

/** A topic with Kafka's defaults, LogAppendTime (no timestamp bounds), unless `o` says otherwise. */
const policy = (o: Partial<TopicPolicy> = {}): TopicPolicy => ({
  partitionName: 't-0', compacted: false, createTimeBounds: null, compressionType: 'producer', maxMessageBytes: 1048588, schemaRule: null, ...o,
});

function codeOf(records: Buffer | null, o: Partial<TopicPolicy> = {}): number {
  const v = validateRecords(records, policy(o));
  return v.ok ? ErrorCode.NONE : v.code;
}

describe('validateRecords', () => {
  it('returns the one batch, as a view of the request bytes, with its header', () => {
    const b = batch();
    const v = validateRecords(b, policy());
    if (!v.ok) throw new Error(v.message);
    expect(v.batch.bytes.buffer).toBe(b.buffer); // no copy
    expect(v.batch.bytes.equals(b)).toBe(true);
    expect(v.batch.header).toEqual(readBatchHeader(b));
    expect(v.batch.sourceCodec).toBe(Codec.NONE);
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
    expect(validateRecords(null, policy())).toMatchObject({ code: ErrorCode.CORRUPT_MESSAGE, message: 'no records' });
    expect(codeOf(Buffer.alloc(0))).toBe(ErrorCode.CORRUPT_MESSAGE);
  });

  it('refuses a control batch from a client (only the broker writes transaction markers)', () => {
    const control = withHeader(batch(), { attributes: 0x20 });
    expect(validateRecords(control, policy())).toMatchObject({ ok: false, code: ErrorCode.INVALID_RECORD, message: 'clients may not write control batches', recordErrors: [] });
  });

  it('compression.type: the batch is stored in the topic\'s codec, its header read from the new bytes; producer keeps the codec sent', () => {
    const b = batch();
    const z = validateRecords(b, policy({ compressionType: 'zstd' }));
    if (!z.ok) throw new Error(z.message);
    expect([z.batch.sourceCodec, z.batch.header.codec]).toEqual([Codec.NONE, Codec.ZSTD]);
    expect(z.batch.header).toEqual(readBatchHeader(z.batch.bytes));
    expect(codeOf(z.batch.bytes)).toBe(ErrorCode.NONE);
    const values: string[] = [];
    decodeBatch(z.batch.bytes, { record: (_o, _t, _tt, buf, _ks, _kl, vs, vl) => { values.push(buf.subarray(vs, vs + vl).toString()); }, header() {} });
    expect(values).toEqual(['v1', 'v2']);
    const gz = withRecordsSection(b, compress(Codec.GZIP, recordsSection(b)), Codec.GZIP);
    const kept = validateRecords(gz, policy({ compressionType: 'producer' }));
    const none = validateRecords(gz, policy({ compressionType: 'uncompressed' }));
    expect([kept.ok && kept.batch.header.codec, none.ok && none.batch.header.codec]).toEqual([Codec.GZIP, Codec.NONE]);
    expect(kept.ok && kept.batch.bytes).toBe(gz);
  });

  it('max.message.bytes: measured on the batch as stored (after recompression), with Kafka\'s code', () => {
    const b = buildBatch([{ key: null, value: Buffer.alloc(4000, 'a') }]);
    expect(validateRecords(b, policy({ maxMessageBytes: b.length - 1 }))).toMatchObject({ code: ErrorCode.MESSAGE_TOO_LARGE, message: `batch of ${b.length} bytes exceeds max.message.bytes=${b.length - 1}` });
    expect(codeOf(b, { maxMessageBytes: b.length })).toBe(ErrorCode.NONE);
    expect(codeOf(b, { maxMessageBytes: 1000, compressionType: 'gzip' })).toBe(ErrorCode.NONE);
  });
});

// Kafka's LogValidator per-record rules: every offending record is named
// (KIP-467 record_errors), the batch fails with INVALID_TIMESTAMP if any
// timestamp is out of range, else INVALID_RECORD.
describe('validateRecords record rules', () => {
  const NOW = 1_800_000_000_000;
  const bounds = { now: NOW, beforeMaxMs: 9223372036854775807n, afterMaxMs: 3600000n };
  /** The rules as the tests name them: `timestamps` (CreateTime bounds), `requireKeys` (a compacted topic 't-0'). */
  const refusal = (records: Buffer, rules: { timestamps?: typeof bounds; requireKeys?: true }): Refusal | null => {
    const v = validateRecords(records, policy({ createTimeBounds: rules.timestamps ?? null, compacted: rules.requireKeys === true }));
    return v.ok ? null : { code: v.code, message: v.message, recordErrors: v.recordErrors };
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
    const r = refusal(b, { requireKeys: true, timestamps: bounds })!;
    expect(r.code).toBe(ErrorCode.INVALID_RECORD);
    expect(r.recordErrors).toEqual([0, 2, 4, 6, 8].map((batchIndex) => ({ batchIndex, message: why })));
    expect(r.message).toBe(`One or more records have been rejected due to 5 record errors in total, and only showing the first three errors at most: [${[0, 2, 4].map((i) => `RecordError(batchIndex=${i}, message='${why}')`).join(', ')}]`);
  });

  it('a keyless record and a bad timestamp in one batch: one error per record, the batch fails INVALID_TIMESTAMP (as Kafka)', () => {
    const b = buildBatch([{ key: null, value: null, timestamp: 9e15 }, { key: Buffer.from('k'), value: null, timestamp: 9e15 }, { key: Buffer.from('k'), value: null, timestamp: NOW }]);
    const r = refusal(b, { requireKeys: true, timestamps: bounds })!;
    expect(r.code).toBe(ErrorCode.INVALID_TIMESTAMP);
    expect(r.recordErrors.map((e) => [e.batchIndex, e.message.slice(0, 9)])).toEqual([[0, 'Compacted'], [1, 'Timestamp']]);
  });

  it('a framing fault still fails the whole batch without record errors', () => {
    const r = refusal(withHeader(buildBatch([{ key: null, value: null }]), { recordCount: 2, lastOffsetDelta: 1 }), { requireKeys: true });
    expect(r).toMatchObject({ code: ErrorCode.INVALID_RECORD, recordErrors: [] });
  });
});
