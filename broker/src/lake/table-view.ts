// One topic's Delta table as the remote tier sees it: the live data files and,
// per Kafka partition, the offset ranges they hold, sorted for a binary search
// by offset. Ranges come from the `runnel.partitions` tag of each `add`
// (common/lake/partition-ranges.ts); a file without it holds one partition
// when its stats say so (their min/max offset are then that partition's), and
// is otherwise decoded once (`derive`) and its ranges remembered.
//
// Files of one partition may overlap in offsets (the archiver splits rows by
// the UTC date of their timestamps, and CreateTime need not grow with the
// offset): overlapping files form one run, read together.
import { DeltaTable } from '../../../common/lake/delta/table.js';
import type { AddFile } from '../../../common/lake/delta/actions.js';
import type { ObjectStore } from '../../../common/lake/store.js';
import { decodePartitionRanges, PARTITION_RANGES_TAG, type PartitionRange } from '../../../common/lake/partition-ranges.js';

export const TOPIC_ID_CONFIG = 'runnel.topicId';

/** A file's share of one partition. */
export interface FileRange extends PartitionRange {
  path: string;
}

/** One file, or several overlapping ones, of a partition. */
export interface Run {
  /** the cache key of its rebuilt batches (with the partition) */
  key: string;
  paths: string[];
  minOffset: number;
  maxOffset: number;
  minTimestampMs: number;
  maxTimestampMs: number;
}

export interface PartitionIndex {
  /** by minOffset */
  files: FileRange[];
  /** disjoint, by offset */
  runs: Run[];
}

/** Ranges of the files whose add carries neither the tag nor single-partition stats. */
export type Derive = (view: TableView, f: AddFile) => Promise<PartitionRange[]>;

export class TableView {
  readonly table: DeltaTable;
  loaded = false;
  lastRefreshMs = 0;
  private refreshing: Promise<void> | null = null;
  private index = new Map<number, PartitionIndex>();
  private indexedVersion = -2;
  /** derived ranges by path, kept while the file is live */
  private readonly derived = new Map<string, PartitionRange[]>();

  constructor(
    readonly store: ObjectStore,
    readonly topic: string,
    codec: ConstructorParameters<typeof DeltaTable>[2],
    private readonly derive: Derive,
    /** files decoded at once to index them */
    private readonly deriveConcurrency = 1,
  ) {
    this.table = new DeltaTable(store, topic, codec);
  }

  /** The table's runnel.topicId; undefined when it names none (a table written before topic ids). */
  get topicId(): string | undefined {
    return this.table.state.metaData?.configuration?.[TOPIC_ID_CONFIG];
  }

  /** The object key of a data file (add paths are URI-encoded relative paths). */
  fileKey(path: string): string {
    return `${this.topic}/${decodeURIComponent(path)}`;
  }

  partition(p: number): PartitionIndex | undefined {
    return this.index.get(p);
  }

  isLive(path: string): boolean {
    return this.table.state.files.has(path);
  }

  /** Loads or updates the table and re-indexes it; concurrent calls share one. */
  refresh(): Promise<void> {
    return (this.refreshing ??= this.doRefresh().finally(() => {
      this.refreshing = null;
    }));
  }

  /**
   * A refresh that starts after this call: one under way may have listed the
   * log before the commit the caller is looking for. Callers meanwhile share it.
   */
  async refreshNow(): Promise<void> {
    const running = this.refreshing;
    if (running) await running.catch(() => {});
    return this.refresh();
  }

  private async doRefresh(): Promise<void> {
    if (!this.loaded) {
      await this.table.load();
      this.loaded = true;
    } else {
      // a failed update is retried at the next interval, not at every read
      this.lastRefreshMs = Date.now();
      await this.table.update();
    }
    this.lastRefreshMs = Date.now();
    // (an update that failed half-way applied some commits: the next one indexes them)
    if (this.table.state.version !== this.indexedVersion) {
      await this.reindex();
      this.indexedVersion = this.table.state.version;
    }
  }

  private async reindex(): Promise<void> {
    const files = [...this.table.state.files.values()];
    for (const path of this.derived.keys()) if (!this.table.state.files.has(path)) this.derived.delete(path);
    const unknown = files.filter((f) => !rangesOf(f) && !this.derived.has(f.path));
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(this.deriveConcurrency, unknown.length) }, async () => {
        while (next < unknown.length) {
          const f = unknown[next++]!;
          this.derived.set(f.path, await this.derive(this, f));
        }
      }),
    );
    const by = new Map<number, FileRange[]>();
    for (const f of files) {
      const ranges = rangesOf(f) ?? this.derived.get(f.path)!;
      for (const r of ranges) {
        let arr = by.get(r.partition);
        if (!arr) by.set(r.partition, (arr = []));
        arr.push({ ...r, path: f.path });
      }
    }
    const index = new Map<number, PartitionIndex>();
    for (const [p, fr] of by) {
      fr.sort((a, b) => a.minOffset - b.minOffset || a.maxOffset - b.maxOffset);
      index.set(p, { files: fr, runs: runsOf(fr) });
    }
    this.index = index;
  }
}

/** The ranges an add states itself: its tag, or its stats when it holds one partition; null when neither. */
export function rangesOf(f: AddFile): PartitionRange[] | null {
  const tagged = decodePartitionRanges(f.tags?.[PARTITION_RANGES_TAG]);
  if (tagged) return tagged;
  if (!f.stats) return null;
  let s: { numRecords?: number; minValues?: Record<string, unknown>; maxValues?: Record<string, unknown> };
  try {
    s = JSON.parse(f.stats) as typeof s;
  } catch {
    return null;
  }
  if (s.numRecords === 0) return [];
  const min = s.minValues ?? {};
  const max = s.maxValues ?? {};
  const num = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) ? v : null);
  const p = num(min.partition);
  const lo = num(min.offset);
  const hi = num(max.offset);
  if (p === null || p !== num(max.partition) || lo === null || hi === null || typeof s.numRecords !== 'number') return null;
  const t0 = typeof min.timestamp === 'string' ? Date.parse(min.timestamp) : NaN;
  const t1 = typeof max.timestamp === 'string' ? Date.parse(max.timestamp) : NaN;
  return [
    {
      partition: p,
      minOffset: lo,
      maxOffset: hi,
      records: s.numRecords,
      minTimestampMs: Number.isNaN(t0) ? Number.MIN_SAFE_INTEGER : t0,
      // unknown: never skipped by a lookup by time
      maxTimestampMs: Number.isNaN(t1) ? Number.MAX_SAFE_INTEGER : t1,
      bytes: f.size,
    },
  ];
}

/** Files sorted by minOffset merged into disjoint runs of overlapping ones. */
export function runsOf(files: readonly FileRange[]): Run[] {
  const runs: Run[] = [];
  let cur: Run | undefined;
  for (const f of files) {
    if (cur && f.minOffset <= cur.maxOffset) {
      cur.paths.push(f.path);
      cur.maxOffset = Math.max(cur.maxOffset, f.maxOffset);
      cur.minTimestampMs = Math.min(cur.minTimestampMs, f.minTimestampMs);
      cur.maxTimestampMs = Math.max(cur.maxTimestampMs, f.maxTimestampMs);
    } else {
      if (cur) runs.push(cur);
      cur = { key: '', paths: [f.path], minOffset: f.minOffset, maxOffset: f.maxOffset, minTimestampMs: f.minTimestampMs, maxTimestampMs: f.maxTimestampMs };
    }
  }
  if (cur) runs.push(cur);
  for (const r of runs) r.key = r.paths.length === 1 ? r.paths[0]! : [...r.paths].sort().join('\n');
  return runs;
}

/** Index of the first run whose maxOffset >= offset (runs.length when none). */
export function firstRunAtOrAfter(runs: readonly Run[], offset: number): number {
  let lo = 0;
  let hi = runs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (runs[mid]!.maxOffset < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
