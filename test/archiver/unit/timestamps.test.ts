// Record timestamps and the lake (archiver/src/records/timestamps.ts and the
// Parquet writer): the edges of the Delta range are written exactly, a
// timestamp outside it is refused by name, never clamped.
import { describe, expect, it } from 'vitest';
import { Codec } from '../../../common/record-batch/layout.js';
import { readBatchHeader } from '../../../common/record-batch/header.js';
import { encodeBatch } from '../../helpers/encode-batch.js';
import { resign } from '../../helpers/batches.js';
import { encodeDataFiles, readParquetTable } from '../../../archiver/src/parquet/jobs.js';
import { MAX_LAKE_TIMESTAMP_MS, MIN_LAKE_TIMESTAMP_MS, unencodableReason } from '../../../archiver/src/records/timestamps.js';

function job(bytes: Buffer) {
  return { batches: [new Uint8Array(bytes)], meta: new Float64Array([0, -1]), verifyCrc: true };
}

/** The far-future CreateTime of issue 27 (year ~287,000): past JS Date's range and any yyyy-MM-dd date. */
const FAR = 9e15;

describe('record timestamps in the lake', () => {
  it('writes the first and last millisecond of 0001..9999 as exact micros with their dates', () => {
    const b = encodeBatch([
      { value: Buffer.from('first'), timestamp: MIN_LAKE_TIMESTAMP_MS },
      { value: Buffer.from('last'), timestamp: MAX_LAKE_TIMESTAMP_MS },
    ]);
    const r = encodeDataFiles(job(b));
    expect(r.files.map((f) => f.date)).toEqual(['0001-01-01', '9999-12-31']);
    const micros = r.files.map((f) => (readParquetTable(f.bytes).getChild('timestamp')!.data[0]!.values as BigInt64Array)[0]);
    // 253402300799999 * 1000 is above 2^53: a Number product rounds it (to ...999008)
    expect(micros).toEqual([BigInt(MIN_LAKE_TIMESTAMP_MS) * 1000n, BigInt(MAX_LAKE_TIMESTAMP_MS) * 1000n]);
  });

  it('the Parquet writer refuses a timestamp past 9999-12-31 with the offset and the value', () => {
    const b = encodeBatch([{ value: Buffer.from('ok'), timestamp: Date.UTC(2024, 0, 1) }, { value: Buffer.from('far'), timestamp: FAR }], { baseOffset: 40 });
    expect(() => encodeDataFiles(job(b))).toThrow('record at offset 41 has timestamp 9000000000000000 ms');
    const early = encodeBatch([{ value: Buffer.from('early'), timestamp: MIN_LAKE_TIMESTAMP_MS - 1 }], { baseOffset: 7 });
    expect(() => encodeDataFiles(job(early))).toThrow('record at offset 7 has timestamp -62135596800001 ms');
  });

  it('unencodableReason: header fast path, record walk, LogAppendTime, skipped records', () => {
    const now = Date.UTC(2026, 11, 2);
    const ok = encodeBatch([{ value: Buffer.from('a'), timestamp: now }], { codec: Codec.ZSTD });
    expect(unencodableReason(ok, readBatchHeader(ok), -1, false)).toBeNull();
    expect(unencodableReason(ok, readBatchHeader(ok), -1, true)).toBeNull();

    const far = encodeBatch([{ value: Buffer.from('a'), timestamp: now }, { value: Buffer.from('b'), timestamp: FAR }], { baseOffset: 10, codec: Codec.LZ4 });
    expect(unencodableReason(far, readBatchHeader(far), -1, false)).toContain('offset 11 has timestamp 9000000000000000 ms');
    // the bad record is already behind the archived offset: nothing left to refuse
    expect(unencodableReason(far, readBatchHeader(far), 11, true)).toBeNull();

    // a header whose maxTimestamp hides the record: trusted without a walk, found with one
    const year11k = 3e14;
    const lying = encodeBatch([{ value: Buffer.from('a'), timestamp: now }, { value: Buffer.from('b'), timestamp: year11k }], { baseOffset: 20 });
    lying.writeBigInt64BE(BigInt(now), 35);
    resign(lying);
    expect(unencodableReason(lying, readBatchHeader(lying), -1, false)).toBeNull();
    expect(unencodableReason(lying, readBatchHeader(lying), -1, true)).toContain('offset 21 has timestamp 300000000000000 ms');

    // LogAppendTime: every record carries the header's maxTimestamp
    const lat = encodeBatch([{ value: Buffer.from('a'), timestamp: now }], { baseOffset: 30, logAppendTime: true });
    lat.writeBigInt64BE(BigInt(FAR), 35);
    resign(lat);
    expect(unencodableReason(lat, readBatchHeader(lat), -1, false)).toContain('offset 30 has timestamp 9000000000000000 ms');
  });
});
