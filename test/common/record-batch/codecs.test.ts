// Decompression bombs: every codec refuses records that expand past the bound
// before allocating them, and accepts data right at the bound.
import { createZstdCompress, zstdCompressSync } from 'node:zlib';
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
  });

  it('zstd with a declared size over the bound is refused before any allocation', () => {
    const bomb = compress(Codec.ZSTD, Buffer.alloc(MAX_DECOMPRESSED_BYTES + 4096));
    const before = process.memoryUsage().arrayBuffers;
    expect(() => decompress(Codec.ZSTD, bomb)).toThrow(/decompress to more than/);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1 << 20);
  });
});

describe('zstd frames', () => {
  const text = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => 97 + ((i * seed + (i >> 3)) % 26)));

  it('several frames in one batch decode to their concatenation', async () => {
    const a = text(70_000, 7);
    const b = text(50_000, 13);
    const both = Buffer.concat([zstdCompressSync(a), await streamedZstd(b, 1)]);
    expect(decompress(Codec.ZSTD, both).equals(Buffer.concat([a, b]))).toBe(true);
  });

  it('bytes after the last frame, a truncated frame and junk are CORRUPT_MESSAGE', () => {
    const frame = zstdCompressSync(text(40_000, 3));
    for (const bad of [Buffer.concat([frame, Buffer.from('xx')]), Buffer.concat([frame, Buffer.alloc(16, 0x41)]), frame.subarray(0, frame.length - 5), Buffer.from('not zstd at all')]) {
      let err: unknown;
      try {
        decompress(Codec.ZSTD, bad);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(RecordBatchError);
      expect((err as RecordBatchError).kind).toBe('CORRUPT_MESSAGE');
    }
  });
});

/** `copies` times `chunk` through a streaming zstd compressor (node:zlib): no content size in the frame header. */
async function streamedZstd(chunk: Buffer, copies: number): Promise<Buffer> {
  const s = createZstdCompress();
  const out: Buffer[] = [];
  s.on('data', (c: Buffer) => out.push(c));
  const done = new Promise<void>((r) => s.on('end', () => r()));
  for (let i = 0; i < copies; i++) if (!s.write(chunk)) await new Promise((r) => s.once('drain', r));
  s.end();
  await done;
  return Buffer.concat(out);
}
