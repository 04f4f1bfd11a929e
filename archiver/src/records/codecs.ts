// Decompression of Kafka RecordBatch v2 payloads.
//
// Codec ids (attributes bits 0-2): 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd.
//  - gzip: RFC 1952 stream (node:zlib).
//  - snappy: Kafka's Java client writes the xerial "snappy-java" framed stream
//    (magic 0x82 'SNAPPY' 0, then [len][raw snappy block]...), librdkafka and
//    franz-go may write a raw snappy block. Both are accepted.
//  - lz4: the LZ4 frame format (Kafka >= 0.10, magic >= 1 uses the correct
//    header checksum).
//  - zstd: a zstd frame, content size optional (streaming encoders omit it).
import { gunzipSync } from 'node:zlib';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const Codec = { NONE: 0, GZIP: 1, SNAPPY: 2, LZ4: 3, ZSTD: 4 } as const;
export type CodecId = (typeof Codec)[keyof typeof Codec];

interface SnappyMod { uncompressSync(b: Uint8Array, o?: { asBuffer?: boolean }): Buffer | string; compressSync(b: Uint8Array): Buffer }
interface Lz4Mod { decompressFrameSync(b: Buffer): Buffer; compressFrameSync(b: Buffer): Buffer }
interface ZstdMod { decompress(b: Uint8Array): Buffer; compress(b: Uint8Array, p?: Record<string, unknown>): Buffer }

let snappyMod: SnappyMod | undefined;
let lz4Mod: Lz4Mod | undefined;
let zstdMod: ZstdMod | undefined;
export function snappy(): SnappyMod { return (snappyMod ??= require('snappy') as SnappyMod); }
export function lz4(): Lz4Mod { return (lz4Mod ??= require('lz4-napi') as Lz4Mod); }
export function zstd(): ZstdMod { return (zstdMod ??= require('zstd-napi') as ZstdMod); }

const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);

function asBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

export function isXerialSnappy(b: Uint8Array): boolean {
  return b.length >= 16 && asBuffer(b).subarray(0, 8).equals(XERIAL_MAGIC);
}

function snappyRaw(b: Uint8Array): Buffer {
  return snappy().uncompressSync(b, { asBuffer: true }) as Buffer;
}

export function decompress(codec: number, payload: Uint8Array): Buffer {
  switch (codec) {
    case Codec.NONE:
      return asBuffer(payload);
    case Codec.GZIP:
      return gunzipSync(payload);
    case Codec.SNAPPY: {
      if (!isXerialSnappy(payload)) return snappyRaw(payload);
      const buf = asBuffer(payload);
      const parts: Buffer[] = [];
      let pos = 16; // magic(8) + version(4) + compatible version(4)
      while (pos < buf.length) {
        if (pos + 4 > buf.length) throw new Error('truncated xerial snappy block header');
        const len = buf.readInt32BE(pos);
        pos += 4;
        if (len < 0 || pos + len > buf.length) throw new Error('truncated xerial snappy block');
        parts.push(snappyRaw(buf.subarray(pos, pos + len)));
        pos += len;
      }
      return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    }
    case Codec.LZ4:
      return lz4().decompressFrameSync(asBuffer(payload));
    case Codec.ZSTD:
      return zstd().decompress(payload);
    default:
      throw new Error(`unknown compression codec ${codec}`);
  }
}

/** Compression, used by the test helpers and the benchmark to produce batches like real producers. */
export function compress(codec: number, data: Buffer, opts: { xerial?: boolean } = {}): Buffer {
  switch (codec) {
    case Codec.NONE:
      return data;
    case Codec.GZIP:
      return require('node:zlib').gzipSync(data) as Buffer;
    case Codec.SNAPPY: {
      if (!opts.xerial) return snappy().compressSync(data);
      const blocks: Buffer[] = [XERIAL_MAGIC, Buffer.from([0, 0, 0, 1, 0, 0, 0, 1])];
      const BLOCK = 32 * 1024;
      for (let i = 0; i < data.length || i === 0; i += BLOCK) {
        const c = snappy().compressSync(data.subarray(i, i + BLOCK));
        const len = Buffer.alloc(4);
        len.writeInt32BE(c.length);
        blocks.push(len, c);
        if (data.length === 0) break;
      }
      return Buffer.concat(blocks);
    }
    case Codec.LZ4:
      return lz4().compressFrameSync(data);
    case Codec.ZSTD:
      return zstd().compress(data);
    default:
      throw new Error(`unknown compression codec ${codec}`);
  }
}
