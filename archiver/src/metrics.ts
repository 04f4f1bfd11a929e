// Counters, lake lag and commit times of one archiver process (Prometheus).
import { Counter, Histogram, Registry } from 'prom-client';
import { scrapeGauge, withProcessMetrics, type Sample } from '../../common/metrics/registry.js';
import { registerBuildInfo } from '../../common/metrics/build-info.js';
import type { TopicArchiver } from './topic-state.js';

export interface PartitionLag {
  topic: string;
  partition: number;
  /** highest offset committed to the lake, -1 if none */
  archivedOffset: number;
  /** log end offset seen in the stream, null if not known yet */
  logEndOffset: number | null;
  /** records in Redis not yet in the lake */
  lagRecords: number | null;
  /** age of the oldest record not yet in the lake, 0 when caught up */
  lagSeconds: number | null;
  /** a bad batch blocks the partition (records.stall.ts) */
  stalled: boolean;
  /** internal error code of the stall (RN4003, RN4007), null when not stalled */
  stallCode: string | null;
}

export interface ArchiverStats {
  commits: number;
  commitConflicts: number;
  commitsAborted: number;
  filesWritten: number;
  bytesWritten: number;
  recordsArchived: number;
  compactions: number;
  checkpoints: number;
  filesVacuumed: number;
  errors: number;
  /** distinct stored batches that stalled a partition (RN4003) */
  corruptBatches: number;
  /** distinct stored batches that stalled a partition because the lake cannot hold a record's timestamp (RN4007) */
  unencodableBatches: number;
  /** distinct torn Delta commit files that stalled a table (RN4008) */
  tornCommits: number;
}

export function emptyStats(): ArchiverStats {
  return {
    commits: 0,
    commitConflicts: 0,
    commitsAborted: 0,
    filesWritten: 0,
    bytesWritten: 0,
    recordsArchived: 0,
    compactions: 0,
    checkpoints: 0,
    filesVacuumed: 0,
    errors: 0,
    corruptBatches: 0,
    unencodableBatches: 0,
    tornCommits: 0,
  };
}

/** Lake lag of every partition in `topics`, sorted by topic and partition. */
export function partitionLag(topics: Iterable<TopicArchiver>, now: number): PartitionLag[] {
  const out: PartitionLag[] = [];
  for (const t of topics) {
    for (const ps of t.parts.values()) {
      const lagRecords = ps.logEnd === null ? null : Math.max(0, ps.logEnd - (ps.committed + 1));
      let lagSeconds: number | null = null;
      if (lagRecords === 0) lagSeconds = 0;
      else if (ps.pendingTs.length) lagSeconds = Math.max(0, (now - ps.pendingTs[0]![1]) / 1000);
      out.push({
        topic: t.topic,
        partition: ps.partition,
        archivedOffset: ps.committed,
        logEndOffset: ps.logEnd,
        lagRecords,
        lagSeconds,
        stalled: ps.stalled,
        stallCode: ps.stalled ? (ps.stall?.code ?? 'RN4003') : null,
      });
    }
  }
  return out.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
}

const STAT_METRICS: Record<keyof ArchiverStats, [name: string, help: string]> = {
  commits: ['runnel_archiver_commits_total', 'Delta commits made'],
  commitConflicts: ['runnel_archiver_commit_conflicts_total', 'Delta commits retried because another writer committed first'],
  commitsAborted: ['runnel_archiver_commits_aborted_total', 'Delta commits given up (the table moved on; its files are rewritten)'],
  filesWritten: ['runnel_archiver_files_written_total', 'Parquet data files committed'],
  bytesWritten: ['runnel_archiver_written_bytes_total', 'Bytes of Parquet data files uploaded to the lake'],
  recordsArchived: ['runnel_archiver_records_archived_total', 'Records committed to the lake'],
  compactions: ['runnel_archiver_compactions_total', 'Small-file compactions (OPTIMIZE) committed'],
  checkpoints: ['runnel_archiver_checkpoints_total', 'Delta checkpoints written'],
  filesVacuumed: ['runnel_archiver_files_vacuumed_total', 'Unreferenced files deleted by VACUUM'],
  errors: ['runnel_archiver_errors_total', 'Errors of the archiving loops (each one logged)'],
  corruptBatches: ['runnel_archiver_corrupt_batches_total', 'Distinct stored batches that stalled a partition (RN4003)'],
  unencodableBatches: ['runnel_archiver_unencodable_batches_total', 'Distinct stored batches that stalled a partition: a record timestamp the lake cannot hold (RN4007)'],
  tornCommits: ['runnel_archiver_torn_commits_total', 'Distinct torn Delta commit files that stalled a table (RN4008)'],
};

/** Delta commit times: 5 ms to 60 s (an S3 commit is a conditional PUT plus a list). */
const COMMIT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The archiver's metrics registry; commits are timed into it (commit.ts). */
export class ArchiverMetrics {
  readonly registry = new Registry();
  private readonly commitDuration = new Histogram<'outcome'>({
    name: 'runnel_archiver_commit_duration_seconds',
    help: 'Time to commit a Delta version (conflict retries included), by outcome (committed, aborted)',
    labelNames: ['outcome'],
    buckets: COMMIT_BUCKETS,
    registers: [this.registry],
  });

  private readonly decodeErrors = new Counter<'topic' | 'part' | 'reason'>({
    name: 'runnel_archiver_decode_errors_total',
    help: 'Records archived with decode_error set (typed columns): part value|key, reason not_wire_format|unknown_schema|unsupported_schema|corrupt',
    labelNames: ['topic', 'part', 'reason'],
    registers: [this.registry],
  });

  /** Counts committed records whose typed columns could not be decoded (`part:reason` -> records). */
  countDecodeErrors(topic: string, errors: Record<string, number>): void {
    for (const [k, n] of Object.entries(errors)) {
      const [part, reason] = k.split(':') as [string, string];
      this.decodeErrors.inc({ topic, part, reason }, n);
    }
  }

  /** Starts timing a commit; call the result with its outcome. */
  commitTimer(): (outcome: 'committed' | 'aborted') => void {
    const end = this.commitDuration.startTimer();
    return (outcome) => { end({ outcome }); };
  }
}

/** Counters, lake lag and process metrics of a running archiver, computed at each scrape. */
export function observeArchiver(
  registry: Registry,
  a: { lag(): PartitionLag[]; readonly stats: ArchiverStats; tableStalls?(): { topic: string; code: string }[] },
): void {
  withProcessMetrics(registry);
  registerBuildInfo(registry);
  for (const [k, [name, help]] of Object.entries(STAT_METRICS) as Array<[keyof ArchiverStats, [string, string]]>) {
    // The archiver counts in its stats object (also logged at stop); the counter reads it.
    new Counter({ name, help, registers: [registry], collect() { this.reset(); this.inc(a.stats[k]); } });
  }
  type L = 'topic' | 'partition';
  const perPartition = (value: (l: PartitionLag) => number | null) => (): Sample<L>[] =>
    a.lag().flatMap((l) => { const v = value(l); return v === null ? [] : [{ labels: { topic: l.topic, partition: l.partition }, value: v }]; });
  scrapeGauge(registry, 'runnel_archiver_lag_records', 'Records in Redis not yet committed to the lake', ['topic', 'partition'], perPartition((l) => l.lagRecords));
  scrapeGauge(registry, 'runnel_archiver_lag_seconds', 'Age of the oldest record not yet committed to the lake', ['topic', 'partition'], perPartition((l) => l.lagSeconds));
  scrapeGauge(registry, 'runnel_archiver_archived_offset', 'Highest offset committed to the lake', ['topic', 'partition'], perPartition((l) => l.archivedOffset));
  scrapeGauge(registry, 'runnel_archiver_table_stalled', 'Table archiving stopped at a Delta commit that cannot be read (1 = stalled; RN4008: torn)', ['topic', 'code'], () =>
    (a.tableStalls?.() ?? []).map((s) => ({ labels: { topic: s.topic, code: s.code }, value: 1 })));
  scrapeGauge(registry, 'runnel_archiver_partition_stalled', 'Partition archiving stopped at a batch that cannot be decoded or written to the lake (1 = stalled)', ['topic', 'partition', 'code'], () => stalledSamples(a.lag()));
}

/**
 * runnel_archiver_partition_stalled{topic,partition,code}: 1 while a bad batch
 * blocks the partition, else 0 (code "" then).
 */
export function stalledSamples(lag: PartitionLag[]): Sample<'topic' | 'partition' | 'code'>[] {
  return lag.map((l) => ({ labels: { topic: l.topic, partition: l.partition, code: l.stallCode ?? '' }, value: l.stalled ? 1 : 0 }));
}
