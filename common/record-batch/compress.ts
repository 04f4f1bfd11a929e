// Compression as real producers write it, for encoders in tests and benchmarks
// (the broker and the archiver only ever decompress).
import { gzipSync, zstdCompressSync } from 'node:zlib';
import { lz4, snappy, XERIAL_MAGIC } from './codecs.js';
import { Codec } from './layout.js';

/** snappy-java's default block size (the Java client frames its output in blocks of this size). */
const XERIAL_BLOCK = 32 * 1024;

export function compress(codec: number, data: Buffer, opts: { xerial?: boolean } = {}): Buffer {
  switch (codec) {
    case Codec.NONE:
      return data;
    case Codec.GZIP:
      return gzipSync(data);
    case Codec.SNAPPY: {
      if (!opts.xerial) return snappy().compressSync(data);
      const blocks: Buffer[] = [XERIAL_MAGIC, Buffer.from([0, 0, 0, 1, 0, 0, 0, 1])];
      for (let i = 0; i === 0 || i < data.length; i += XERIAL_BLOCK) {
        const c = snappy().compressSync(data.subarray(i, i + XERIAL_BLOCK));
        const len = Buffer.alloc(4);
        len.writeInt32BE(c.length);
        blocks.push(len, c);
      }
      return Buffer.concat(blocks);
    }
    case Codec.LZ4:
      return lz4().compressFrameSync(data);
    case Codec.ZSTD:
      return zstdCompressSync(data);
    default:
      throw new Error(`unknown compression codec ${codec}`);
  }
}
