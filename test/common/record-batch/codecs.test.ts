// Decompression bombs: every codec refuses records that expand past the bound
// before allocating them, and accepts data right at the bound.
import { describe, expect, it } from 'vitest';
import { decompress, MAX_DECOMPRESSED_BYTES } from '../../../common/record-batch/codecs.js';
import { compress } from '../../../common/record-batch/compress.js';
import { Codec } from '../../../common/record-batch/layout.js';
import { RecordBatchError } from '../../../common/record-batch/errors.js';

const LIMIT = 1 << 20;
const cases: Array<[string, number, { xerial?: boolean }]> = [
  ['gzip', Codec.GZIP, {}],
  ['snappy (raw)', Codec.SNAPPY, {}],
  ['snappy (xerial)', Codec.SNAPPY, { xerial: true }],
  ['lz4', Codec.LZ4, {}],
  ['zstd', Codec.ZSTD, {}],
];

describe('decompression bound', () => {
  for (const [name, codec, opts] of cases) {
    it(`${name}: refuses records past the bound with INVALID_RECORD, accepts them within it`, () => {
      const over = compress(codec, Buffer.alloc(LIMIT + 1, 0x61), opts);
      let err: unknown;
      try {
        decompress(codec, over, LIMIT);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(RecordBatchError);
      expect((err as RecordBatchError).kind).toBe('INVALID_RECORD');
      // LZ4 is bounded before decompressing, from its block headers at 256x
      // per block capped by the block size (up to 4 MiB): a 1 MiB block may
      // bound at 4 MiB, so its "at the bound" case uses that block bound.
      const text = Buffer.from(Array.from({ length: LIMIT }, (_, i) => 'abcdefghijklmnopqrstuvwxyz0123456789'.charCodeAt((i * 7919 + (i >> 5)) % 36)));
      const atBound = codec === Codec.LZ4 ? 4 * LIMIT : LIMIT;
      expect(decompress(codec, compress(codec, text, opts), atBound).equals(text)).toBe(true);
    });
  }

  it('zstd without a declared size (streaming encoders, as Java writes it): a 1 GiB bomb stops at the bound', async () => {
    // A frame from a streaming encoder declares no content size, so the bound is enforced while decompressing.
    const bomb = await streamedZstd(Buffer.alloc(1 << 20), 1024); // 1 GiB of zeros in a few KiB
    expect(bomb.length).toBeLessThan(256 << 10);
    const before = process.memoryUsage().arrayBuffers;
    expect(() => decompress(Codec.ZSTD, bomb)).toThrow(/decompress to more than/);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(MAX_DECOMPRESSED_BYTES + (8 << 20));
    // ... and within the bound it decompresses exactly.
    const fine = await streamedZstd(Buffer.from('0123456789abcdef'.repeat(4096)), 3);
    expect(decompress(Codec.ZSTD, fine, LIMIT).equals(Buffer.from('0123456789abcdef'.repeat(4096 * 3)))).toBe(true);
    expect(decompress(Codec.ZSTD, fine, LIMIT, { transient: true }).equals(Buffer.from('0123456789abcdef'.repeat(4096 * 3)))).toBe(true);
  });

  it('zstd with a declared size over the bound is refused before any allocation', () => {
    const bomb = compress(Codec.ZSTD, Buffer.alloc(MAX_DECOMPRESSED_BYTES + 4096));
    expect(() => decompress(Codec.ZSTD, bomb)).toThrow(/decompress to more than/);
  });
});

/** `copies` times `chunk` through zstd-napi's streaming compressor: no content size in the frame header. */
async function streamedZstd(chunk: Buffer, copies: number): Promise<Buffer> {
  const { CompressStream } = await import('zstd-napi');
  const s = new CompressStream();
  const out: Buffer[] = [];
  s.on('data', (c: Buffer) => out.push(c));
  const done = new Promise<void>((r) => s.on('end', () => r()));
  for (let i = 0; i < copies; i++) if (!s.write(chunk)) await new Promise((r) => s.once('drain', r));
  s.end();
  await done;
  return Buffer.concat(out);
}
