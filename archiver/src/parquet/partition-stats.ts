// Per-Kafka-partition statistics of one data file, folded in as its rows are
// added, and turned into the Delta `add.tags["runnel.partitions"]` ranges
// (common/lake/partition-ranges.ts) once the file's Parquet size is known.
import { PARTITION_RANGES_TAG, encodePartitionRanges, type PartitionRange } from '../../../common/lake/partition-ranges.js';

/** Bytes a row weighs beyond its key, value and header bytes (offset, timestamp, framing) when a file's size is shared out. */
export const ROW_OVERHEAD_BYTES = 16;

/** One partition's rows in a file; `weight` = key + value + header bytes + ROW_OVERHEAD_BYTES per row. */
export interface PartitionAcc {
  partition: number;
  minOffset: number;
  maxOffset: number;
  records: number;
  minTimestampMs: number;
  maxTimestampMs: number;
  weight: number;
}

/** Accumulates rows per partition; rows of one partition come in runs (one batch at a time), so the last one is cached. */
export class PartitionStats {
  private readonly by = new Map<number, PartitionAcc>();
  private last: PartitionAcc | undefined;

  /** The partition's accumulator, with one row (offset, tsMs, payload bytes) added; header bytes are added to it later. */
  row(partition: number, offset: number, tsMs: number, payloadBytes: number): PartitionAcc {
    let a = this.last;
    if (a === undefined || a.partition !== partition) {
      a = this.by.get(partition);
      if (a === undefined) {
        a = { partition, minOffset: offset, maxOffset: offset, records: 0, minTimestampMs: tsMs, maxTimestampMs: tsMs, weight: 0 };
        this.by.set(partition, a);
      }
      this.last = a;
    }
    if (offset < a.minOffset) a.minOffset = offset;
    if (offset > a.maxOffset) a.maxOffset = offset;
    if (tsMs < a.minTimestampMs) a.minTimestampMs = tsMs;
    if (tsMs > a.maxTimestampMs) a.maxTimestampMs = tsMs;
    a.records++;
    a.weight += payloadBytes + ROW_OVERHEAD_BYTES;
    return a;
  }

  get size(): number {
    return this.by.size;
  }

  /** The ranges of a file of `fileBytes` bytes holding these rows. */
  ranges(fileBytes: number): PartitionRange[] {
    const accs = [...this.by.values()];
    const bytes = shareBytes(accs.map((a) => a.weight), fileBytes);
    return accs
      .map((a, i) => ({
        partition: a.partition,
        minOffset: a.minOffset,
        maxOffset: a.maxOffset,
        records: a.records,
        minTimestampMs: a.minTimestampMs,
        maxTimestampMs: a.maxTimestampMs,
        bytes: bytes[i]!,
      }))
      .sort((x, y) => x.partition - y.partition);
  }
}

/**
 * `total` cut into integer shares proportional to `weights` that sum to exactly
 * `total` (largest remainder; ties to the earlier index). All-zero weights share equally.
 */
export function shareBytes(weights: readonly number[], total: number): number[] {
  if (!weights.length) return [];
  const sum = weights.reduce((s, w) => s + w, 0);
  const w = sum > 0 ? weights : weights.map(() => 1);
  const wsum = sum > 0 ? sum : weights.length;
  const exact = w.map((x) => (x / wsum) * total);
  const out = exact.map((x) => Math.floor(x));
  let left = total - out.reduce((s, x) => s + x, 0);
  const order = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (let k = 0; left > 0; k = (k + 1) % order.length, left--) out[order[k]![1]]!++;
  return out;
}

/** Ranges merged from the files combined into one (OPTIMIZE), their bytes re-shared over the new file's size by the inputs' byte shares. */
export function resharedRanges(merged: readonly PartitionRange[], fileBytes: number): PartitionRange[] {
  const bytes = shareBytes(merged.map((r) => r.bytes), fileBytes);
  return merged.map((r, i) => ({ ...r, bytes: bytes[i]! }));
}

/** `tags` with the ranges tag set; every other entry kept. */
export function withPartitionRanges(tags: Readonly<Record<string, string>> | null | undefined, ranges: readonly PartitionRange[]): Record<string, string> {
  return { ...(tags ?? {}), [PARTITION_RANGES_TAG]: encodePartitionRanges(ranges) };
}
