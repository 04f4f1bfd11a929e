// Timestamp lookups over stored batches without a separate index. Batches are
// read whole; only uncompressed batches are inspected record by record
// (compressed batches answer with batch granularity, as Kafka did for
// compressed batches before KIP-734-era fixes).
import type { LogStore } from '../storage/log-store.js';
import type { Partition } from './partition.js';
import { compressionOf, readHeader, HEADER_SIZE } from '../record-batch/batch.js';
import { Reader } from '../protocol/reader.js';

export interface Located { offset: number; timestamp: number }

const PAGE = 128;

/** Record timestamps and offsets of an uncompressed batch. */
function recordTimes(bytes: Buffer, baseOffset: number): Located[] {
  const h = readHeader(bytes);
  const r = new Reader(bytes, HEADER_SIZE);
  const out: Located[] = [];
  for (let i = 0; i < h.recordCount; i++) {
    const len = r.varint();
    const end = r.offset + len;
    r.int8(); // attributes
    const tsDelta = r.varlong();
    const offDelta = r.varint();
    out.push({ offset: baseOffset + offDelta, timestamp: h.baseTimestamp + tsDelta });
    r.offset = end;
  }
  return out;
}

async function* batchesFrom(store: LogStore, p: Partition, from: number): AsyncGenerator<{ baseOffset: number; bytes: Buffer }> {
  let next = from;
  while (next < p.highWatermark) {
    const page = await store.read(p.tp, next, PAGE);
    if (page.length === 0) return;
    for (const b of page) {
      if (b.baseOffset >= p.highWatermark) return;
      yield b;
    }
    const last = page[page.length - 1]!;
    next = last.baseOffset + readHeader(last.bytes).lastOffsetDelta + 1;
  }
}

/** Earliest offset whose timestamp >= ts (ListOffsets by timestamp). */
export async function locateTimestamp(store: LogStore, p: Partition, ts: number): Promise<Located | null> {
  for await (const b of batchesFrom(store, p, p.logStartOffset)) {
    const h = readHeader(b.bytes);
    if (h.maxTimestamp < ts) continue;
    if (compressionOf(h) === 0) {
      for (const rec of recordTimes(b.bytes, b.baseOffset)) {
        if (rec.offset >= p.logStartOffset && rec.timestamp >= ts) return rec;
      }
      continue;
    }
    return { offset: Math.max(b.baseOffset, p.logStartOffset), timestamp: h.maxTimestamp };
  }
  return null;
}

/** Offset of the record with the largest timestamp (ListOffsets -3, v7+). */
export async function locateMaxTimestamp(store: LogStore, p: Partition): Promise<Located | null> {
  let best: { ts: number; baseOffset: number; bytes: Buffer } | null = null;
  for await (const b of batchesFrom(store, p, p.logStartOffset)) {
    const h = readHeader(b.bytes);
    if (!best || h.maxTimestamp > best.ts) best = { ts: h.maxTimestamp, baseOffset: b.baseOffset, bytes: b.bytes };
  }
  if (!best) return null;
  const h = readHeader(best.bytes);
  if (compressionOf(h) === 0) {
    let top: Located | null = null;
    for (const rec of recordTimes(best.bytes, best.baseOffset)) if (!top || rec.timestamp > top.timestamp) top = rec;
    return top;
  }
  return { offset: best.baseOffset + h.lastOffsetDelta, timestamp: best.ts };
}
