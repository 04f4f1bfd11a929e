// What one lake data file holds of each Kafka partition, stored in the Delta
// `add` action's `tags` (PROTOCOL.md: a map of strings readers may ignore).
// The archiver writes it; the broker's remote tier finds the file for an
// offset from it without opening any data file. A data file holds the rows of
// several partitions of one topic, so the file-wide `stats` (min/max offset
// over all its partitions) cannot place an offset of one partition.
//
// Tag value: a JSON array, one entry per partition present in the file:
//   [partition, minOffset, maxOffset, records, minTimestampMs, maxTimestampMs, bytes]
// `bytes` is the partition's share of the file's size (by rows' key, value and
// header bytes), the unit of retention.bytes and of the per-tier sizes.

export const PARTITION_RANGES_TAG = 'runnel.partitions';

export interface PartitionRange {
  partition: number;
  minOffset: number;
  maxOffset: number;
  records: number;
  minTimestampMs: number;
  maxTimestampMs: number;
  bytes: number;
}

export function encodePartitionRanges(ranges: readonly PartitionRange[]): string {
  return JSON.stringify(
    [...ranges]
      .sort((a, b) => a.partition - b.partition)
      .map((r) => [r.partition, r.minOffset, r.maxOffset, r.records, r.minTimestampMs, r.maxTimestampMs, r.bytes]),
  );
}

/** The ranges of a tag value; null when the tag is absent or not in this format (a file written before it existed). */
export function decodePartitionRanges(value: string | null | undefined): PartitionRange[] | null {
  if (typeof value !== 'string') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  const out: PartitionRange[] = [];
  for (const e of parsed) {
    if (!Array.isArray(e) || e.length < 7 || !e.every((n) => typeof n === 'number' && Number.isSafeInteger(n))) return null;
    const [partition, minOffset, maxOffset, records, minTimestampMs, maxTimestampMs, bytes] = e as number[];
    if (partition! < 0 || minOffset! < 0 || maxOffset! < minOffset! || records! < 1) return null;
    out.push({ partition: partition!, minOffset: minOffset!, maxOffset: maxOffset!, records: records!, minTimestampMs: minTimestampMs!, maxTimestampMs: maxTimestampMs!, bytes: bytes! });
  }
  return out;
}

/** Merges the ranges of files combined into one (OPTIMIZE): per partition the union of offsets and times, sums of records and bytes. */
export function mergePartitionRanges(lists: ReadonlyArray<readonly PartitionRange[]>): PartitionRange[] {
  const by = new Map<number, PartitionRange>();
  for (const list of lists) {
    for (const r of list) {
      const m = by.get(r.partition);
      if (!m) by.set(r.partition, { ...r });
      else {
        m.minOffset = Math.min(m.minOffset, r.minOffset);
        m.maxOffset = Math.max(m.maxOffset, r.maxOffset);
        m.records += r.records;
        m.minTimestampMs = Math.min(m.minTimestampMs, r.minTimestampMs);
        m.maxTimestampMs = Math.max(m.maxTimestampMs, r.maxTimestampMs);
        m.bytes += r.bytes;
      }
    }
  }
  return [...by.values()].sort((a, b) => a.partition - b.partition);
}
