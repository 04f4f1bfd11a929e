// Decompression of RecordBatch v2 record sections, synchronous (the produce
// path validates without awaiting so offsets stay in request order).
//
//  - gzip: an RFC 1952 stream (node:zlib).
//  - snappy: Kafka's Java client writes the xerial "snappy-java" framing
//    (magic 0x82 'SNAPPY' 0, version, compatible version, then [int32 length]
//    [raw snappy block]...); other encoders may write one raw snappy block.
//    Both are accepted.
//  - lz4: the LZ4 frame format (Kafka >= 0.10 with the correct header checksum).
//  - zstd: one or more zstd frames (RFC 8878); the content size is optional
//    (streaming encoders omit it). Node's own zstd (node:zlib, libzstd), so
//    installing Runnel compiles nothing.
// Any failure of a codec is reported as CORRUPT_MESSAGE.
//
// Decompressed size is bounded (MAX_DECOMPRESSED_BYTES) before any output is
// allocated past the bound: a 1 MiB zstd batch can declare or expand to
// gigabytes (a "bomb"), which would exhaust the broker's heap. Kafka streams
// records and needs no such bound; Runnel validates a whole batch at once, so
// it refuses one whose records exceed the bound (INVALID_RECORD).
import { createRequire } from 'node:module';
import { gunzipSync, zstdDecompressSync } from 'node:zlib';
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

// native modules load on first use: a broker that never sees lz4 never loads it
let snappyMod: SnappyModule | undefined;
let lz4Mod: Lz4Module | undefined;
export const snappy = (): SnappyModule => (snappyMod ??= require('snappy') as SnappyModule);
export const lz4 = (): Lz4Module => (lz4Mod ??= require('lz4-napi') as Lz4Module);

/** Largest records section a batch may decompress to (128 MiB, 128x the default max.message.bytes). */
export const MAX_DECOMPRESSED_BYTES = 128 * 1024 * 1024;

const tooLarge = (codec: string, limit: number): RecordBatchError =>
  new RecordBatchError('INVALID_RECORD', `${codec} records decompress to more than ${limit} bytes`);

const ZSTD_MAGIC = 0xfd2fb528;

/**
 * The content size the first zstd frame declares (RFC 8878 frame header:
 * magic, descriptor byte, [window byte], [dictionary id], [content size]),
 * or null when it declares none or is not a zstd frame (the decoder then judges it).
 */
function zstdDeclaredSize(b: Buffer): number | null {
  if (b.length < 5 || b.readUInt32LE(0) !== ZSTD_MAGIC) return null;
  const fhd = b[4]!;
  const singleSegment = (fhd & 0x20) !== 0;
  const fcsSize = [singleSegment ? 1 : 0, 2, 4, 8][fhd >> 6]!;
  if (fcsSize === 0) return null;
  const at = 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][fhd & 3]!;
  if (b.length < at + fcsSize) return null;
  switch (fcsSize) {
    case 1: return b[at]!;
    case 2: return b.readUInt16LE(at) + 256;
    case 4: return b.readUInt32LE(at);
    default: return Number(b.readBigUInt64LE(at));
  }
}

/**
 * zstd decompression bounded by `limit`: a first frame that declares more is
 * refused before anything is allocated; otherwise the decoder stops one
 * chunk past the limit (maxOutputLength). Bytes after the last frame are corrupt.
 */
function zstdBounded(b: Buffer, limit: number): Buffer {
  const declared = zstdDeclaredSize(b);
  if (declared !== null && declared > limit) throw tooLarge('zstd', limit);
  // With `info: true` zlib returns the buffer and its engine (bytesWritten = input consumed);
  // @types/node declares only the plain Buffer result for zstd.
  const { buffer, engine } = zstdDecompressSync(b, { maxOutputLength: limit, info: true }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
  if (engine.bytesWritten < b.length) throw corrupt(`zstd data continues ${b.length - engine.bytesWritten} bytes past its last frame`);
  return buffer;
}

/** Snappy expands at most ~21x (a 3-byte copy tag yields 64 bytes); a larger claim is corrupt, not a bomb. */
const SNAPPY_MAX_RATIO = 32;

/** Raw snappy starts with the uncompressed length as a varint (at most 5 bytes). */
function snappyLength(b: Buffer): number {
  let n = 0;
  for (let i = 0; i < 5 && i < b.length; i++) {
    n += (b[i]! & 0x7f) * 2 ** (7 * i);
    if ((b[i]! & 0x80) === 0) {
      if (n > b.length * SNAPPY_MAX_RATIO + 64) throw corrupt(`snappy block claims ${n} bytes from ${b.length}`);
      return n;
    }
  }
  throw corrupt('snappy length preamble is malformed');
}

/** LZ4 expands at most ~255x (one extra length byte adds 255 bytes of match); an upper bound per block. */
const LZ4_MAX_RATIO = 256;
const LZ4_BLOCK_MAX = [0, 0, 0, 0, 64 << 10, 256 << 10, 1 << 20, 4 << 20];

/**
 * An upper bound of an LZ4 frame's decompressed size, from its block headers
 * (LZ4 frame format: magic, FLG, BD, [content size], [dict id], HC, then
 * blocks of int32-LE size (high bit: stored uncompressed) [+ 4-byte checksum],
 * ended by a zero size). Null when the frame cannot be walked (the codec then reports it).
 */
function lz4Bound(b: Buffer): number | null {
  if (b.length < 7 || b.readUInt32LE(0) !== 0x184d2204) return null;
  const flg = b[4]!;
  const blockMax = LZ4_BLOCK_MAX[(b[5]! >> 4) & 7] ?? 0;
  if (blockMax === 0) return null;
  let pos = 6 + ((flg & 0x08) ? 8 : 0) + ((flg & 0x01) ? 4 : 0) + 1;
  const blockChecksum = (flg & 0x10) !== 0;
  let bound = 0;
  while (pos + 4 <= b.length) {
    const word = b.readUInt32LE(pos);
    pos += 4;
    if (word === 0) return bound;
    const size = word & 0x7fffffff;
    bound += (word & 0x80000000) ? size : Math.min(blockMax, size * LZ4_MAX_RATIO);
    pos += size + (blockChecksum ? 4 : 0);
  }
  return null;
}

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

function snappyXerial(buf: Buffer, limit: number): Buffer {
  const blocks: Buffer[] = [];
  let pos = XERIAL_HEADER_SIZE;
  let total = 0;
  while (pos < buf.length) {
    if (pos + 4 > buf.length) throw corrupt('truncated xerial snappy block header');
    const len = buf.readInt32BE(pos);
    pos += 4;
    if (len < 0 || pos + len > buf.length) throw corrupt('truncated xerial snappy block');
    const block = buf.subarray(pos, pos + len);
    total += snappyLength(block);
    if (total > limit) throw tooLarge('snappy', limit);
    blocks.push(block);
    pos += len;
  }
  const parts = blocks.map(snappyRaw);
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

/** True for the codec ids Kafka defines (0..4). */
export const isKnownCodec = (codec: number): boolean => codec >= Codec.NONE && codec <= Codec.ZSTD;

/**
 * The uncompressed records section. `payload` is returned as is for NONE.
 * Throws RecordBatchError: UNSUPPORTED_COMPRESSION_TYPE for ids 5..7,
 * CORRUPT_MESSAGE when the codec rejects the data.
 */
export function decompress(codec: number, payload: Uint8Array, limit = MAX_DECOMPRESSED_BYTES): Buffer {
  const b = asBuffer(payload);
  if (codec === Codec.NONE) return b;
  if (!isKnownCodec(codec)) throw new RecordBatchError('UNSUPPORTED_COMPRESSION_TYPE', `unknown compression codec id ${codec}`);
  try {
    switch (codec) {
      case Codec.GZIP:
        return gunzipSync(b, { maxOutputLength: limit });
      case Codec.SNAPPY:
        if (isXerialSnappy(b)) return snappyXerial(b, limit);
        if (snappyLength(b) > limit) throw tooLarge('snappy', limit);
        return snappyRaw(b);
      case Codec.LZ4: {
        const bound = lz4Bound(b);
        if (bound !== null && bound > limit) throw tooLarge('lz4', limit);
        return lz4().decompressFrameSync(b);
      }
      default:
        return zstdBounded(b, limit);
    }
  } catch (e) {
    if (e instanceof RecordBatchError) throw e;
    if (e instanceof RangeError && (e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(CODEC_NAMES[codec] ?? 'records', limit);
    throw corrupt(`${CODEC_NAMES[codec]} records cannot be decompressed: ${(e as Error).message}`);
  }
}
