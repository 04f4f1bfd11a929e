import { createZstdCompress } from 'node:zlib';
import { describe, expect, it } from 'vitest';
// Decoding stored batches into a sink (the archiver's Parquet writer uses it).
import { Codec } from '../../../common/record-batch/layout.js';
import { decompress } from '../../../common/record-batch/codecs.js';
import { compress } from '../../../common/record-batch/compress.js';
import { decodeBatch } from '../../../common/record-batch/decode.js';
import { RecordBatchError } from '../../../common/record-batch/errors.js';
import { readBatchHeader } from '../../../common/record-batch/header.js';
import type { RecordSink } from '../../../common/record-batch/records.js';
import { encodeBatch, type EncodeRecord } from '../../helpers/encode-batch.js';

interface Row {
  offset: number;
  ts: number;
  tsType: number;
  key: string | null;
  value: string | null;
  headers: [string, string | null][];
}

function collect(batch: Buffer, opts: { skipUpTo?: number } = {}): Row[] {
  const rows: Row[] = [];
  const sink: RecordSink = {
    record(offset, ts, tsType, buf, kS, kL, vS, vL) {
      rows.push({
        offset,
        ts,
        tsType,
        key: kL < 0 ? null : buf.subarray(kS, kS + kL).toString('latin1'),
        value: vL < 0 ? null : buf.subarray(vS, vS + vL).toString('latin1'),
        headers: [],
      });
    },
    header(buf, kS, kL, vS, vL) {
      rows[rows.length - 1]!.headers.push([buf.subarray(kS, kS + kL).toString(), vL < 0 ? null : buf.subarray(vS, vS + vL).toString('latin1')]);
    },
  };
  decodeBatch(batch, sink, opts);
  return rows;
}

const base = 1_700_000_000_000;
function sample(n: number): EncodeRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    key: i % 3 === 0 ? null : Buffer.from(`key-${i}`),
    value: i % 7 === 6 ? null : Buffer.from(`value-${i}-`.repeat(1 + (i % 5))),
    headers: i % 2 ? [{ key: 'h1', value: Buffer.from(`v${i}`) }, { key: 'h1', value: null }] : [],
    timestamp: base + i * 1000 - (i % 4 === 0 ? 5000 : 0),
  }));
}

describe('RecordBatch v2 decoding', () => {
  const variants: [string, number, boolean][] = [
    ['none', Codec.NONE, false],
    ['gzip', Codec.GZIP, false],
    ['snappy raw', Codec.SNAPPY, false],
    ['snappy xerial', Codec.SNAPPY, true],
    ['lz4 frame', Codec.LZ4, false],
    ['zstd', Codec.ZSTD, false],
  ];
  for (const [name, codec, xerial] of variants) {
    it(`decodes ${name}`, () => {
      const recs = sample(50);
      const b = encodeBatch(recs, { baseOffset: 1000, codec, xerial });
      const h = readBatchHeader(b);
      expect(h.codec).toBe(codec);
      expect(h.recordCount).toBe(50);
      const rows = collect(b);
      expect(rows).toHaveLength(50);
      rows.forEach((r, i) => {
        expect(r.offset).toBe(1000 + i);
        expect(r.ts).toBe(recs[i]!.timestamp);
        expect(r.tsType).toBe(0);
        expect(r.key).toBe(recs[i]!.key == null ? null : Buffer.from(recs[i]!.key!).toString('latin1'));
        expect(r.value).toBe(recs[i]!.value == null ? null : Buffer.from(recs[i]!.value!).toString('latin1'));
        expect(r.headers).toEqual((recs[i]!.headers ?? []).map((x) => [x.key, x.value ? Buffer.from(x.value).toString() : null]));
      });
    });
  }

  it('decodes zstd frames without content size (streaming encoders)', async () => {
    const data = Buffer.from('abc'.repeat(10000));
    const chunks: Buffer[] = [];
    const s = createZstdCompress();
    const done = new Promise<void>((res) => s.on('end', () => res()));
    s.on('data', (c: Buffer) => chunks.push(c));
    s.end(data);
    await done;
    expect(decompress(Codec.ZSTD, Buffer.concat(chunks)).equals(data)).toBe(true);
  });

  it('decodes xerial snappy with several blocks', () => {
    const data = Buffer.alloc(200_000, 7);
    expect(decompress(Codec.SNAPPY, compress(Codec.SNAPPY, data, { xerial: true })).equals(data)).toBe(true);
  });

  it('uses the batch max timestamp for LogAppendTime', () => {
    const b = encodeBatch(sample(5), { logAppendTime: true });
    const h = readBatchHeader(b);
    for (const r of collect(b)) {
      expect(r.tsType).toBe(1);
      expect(r.ts).toBe(h.maxTimestamp);
    }
  });

  it('rejects a CRC mismatch', () => {
    const b = encodeBatch(sample(3));
    b[b.length - 1] ^= 0xff;
    expect(() => collect(b)).toThrow(RecordBatchError);
  });

  it('ignores baseOffset and partitionLeaderEpoch for the CRC', () => {
    const b = encodeBatch(sample(3));
    b.writeBigInt64BE(77n, 0);
    b.writeInt32BE(9, 12);
    expect(collect(b).map((r) => r.offset)).toEqual([77, 78, 79]);
  });

  it('skips control batches and already-archived offsets', () => {
    expect(collect(encodeBatch([{ key: Buffer.from([0, 0, 0, 0]), value: Buffer.from([0, 0, 0, 0, 0, 0]) }], { control: true, transactional: true }))).toEqual([]);
    expect(collect(encodeBatch(sample(5), { baseOffset: 10 }), { skipUpTo: 12 }).map((r) => r.offset)).toEqual([13, 14]);
  });

  it('keeps offset gaps of compacted batches', () => {
    const b = encodeBatch(sample(3), { baseOffset: 100, offsetDeltas: [0, 5, 9] });
    expect(readBatchHeader(b).lastOffsetDelta).toBe(9);
    expect(collect(b).map((r) => r.offset)).toEqual([100, 105, 109]);
  });

  it('handles large timestamp deltas and big values', () => {
    const big = Buffer.alloc(3 * 1024 * 1024, 1);
    const recs = [
      { value: big, timestamp: base },
      { value: Buffer.from('x'), timestamp: base + 10 * 365 * 86400_000 },
      { value: Buffer.from('y'), timestamp: base - 3 * 365 * 86400_000 },
    ];
    const rows = collect(encodeBatch(recs, { codec: Codec.LZ4 }));
    expect(rows.map((r) => r.ts)).toEqual(recs.map((r) => r.timestamp));
    expect(rows[0]!.value!.length).toBe(big.length);
  });

  it('rejects truncated batches', () => {
    const b = encodeBatch(sample(3));
    expect(() => collect(b.subarray(0, b.length - 2))).toThrow(RecordBatchError);
    expect(() => readBatchHeader(b.subarray(0, 30))).toThrow(RecordBatchError);
  });
});
