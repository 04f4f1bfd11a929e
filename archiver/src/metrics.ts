// Counters and lake lag of one archiver process.
import type { Gauge } from '../../broker/src/http/http-server.js';
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
  /** internal error code of the stall (RN4003), null when not stalled */
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

/**
 * runnel_archiver_partition_stalled{topic,partition,code}: 1 while a bad batch
 * blocks the partition, else 0 (code "" then).
 */
export function stalledGauge(lag: PartitionLag[]): Gauge {
  return {
    name: 'runnel_archiver_partition_stalled',
    help: 'Partition archiving stopped at a batch that cannot be decoded (1 = stalled)',
    samples: lag.map((l) => ({ labels: { topic: l.topic, partition: l.partition, code: l.stallCode ?? '' }, value: l.stalled ? 1 : 0 })),
  };
}
