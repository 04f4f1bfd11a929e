// Decompression of RecordBatch v2 record sections, synchronous (the produce
// path validates without awaiting so offsets stay in request order).
//
//  - gzip: an RFC 1952 stream (node:zlib).
//  - snappy: Kafka's Java client writes the xerial "snappy-java" framing
//    (magic 0x82 'SNAPPY' 0, version, compatible version, then [int32 length]
//    [raw snappy block]...); other encoders may write one raw snappy block.
//    Both are accepted.
//  - lz4: the LZ4 frame format (Kafka >= 0.10 with the correct header checksum).
//  - zstd: one or more zstd frames; the content size is optional (streaming
//    encoders omit it).
// Any failure of a codec is reported as CORRUPT_MESSAGE.
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import { corrupt, RecordBatchError } from './errors.js';
import { Codec, CODEC_NAMES } from './layout.js';

const require = createRequire(import.meta.url);

export interface SnappyModule {
  uncompressSync(b: Uint8Array, o?: { asBuffer?: boolean }): Buffer | string;
  compressSync(b: Uint8Array): Buffer;
}
export interface Lz4Module {
  decompressFrameSync(b: Buffer): Buffer;
  compressFrameSync(b: Buffer): Buffer;
}
export interface ZstdModule {
  decompress(b: Uint8Array): Buffer;
  compress(b: Uint8Array, p?: Record<string, unknown>): Buffer;
}

// native modules load on first use: a broker that never sees lz4 never loads it
let snappyMod: SnappyModule | undefined;
let lz4Mod: Lz4Module | undefined;
let zstdMod: ZstdModule | undefined;
export const snappy = (): SnappyModule => (snappyMod ??= require('snappy') as SnappyModule);
export const lz4 = (): Lz4Module => (lz4Mod ??= require('lz4-napi') as Lz4Module);
export const zstd = (): ZstdModule => (zstdMod ??= require('zstd-napi') as ZstdModule);

/** xerial snappy-java stream magic; followed by int32 version and int32 compatible version. */
export const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_HEADER_SIZE = 16;

export function asBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

export function isXerialSnappy(b: Buffer): boolean {
  return b.length >= XERIAL_HEADER_SIZE && b.compare(XERIAL_MAGIC, 0, 8, 0, 8) === 0;
}

function snappyRaw(b: Buffer): Buffer {
  return snappy().uncompressSync(b, { asBuffer: true }) as Buffer;
}

function snappyXerial(buf: Buffer): Buffer {
  const parts: Buffer[] = [];
  let pos = XERIAL_HEADER_SIZE;
  while (pos < buf.length) {
    if (pos + 4 > buf.length) throw corrupt('truncated xerial snappy block header');
    const len = buf.readInt32BE(pos);
    pos += 4;
    if (len < 0 || pos + len > buf.length) throw corrupt('truncated xerial snappy block');
    parts.push(snappyRaw(buf.subarray(pos, pos + len)));
    pos += len;
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

/** True for the codec ids Kafka defines (0..4). */
export const isKnownCodec = (codec: number): boolean => codec >= Codec.NONE && codec <= Codec.ZSTD;

/**
 * The uncompressed records section. `payload` is returned as is for NONE.
 * Throws RecordBatchError: UNSUPPORTED_COMPRESSION_TYPE for ids 5..7,
 * CORRUPT_MESSAGE when the codec rejects the data.
 */
export function decompress(codec: number, payload: Uint8Array): Buffer {
  const b = asBuffer(payload);
  if (codec === Codec.NONE) return b;
  if (!isKnownCodec(codec)) throw new RecordBatchError('UNSUPPORTED_COMPRESSION_TYPE', `unknown compression codec id ${codec}`);
  try {
    switch (codec) {
      case Codec.GZIP:
        return gunzipSync(b);
      case Codec.SNAPPY:
        return isXerialSnappy(b) ? snappyXerial(b) : snappyRaw(b);
      case Codec.LZ4:
        return lz4().decompressFrameSync(b);
      default:
        return zstd().decompress(b);
    }
  } catch (e) {
    if (e instanceof RecordBatchError) throw e;
    throw corrupt(`${CODEC_NAMES[codec]} records cannot be decompressed: ${(e as Error).message}`);
  }
}
