// Rewriting a stored batch with a subset of its records (log compaction), as
// Kafka's cleaner does (MemoryRecords.filterTo): the batch keeps its
// baseOffset, lastOffsetDelta, timestamps, producer id/epoch and base
// sequence, so every kept record keeps its offset and the producer's sequence
// range stays whole; only the record count, the length and the CRC change.
// Kept records are copied byte for byte and compressed again with the batch's
// own codec.
import { asBuffer, decompress } from './codecs.js';
import { compress } from './compress.js';
import { writeCrc, type BatchHeader } from './header.js';
import { At, Attr, BATCH_HEADER_SIZE, Codec, LOG_OVERHEAD } from './layout.js';
import { recordSpans, walkRecords, type RecordSink } from './records.js';
import { checkBatchHeader } from './validate.js';

/** One record as the compaction decision sees it; `key` is a view into the decompressed records (copy it to keep it). */
export interface RecordView {
  offset: number;
  /** null for a record without a key */
  key: Buffer | null;
  /** a tombstone: the value is null */
  tombstone: boolean;
}

export interface FilterResult {
  /** The batch to store: `batch` itself when every record stays, a rebuilt batch, or null when none stays. */
  bytes: Buffer | null;
  total: number;
  kept: number;
  /** Kept tombstones. */
  tombstones: number;
}

/** Calls `visit` with every record of a stored (non-control) batch. */
export function forEachRecord(batch: Buffer, visit: (r: RecordView) => void): void {
  const h = checkBatchHeader(batch, 'stored', false);
  if (h.isControl) return;
  const data = decompress(h.codec, batch.subarray(BATCH_HEADER_SIZE));
  walkRecords(data, 0, data.length, h, 'increasing', viewSink(visit));
}

function viewSink(visit: (r: RecordView) => void): RecordSink {
  return {
    record(offset, _ts, _tt, buf, keyStart, keyLen, _vs, valueLen) {
      visit({ offset, key: keyLen < 0 ? null : buf.subarray(keyStart, keyStart + keyLen), tombstone: valueLen < 0 });
    },
    header() {},
  };
}

/**
 * Keeps the records for which `keep` is true. Control batches (transaction
 * markers) are returned unchanged: they are not the cleaner's to drop here.
 */
export function filterBatch(stored: Uint8Array, keep: (r: RecordView) => boolean): FilterResult {
  const batch = asBuffer(stored);
  const h = checkBatchHeader(batch, 'stored', false);
  if (h.isControl) return { bytes: batch, total: 0, kept: 0, tombstones: 0 };
  const data = decompress(h.codec, batch.subarray(BATCH_HEADER_SIZE));
  const decisions: boolean[] = [];
  let tombstones = 0;
  walkRecords(data, 0, data.length, h, 'increasing', viewSink((r) => {
    const k = keep(r);
    decisions.push(k);
    if (k && r.tombstone) tombstones++;
  }));
  const kept = decisions.filter(Boolean).length;
  const total = decisions.length;
  if (kept === total) return { bytes: batch, total, kept, tombstones };
  if (kept === 0) return { bytes: null, total, kept, tombstones: 0 };
  const spans = recordSpans(data, 0, data.length, total);
  const parts: Buffer[] = [];
  for (let i = 0; i < total; i++) if (decisions[i]) parts.push(data.subarray(spans[2 * i]!, spans[2 * i + 1]!));
  // The Java client frames snappy the xerial way; every client reads that framing.
  const payload = compress(h.codec, Buffer.concat(parts), { xerial: h.codec === Codec.SNAPPY });
  const out = Buffer.concat([batch.subarray(0, BATCH_HEADER_SIZE), payload]);
  out.writeInt32BE(out.length - LOG_OVERHEAD, At.LENGTH);
  out.writeInt32BE(kept, At.RECORD_COUNT);
  writeCrc(out);
  return { bytes: out, total, kept, tombstones };
}

/**
 * The batch with its records compressed by `codec` instead (the topic's
 * compression.type overrides the producer's choice, as in Kafka's
 * LogValidator). Control batches and batches already in `codec` come back as
 * they are.
 */
export function recompressBatch(stored: Uint8Array, codec: number): Buffer {
  const batch = asBuffer(stored);
  return recompress(batch, checkBatchHeader(batch, 'stored', false), codec).bytes;
}

/**
 * recompressBatch for a batch whose header `h` is already read and checked
 * (the produce path's validation step): the batch and its header, which
 * differs from `h` in the codec, the length and the CRC only.
 */
export function recompress(batch: Buffer, h: BatchHeader, codec: number): { bytes: Buffer; header: BatchHeader } {
  if (h.isControl || h.codec === codec) return { bytes: batch, header: h };
  const data = decompress(h.codec, batch.subarray(BATCH_HEADER_SIZE));
  const payload = compress(codec, data, { xerial: codec === Codec.SNAPPY });
  const out = Buffer.concat([batch.subarray(0, BATCH_HEADER_SIZE), payload]);
  const attributes = (h.attributes & ~Attr.CODEC_MASK) | codec;
  out.writeInt32BE(out.length - LOG_OVERHEAD, At.LENGTH);
  out.writeInt16BE(attributes, At.ATTRIBUTES);
  writeCrc(out);
  return { bytes: out, header: { ...h, attributes, codec, batchLength: out.length - LOG_OVERHEAD, size: out.length, crc: out.readUInt32BE(At.CRC) } };
}
