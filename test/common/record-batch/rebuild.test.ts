// Rewriting stored batches: compaction keeps a subset of records at their
// offsets (lastOffsetDelta, producer fields and timestamps unchanged, CRC
// valid, same codec), and recompression changes only the codec.
import { describe, expect, it } from 'vitest';
import { filterBatch, forEachRecord, recompressBatch } from '../../../common/record-batch/rebuild.js';
import { decodeBatch } from '../../../common/record-batch/decode.js';
import { readBatchHeader } from '../../../common/record-batch/header.js';
import { withRecordsSection, buildBatch, recordsSection } from '../../helpers/batches.js';
import { compress } from '../../../common/record-batch/compress.js';
import { Codec } from '../../../common/record-batch/layout.js';

interface Rec { offset: number; key: string | null; value: string | null; headers: string[] }

function records(batch: Buffer): Rec[] {
  const out: Rec[] = [];
  decodeBatch(batch, {
    record(offset, _ts, _tt, buf, ks, kl, vs, vl) {
      out.push({ offset, key: kl < 0 ? null : buf.toString('utf8', ks, ks + kl), value: vl < 0 ? null : buf.toString('utf8', vs, vs + vl), headers: [] });
    },
    header(buf, ks, kl) { out[out.length - 1]!.headers.push(buf.toString('utf8', ks, ks + kl)); },
  });
  return out;
}

/** 6 records at base offset 100 (k0..k2 twice, the last one a tombstone), with a header each, compressed by `codec`. */
function sample(codec: number): Buffer {
  const plain = buildBatch(Array.from({ length: 6 }, (_, i) => ({
    key: Buffer.from(`k${i % 3}`), value: i === 5 ? null : Buffer.from(`v${i}`), timestamp: 1_000 + i, headers: [[`h${i}`, Buffer.from('x')] as [string, Buffer]],
  })), { producerId: 42, producerEpoch: 3, baseSequence: 17 });
  plain.writeBigInt64BE(100n, 0);
  return codec === Codec.NONE ? plain : withRecordsSection(plain, compress(codec, recordsSection(plain), { xerial: codec === Codec.SNAPPY }), codec);
}

const codecs: Array<[string, number]> = [['none', Codec.NONE], ['gzip', Codec.GZIP], ['snappy', Codec.SNAPPY], ['lz4', Codec.LZ4], ['zstd', Codec.ZSTD]];

describe('filterBatch', () => {
  for (const [name, codec] of codecs) {
    it(`${name}: keeps the chosen records byte for byte at their offsets, with a valid CRC and the same header fields`, () => {
      const batch = sample(codec);
      const f = filterBatch(batch, (r) => r.offset >= 103);
      expect(f).toMatchObject({ total: 6, kept: 3, tombstones: 1 });
      const out = f.bytes!;
      const before = readBatchHeader(batch);
      const after = readBatchHeader(out);
      expect(after).toMatchObject({
        baseOffset: 100, lastOffsetDelta: 5, recordCount: 3, codec, producerId: 42, producerEpoch: 3, baseSequence: 17,
        baseTimestamp: before.baseTimestamp, maxTimestamp: before.maxTimestamp, attributes: before.attributes,
      });
      // decodeBatch checks the CRC and the 'increasing' offset deltas.
      expect(records(out)).toEqual(records(batch).slice(3));
      expect(records(out).map((r) => r.offset)).toEqual([103, 104, 105]);
    });
  }

  it('returns the batch itself when every record stays, and null when none does', () => {
    const batch = sample(Codec.LZ4);
    expect(filterBatch(batch, () => true).bytes).toBe(batch);
    expect(filterBatch(batch, () => false)).toMatchObject({ bytes: null, total: 6, kept: 0 });
  });

  it('hands the decision every record with its key and whether it is a tombstone', () => {
    const seen: string[] = [];
    forEachRecord(sample(Codec.ZSTD), (r) => seen.push(`${r.offset}:${r.key?.toString()}:${r.tombstone}`));
    expect(seen).toEqual(['100:k0:false', '101:k1:false', '102:k2:false', '103:k0:false', '104:k1:false', '105:k2:true']);
  });
});

describe('recompressBatch', () => {
  for (const [from, fromCodec] of codecs) {
    for (const [to, toCodec] of codecs) {
      if (fromCodec === toCodec) continue;
      it(`${from} -> ${to}: same records, new codec bits, valid CRC`, () => {
        const batch = sample(fromCodec);
        const out = recompressBatch(batch, toCodec);
        expect(readBatchHeader(out).codec).toBe(toCodec);
        expect(readBatchHeader(out).attributes & ~7).toBe(readBatchHeader(batch).attributes & ~7);
        expect(records(out)).toEqual(records(batch));
      });
    }
  }
  it('leaves a batch already in the codec untouched', () => {
    const batch = sample(Codec.GZIP);
    expect(recompressBatch(batch, Codec.GZIP)).toBe(batch);
  });
});
