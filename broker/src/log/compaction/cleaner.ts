// One compaction pass over one partition (docs/architecture.md, "Log
// compaction"). Kafka's two phases: map the latest offset of every key in the
// dirty part of the log, then rewrite the compacted prefix and the dirty part
// keeping, per key, only records at or after that offset. The result is
// written aside and swapped in atomically by the store, so a crash at any
// point leaves either the old log or the new one.
import { randomUUID } from 'node:crypto';
import { filterBatch, forEachRecord, type RecordView } from '../../../../common/record-batch/rebuild.js';
import { readHeader } from '../../record-batch/batch.js';
import type { CompactedBatch, LogStore, StoredBatch } from '../../storage/log-store.js';
import type { Partition } from '../partition.js';
import { KeyOffsetMap } from './key-map.js';

export interface CleanOptions {
  /** The pass never compacts at or past this offset (the active segment, the archiver's watermark). */
  limit: number;
  /** Tombstones stay this long after the pass that first compacted them (delete.retention.ms). */
  deleteRetentionMs: number;
  /** Batches whose newest timestamp is younger than this stay uncompacted (min.compaction.lag.ms). */
  minCompactionLagMs: number;
  /** Keys the map may hold (log.cleaner.dedupe.buffer.size). */
  mapCapacity: number;
  now: number;
  /** Fault injection for crash tests. */
  crash?: (point: string) => void;
}

export interface CleanResult {
  /** 'done', or 'fenced' when another leader (or pass) took over. */
  outcome: 'done' | 'fenced';
  cleanedFrom: number;
  cleanedTo: number;
  recordsRead: number;
  recordsKept: number;
  bytesRead: number;
  bytesWritten: number;
  durationMs: number;
}

/** Bytes read or written per Redis call: bounds the pass's memory next to the key map. */
const CHUNK_BYTES = 4 * 1024 * 1024;

export async function cleanPartition(store: LogStore, p: Partition, o: CleanOptions): Promise<CleanResult | null> {
  const started = Date.now();
  const from = p.cleanedTo;
  const page = Math.max(1, Math.min(256, Math.floor(CHUNK_BYTES / Math.max(64, p.avgBatchBytes))));
  const map = new KeyOffsetMap(o.mapCapacity);
  const upper = await mapDirty(store, p, from, page, map, o);
  if (upper <= from) return null;
  o.crash?.('cleaner-mapped');

  const token = `${p.leaderEpoch}:${randomUUID()}`;
  const epoch = p.leaderEpoch;
  const result: CleanResult = { outcome: 'fenced', cleanedFrom: from, cleanedTo: upper, recordsRead: 0, recordsKept: 0, bytesRead: 0, bytesWritten: 0, durationMs: 0 };
  if (!(await store.compaction.begin(p.tp, epoch, token))) return result;

  let out: CompactedBatch[] = [];
  let outBytes = 0;
  let flushes = 0;
  const flush = async (): Promise<boolean> => {
    const ok = await store.compaction.write(p.tp, token, out);
    if (flushes++ === 0) o.crash?.('cleaner-writing');
    out = [];
    outBytes = 0;
    return ok;
  };
  const emit = async (b: StoredBatch, clean: boolean, horizon: number | null): Promise<boolean> => {
    const keep = (r: RecordView): boolean => {
      if (r.key === null) return false; // Kafka's cleaner drops records without a key
      const latest = map.get(r.key);
      if (latest !== undefined && r.offset < latest) return false;
      // A tombstone goes once its delete horizon has passed in a later pass.
      return !(r.tombstone && clean && horizon !== null && horizon <= o.now);
    };
    const f = filterBatch(b.bytes, keep);
    result.recordsRead += f.total;
    result.recordsKept += f.kept;
    result.bytesRead += b.bytes.length;
    if (f.bytes === null) return true;
    const h = f.tombstones > 0 ? (clean && horizon !== null ? horizon : o.now + o.deleteRetentionMs) : null;
    out.push({ baseOffset: b.baseOffset, bytes: f.bytes, horizon: h });
    outBytes += f.bytes.length;
    result.bytesWritten += f.bytes.length;
    return outBytes < CHUNK_BYTES || (await flush());
  };

  // The compacted prefix first, then the dirty part: the new prefix stays in offset order.
  for (let next = 0; ;) {
    const batches = await store.compaction.scanCompacted(p.tp, next, page);
    for (const b of batches) if (!(await emit(b, true, b.horizon))) return result;
    if (batches.length < page) break;
    next = batches[batches.length - 1]!.baseOffset + 1;
  }
  for (let next = from; next < upper;) {
    const batches = await store.compaction.scanLog(p.tp, next, page);
    let more = batches.length === page;
    for (const b of batches) {
      if (b.baseOffset >= upper) { more = false; break; }
      if (!(await emit(b, false, null))) return result;
      next = b.baseOffset + readHeader(b.bytes).lastOffsetDelta + 1;
    }
    if (!more) break;
  }
  if (out.length > 0 && !(await flush())) return result;
  o.crash?.('cleaner-written');
  if (!(await store.compaction.finish(p.tp, epoch, token, upper))) return result;
  o.crash?.('cleaner-swapped');
  p.cleanedTo = upper;
  result.outcome = 'done';
  result.durationMs = Date.now() - started;
  return result;
}

/**
 * Maps the latest offset of each key from `from` on, batch by batch, and
 * returns where the pass stops: the first batch it did not map (the limit,
 * the newest batch, the last stable offset, a batch younger than
 * min.compaction.lag.ms, or the first batch that no longer fits in the map).
 * Transactions (Kafka's cleaner): nothing at or past the LSO is compacted, as
 * its outcome is not known yet, and records of aborted transactions never
 * enter the map, so they cannot supersede a committed value of their key.
 * The aborted ranges themselves live in the partition's aborted index, which
 * the cleaner never rewrites, and control batches are kept by filterBatch.
 */
async function mapDirty(store: LogStore, p: Partition, from: number, page: number, map: KeyOffsetMap, o: CleanOptions): Promise<number> {
  let upper = from;
  const stable = p.lastStableOffset;
  const aborted = await p.abortedTxns(from, stable);
  const isAborted = (pid: number, base: number): boolean => aborted.some((a) => a.producerId === pid && a.firstOffset <= base && base <= a.lastOffset);
  for (;;) {
    const batches = await store.compaction.scanLog(p.tp, upper, page);
    for (const b of batches) {
      const h = readHeader(b.bytes);
      const end = b.baseOffset + h.lastOffsetDelta + 1;
      if (b.baseOffset < upper) continue;
      // The newest batch (and anything not yet visible) is the active part: never compacted.
      if (end > o.limit || end >= p.highWatermark || end > stable) return upper;
      if (o.minCompactionLagMs > 0 && h.maxTimestamp > o.now - o.minCompactionLagMs) return upper;
      if (upper > from && map.size + h.recordCount > map.capacity) return upper;
      if (!(h.isTransactional && isAborted(h.producerId, b.baseOffset))) forEachRecord(b.bytes, (r) => { if (r.key !== null) map.put(r.key, r.offset); });
      upper = end;
    }
    if (batches.length < page) return upper;
  }
}
