// Walking the records section of a RecordBatch v2 (after decompression):
//
//   length varint | attributes int8 | timestampDelta varlong | offsetDelta varint
//   | keyLength varint | key | valueLength varint | value
//   | headerCount varint | [headerKeyLength varint | key | headerValueLength varint | value]...
//
// Varints are zigzag-encoded like Kafka's ByteUtils: varint at most 5 bytes
// (int32), varlong at most 10 bytes. A length of -1 means null. Every record
// must consume exactly its length, and the section must end with the last
// declared record (Kafka: "Incorrect declared batch size, records still
// remaining"). The walk allocates nothing: the cursor is module state and
// fields reach the sink as (start, length) slices of the section.
import type { BatchHeader } from './header.js';
import { invalid } from './errors.js';

/** Receives decoded records without per-record allocations. Slices are (start, length) in `buf`; length -1 = null. */
export interface RecordSink {
  record(
    offset: number,
    timestampMs: number,
    timestampType: 0 | 1,
    buf: Buffer,
    keyStart: number,
    keyLen: number,
    valueStart: number,
    valueLen: number,
    headerCount: number,
  ): void;
  header(buf: Buffer, keyStart: number, keyLen: number, valueStart: number, valueLen: number): void;
}

/**
 * How offset deltas must run. 'contiguous': record i has delta i (what every
 * producer writes; the produce path stores batches as sent, so it cannot
 * renumber them as Kafka does). 'increasing': strictly increasing and at most
 * lastOffsetDelta (stored batches; compaction may leave gaps).
 */
export type DeltaRule = 'contiguous' | 'increasing';

const EMPTY = Buffer.alloc(0);
let buf: Buffer = EMPTY;
let pos = 0;
let end = 0;

/** Kafka ByteUtils.readVarint: zigzag int32 in at most 5 bytes. */
function varint(): number {
  let value = 0;
  let shift = 0;
  for (;;) {
    if (pos >= end) throw invalid('record field truncated (varint)');
    const b = buf[pos++]!;
    if ((b & 0x80) === 0) {
      value |= b << shift;
      return (value >>> 1) ^ -(value & 1);
    }
    value |= (b & 0x7f) << shift;
    shift += 7;
    if (shift > 28) throw invalid('varint longer than 5 bytes');
  }
}

/**
 * Kafka ByteUtils.readVarlong: zigzag int64 in at most 10 bytes (a Number,
 * exact below 2^53). The sign comes from the first byte's low bit: a zigzag
 * value above 2^53 is rounded, and its parity with it.
 */
function varlong(): number {
  let result = 0;
  let mul = 1;
  let negative = false;
  for (let i = 0; i < 10; i++) {
    if (pos >= end) throw invalid('record field truncated (varlong)');
    const b = buf[pos++]!;
    if (i === 0) negative = (b & 1) === 1;
    result += (b & 0x7f) * mul;
    if ((b & 0x80) === 0) return negative ? -Math.floor(result / 2) - 1 : Math.floor(result / 2);
    mul *= 128;
  }
  throw invalid('varlong longer than 10 bytes');
}

/** Skips a nullable byte field of length `len` (-1 = null); returns its start. */
function skipBytes(len: number, what: string): number {
  const start = pos;
  if (len < -1) throw invalid(`negative ${what} length ${len}`);
  if (len > 0) {
    if (len > end - pos) throw invalid(`${what} of ${len} bytes overruns its record`);
    pos += len;
  }
  return start;
}

/**
 * Walks the `h.recordCount` records in `data[from, to)` and checks their
 * framing and offset deltas. With a sink, hands it every record whose offset
 * is above `skipUpTo` and returns how many it got; without one (validation),
 * returns the number of records.
 */
export function walkRecords(
  data: Buffer,
  from: number,
  to: number,
  h: BatchHeader,
  rule: DeltaRule,
  sink: RecordSink | null = null,
  skipUpTo = -1,
): number {
  buf = data;
  pos = from;
  const count = h.recordCount;
  let delivered = 0;
  let prevDelta = -1;
  for (let i = 0; i < count; i++) {
    end = to;
    const len = varint();
    if (len < 0 || len > to - pos) throw invalid(`record ${i} declares ${len} bytes, ${to - pos} remain`);
    const recStart = pos;
    end = pos + len; // no field may run past its record
    if (pos >= end) throw invalid(`record ${i} is empty`);
    pos++; // attributes (unused in v2)
    const tsDelta = varlong();
    const offDelta = varint();
    if (rule === 'contiguous' ? offDelta !== i : offDelta <= prevDelta || offDelta > h.lastOffsetDelta) {
      throw invalid(`record ${i} has offset delta ${offDelta} (previous ${prevDelta}, lastOffsetDelta ${h.lastOffsetDelta})`);
    }
    prevDelta = offDelta;
    const keyLen = varint();
    const keyStart = skipBytes(keyLen, 'key');
    const valueLen = varint();
    const valueStart = skipBytes(valueLen, 'value');
    const headerCount = varint();
    if (headerCount < 0) throw invalid(`record ${i} has ${headerCount} headers`);
    const offset = h.baseOffset + offDelta;
    const deliver = sink !== null && offset > skipUpTo;
    if (deliver) {
      const ts = h.timestampType === 1 ? h.maxTimestamp : h.baseTimestamp + tsDelta;
      sink.record(offset, ts, h.timestampType, data, keyStart, keyLen, valueStart, valueLen, headerCount);
      delivered++;
    }
    for (let j = 0; j < headerCount; j++) {
      const hkLen = varint();
      if (hkLen < 0) throw invalid(`record ${i} header ${j} has key length ${hkLen}`);
      const hkStart = skipBytes(hkLen, 'header key');
      const hvLen = varint();
      const hvStart = skipBytes(hvLen, 'header value');
      if (deliver) sink.header(data, hkStart, hkLen, hvStart, hvLen);
    }
    if (pos !== end) throw invalid(`record ${i} declares ${len} bytes but its fields take ${pos - recStart}`);
  }
  if (pos !== to) throw invalid(`${to - pos} bytes follow the last of ${count} declared records`);
  buf = EMPTY; // do not pin the caller's buffer
  return sink === null ? count : delivered;
}

/**
 * The byte span of each of `count` records in `data[from, to)`, length
 * prefix included: [start0, end0, start1, end1, ...]. Only the framing is
 * read; walkRecords checks the fields.
 */
export function recordSpans(data: Buffer, from: number, to: number, count: number): number[] {
  buf = data;
  pos = from;
  end = to;
  const spans: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = pos;
    const len = varint();
    if (len < 0 || len > to - pos) throw invalid(`record ${i} declares ${len} bytes, ${to - pos} remain`);
    pos += len;
    spans.push(start, pos);
  }
  buf = EMPTY;
  return spans;
}
