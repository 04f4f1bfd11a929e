// splitAndValidate: the produce path's synchronous validation, mapped to Kafka error codes.
import { describe, expect, it } from 'vitest';
import { ErrorCode, KafkaError } from '../../../common/errors.js';
import { readHeader, splitAndValidate, stampBatch, stampLogAppendTime } from '../../../broker/src/record-batch/batch.js';
import { Codec } from '../../../common/record-batch/layout.js';
import { compress } from '../../../common/record-batch/compress.js';
import { buildBatch, recordsSection, withHeader, withRecordsSection } from '../../helpers/batches.js';

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
