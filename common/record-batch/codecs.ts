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
//
// Decompressed size is bounded (MAX_DECOMPRESSED_BYTES) before any output is
// allocated past the bound: a 1 MiB zstd batch can declare or expand to
// gigabytes (a "bomb"), which would exhaust the broker's heap. Kafka streams
// records and needs no such bound; Runnel validates a whole batch at once, so
// it refuses one whose records exceed the bound (INVALID_RECORD).
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
interface ZstdDCtx {
  decompress(dst: Uint8Array, src: Uint8Array): number;
  decompressStream(dst: Uint8Array, src: Uint8Array): [number, number, number];
  reset(directive: number): void;
}
interface ZstdBinding {
  DCtx: new () => ZstdDCtx;
  ResetDirective: { sessionOnly: number };
  getFrameContentSize(frame: Uint8Array): number | null;
  findFrameCompressedSize(frame: Uint8Array): number;
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
let zstdBindingMod: ZstdBinding | undefined;
const zstdBinding = (): ZstdBinding => (zstdBindingMod ??= require('zstd-napi/binding') as ZstdBinding);

/** Largest records section a batch may decompress to (128 MiB, 128x the default max.message.bytes). */
export const MAX_DECOMPRESSED_BYTES = 128 * 1024 * 1024;

const tooLarge = (codec: string, limit: number): RecordBatchError =>
  new RecordBatchError('INVALID_RECORD', `${codec} records decompress to more than ${limit} bytes`);

let dctxMod: ZstdDCtx | undefined;
const dctx = (): ZstdDCtx => (dctxMod ??= new (zstdBinding().DCtx)());

/** Sum of the frames' declared content sizes, or null when a frame does not declare one (streaming encoders). */
function zstdDeclaredSize(b: Buffer): number | null {
  let total = 0;
  let frame = b;
  while (frame.length > 0) {
    const size = zstdBinding().getFrameContentSize(frame);
    if (size === null) return null;
    total += size;
    frame = frame.subarray(zstdBinding().findFrameCompressedSize(frame));
  }
  return total;
}

/**
 * A reusable output buffer for callers that only look at the records and
 * drop them (produce validation), so that a decompressed batch is not a new
 * allocation each time. Kept only up to SCRATCH_KEEP bytes.
 */
const SCRATCH_KEEP = 8 << 20;
let scratch = Buffer.allocUnsafe(0);
function outputBuffer(size: number, reuse: boolean): Buffer {
  if (!reuse || size > SCRATCH_KEEP) return Buffer.allocUnsafe(size);
  if (scratch.length < size) scratch = Buffer.allocUnsafe(Math.min(SCRATCH_KEEP, Math.max(size, scratch.length * 2, 64 << 10)));
  return scratch;
}

/**
 * zstd decompression bounded by `limit`. Declared content sizes (checked by
 * zstd against the data) allow one exact allocation; otherwise the frames
 * are streamed into a buffer that grows up to limit + 1 bytes and no further.
 */
function zstdBounded(b: Buffer, limit: number, reuse: boolean): Buffer {
  const z = dctx();
  z.reset(zstdBinding().ResetDirective.sessionOnly);
  const declared = zstdDeclaredSize(b);
  if (declared !== null) {
    if (declared > limit) throw tooLarge('zstd', limit);
    const out = outputBuffer(declared, reuse);
    const n = z.decompress(out.subarray(0, declared), b);
    if (n !== declared) throw corrupt(`zstd frame declared ${declared} bytes and held ${n}`);
    return out.subarray(0, declared);
  }
  // Output in chunks (the first sized for a typical ratio, reused when transient; then doubling),
  // so a bomb allocates at most limit + 1 bytes before it is refused.
  const chunks: Buffer[] = [];
  let cur = outputBuffer(Math.min(limit + 1, Math.max(64 << 10, b.length * 4)), reuse);
  let used = 0;
  let total = 0;
  let rest = b;
  let pending = 0; // ZSTD_decompressStream's hint: 0 once a frame is complete and flushed
  while (rest.length > 0 || pending > 0) {
    if (used === cur.length) {
      chunks.push(cur);
      cur = Buffer.allocUnsafe(Math.min(limit + 1 - total, cur.length * 2));
      used = 0;
    }
    const [hint, produced, consumed] = z.decompressStream(cur.subarray(used), rest);
    if (produced === 0 && consumed === 0) throw corrupt('zstd frame is truncated');
    pending = hint;
    used += produced;
    total += produced;
    if (total > limit) throw tooLarge('zstd', limit); // one byte past the limit tells "too large"
    rest = rest.subarray(consumed);
  }
  if (chunks.length === 0) return cur.subarray(0, used);
  chunks.push(cur.subarray(0, used));
  return Buffer.concat(chunks, total);
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
 * With `transient`, the result may live in a buffer that the next call
 * overwrites (for callers that walk the records and drop them).
 * Throws RecordBatchError: UNSUPPORTED_COMPRESSION_TYPE for ids 5..7,
 * CORRUPT_MESSAGE when the codec rejects the data.
 */
export function decompress(codec: number, payload: Uint8Array, limit = MAX_DECOMPRESSED_BYTES, opts: { transient?: boolean } = {}): Buffer {
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
        return zstdBounded(b, limit, opts.transient === true);
    }
  } catch (e) {
    if (e instanceof RecordBatchError) throw e;
    if (e instanceof RangeError && (e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge('gzip', limit);
    throw corrupt(`${CODEC_NAMES[codec]} records cannot be decompressed: ${(e as Error).message}`);
  }
}
