// Whole-batch validation (produce rules 'client', log rules 'stored').
import { describe, expect, it } from 'vitest';
import { Codec } from '../../../common/record-batch/layout.js';
import { compress } from '../../../common/record-batch/compress.js';
import { RecordBatchError, type RecordBatchErrorKind } from '../../../common/record-batch/errors.js';
import { validateBatch, type BatchOrigin } from '../../../common/record-batch/validate.js';
import { encodeBatch, type EncodeRecord } from '../../helpers/encode-batch.js';
import { recordsSection, resign, withHeader, withRecordsSection } from '../../helpers/batches.js';

const recs = (n: number): EncodeRecord[] =>
  Array.from({ length: n }, (_, i) => ({
    key: i % 2 ? Buffer.from(`k${i}`) : null,
    value: i % 5 === 4 ? null : Buffer.from(`v${i}`.repeat(i + 1)),
    headers: i % 3 === 0 ? [{ key: 'h', value: Buffer.from('x') }, { key: 'n', value: null }] : [],
  }));

/** The kind of RecordBatchError `fn` throws, or 'ok'. */
function outcome(batch: Buffer, origin: BatchOrigin = 'client'): RecordBatchErrorKind | 'ok' {
  try {
    validateBatch(batch, origin);
    return 'ok';
  } catch (e) {
    if (e instanceof RecordBatchError) return e.kind;
    throw e;
  }
}

/** An uncompressed batch whose records section is `section` (re-signed). */
const withSection = (section: Buffer) => withRecordsSection(encodeBatch(recs(1)), section, Codec.NONE);

const codecs: [string, number, boolean][] = [
  ['none', Codec.NONE, false],
  ['gzip', Codec.GZIP, false],
  ['snappy raw', Codec.SNAPPY, false],
  ['snappy xerial', Codec.SNAPPY, true],
  ['lz4', Codec.LZ4, false],
  ['zstd', Codec.ZSTD, false],
];

describe('validateBatch', () => {
  for (const [name, codec, xerial] of codecs) {
    it(`accepts ${name} batches as producers write them, and refuses a junk ${name} payload`, () => {
      const b = encodeBatch(recs(20), { codec, xerial });
      expect(outcome(b)).toBe('ok');
      expect(validateBatch(b, 'client').recordCount).toBe(20);
      if (codec !== Codec.NONE) expect(outcome(withRecordsSection(b, Buffer.alloc(64, 0x33), codec))).toBe('CORRUPT_MESSAGE');
    });
  }

  it('accepts transactional, control and LogAppendTime batches (flags handled elsewhere)', () => {
    expect(outcome(encodeBatch(recs(2), { transactional: true, producerId: 5n, producerEpoch: 0, baseSequence: 0 }))).toBe('ok');
    expect(outcome(encodeBatch([{ key: Buffer.from([0, 0, 0, 1]), value: Buffer.from([0, 0, 0, 0, 0, 0]) }], { control: true, transactional: true }))).toBe('ok');
    expect(outcome(encodeBatch(recs(2), { logAppendTime: true }))).toBe('ok');
  });

  it('CRC, magic, length and codec id', () => {
    const b = encodeBatch(recs(3));
    const flipped = Buffer.from(b);
    flipped[flipped.length - 1] ^= 1;
    expect(outcome(flipped)).toBe('CORRUPT_MESSAGE');
    const magic = Buffer.from(b);
    magic[16] = 1;
    expect(outcome(magic)).toBe('INVALID_RECORD');
    expect(outcome(Buffer.concat([b, Buffer.alloc(1)]))).toBe('CORRUPT_MESSAGE'); // one batch, exactly
    expect(outcome(b.subarray(0, 40))).toBe('CORRUPT_MESSAGE');
    expect(outcome(withHeader(b, { attributes: 6 }))).toBe('UNSUPPORTED_COMPRESSION_TYPE');
  });

  it('count must equal lastOffsetDelta + 1 from clients; stored batches may have fewer records (compaction), never more', () => {
    const one = encodeBatch(recs(1));
    const huge = withHeader(one, { lastOffsetDelta: 2 ** 31 - 1 });
    expect(outcome(huge, 'client')).toBe('INVALID_RECORD');
    expect(outcome(huge, 'stored')).toBe('ok');
    const crowded = withHeader(encodeBatch(recs(3)), { lastOffsetDelta: 1 });
    expect(outcome(crowded, 'client')).toBe('INVALID_RECORD');
    expect(outcome(crowded, 'stored')).toBe('INVALID_RECORD');
    expect(outcome(withHeader(one, { lastOffsetDelta: -1, recordCount: 0 }), 'stored')).toBe('INVALID_RECORD');
    expect(outcome(withHeader(one, { recordCount: 0, lastOffsetDelta: -1 }), 'client')).toBe('INVALID_RECORD');
  });

  it('offset deltas: 0..n-1 from clients; strictly increasing within lastOffsetDelta when stored', () => {
    const gaps = encodeBatch(recs(3), { offsetDeltas: [0, 5, 9] });
    expect(outcome(gaps, 'client')).toBe('INVALID_RECORD');
    expect(outcome(gaps, 'stored')).toBe('ok');
    const swapped = withHeader(encodeBatch(recs(3), { offsetDeltas: [0, 2, 1] }), { lastOffsetDelta: 2 });
    expect(outcome(swapped, 'client')).toBe('INVALID_RECORD');
    expect(outcome(swapped, 'stored')).toBe('INVALID_RECORD');
    const beyond = withHeader(encodeBatch(recs(3), { offsetDeltas: [0, 1, 7] }), { lastOffsetDelta: 5 });
    expect(outcome(beyond, 'stored')).toBe('INVALID_RECORD');
  });

  it('records must be framed exactly: more or fewer records than declared, trailing bytes', () => {
    const b = encodeBatch(recs(3));
    expect(outcome(withHeader(b, { recordCount: 4, lastOffsetDelta: 3 }))).toBe('INVALID_RECORD');
    expect(outcome(withHeader(b, { recordCount: 2, lastOffsetDelta: 1 }))).toBe('INVALID_RECORD');
    expect(outcome(withRecordsSection(b, Buffer.concat([recordsSection(b), Buffer.from([0])])))).toBe('INVALID_RECORD');
    // the same faults inside a compressed payload
    const z = (section: Buffer) => withRecordsSection(b, compress(Codec.ZSTD, section), Codec.ZSTD);
    expect(outcome(z(recordsSection(b)))).toBe('ok');
    expect(outcome(z(Buffer.concat([recordsSection(b), Buffer.from([0])])))).toBe('INVALID_RECORD');
    expect(outcome(z(recordsSection(b).subarray(0, 20)))).toBe('INVALID_RECORD');
  });

  // One record, hand-written: len | attrs | tsDelta | offDelta | keyLen | valueLen value | headerCount
  // (zigzag varints: 0 -> 0x00, -1 -> 0x01, 1 -> 0x02, 3 -> 0x06, 7 -> 0x0e)
  const record = (body: number[]) => Buffer.from([body.length * 2, ...body]);
  it('field-level framing inside a record', () => {
    expect(outcome(withSection(record([0, 0, 0, 0x01, 0x06, 0x61, 0x62, 0x63, 0x00])))).toBe('ok'); // null key, "abc", no headers
    expect(outcome(withSection(record([0, 0, 0, 0x03, 0x01, 0x00])))).toBe('INVALID_RECORD'); // key length -2
    expect(outcome(withSection(record([0, 0, 0, 0x01, 0x0e, 0x61, 0x00])))).toBe('INVALID_RECORD'); // value of 7 bytes overruns the record
    expect(outcome(withSection(record([0, 0, 0, 0x01, 0x01, 0x01])))).toBe('INVALID_RECORD'); // header count -1
    expect(outcome(withSection(record([0, 0, 0, 0x01, 0x01, 0x02, 0x01, 0x01])))).toBe('INVALID_RECORD'); // header key length -1
    expect(outcome(withSection(record([0, 0, 0, 0x01, 0x01, 0x00, 0x00])))).toBe('INVALID_RECORD'); // one byte left over in the record
    expect(outcome(withSection(record([0, 0, 0, 0x01, 0x01])))).toBe('INVALID_RECORD'); // header count missing
    expect(outcome(withSection(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x01])))).toBe('INVALID_RECORD'); // 6-byte varint
    expect(outcome(withSection(Buffer.from([0x00])))).toBe('INVALID_RECORD'); // empty record
    expect(outcome(withSection(Buffer.from([0x01])))).toBe('INVALID_RECORD'); // negative record length
  });

  it('resign keeps a batch valid (the helper itself does not hide faults)', () => {
    const b = encodeBatch(recs(4), { codec: Codec.LZ4 });
    expect(outcome(resign(Buffer.from(b)))).toBe('ok');
  });
});
