// Runs compaction passes over the compacted partitions this broker leads,
// one partition at a time (Kafka's log.cleaner.threads=1), every
// log.cleaner.backoff.ms.
//
// Segments: Redis streams have none, so the cleaner keeps Kafka's rule with
// a virtual one. The active segment of a partition starts where it last
// rolled; it rolls (everything before the log end becomes eligible) once it
// is segment.ms old or holds segment.bytes of appends, and once it is
// max.compaction.lag.ms old. The newest batch is never compacted. A broker
// that takes a partition over starts a new active segment at the clean point.
import type { BrokerConfig } from '../../config/config.js';
import type { Logger } from '../../../../common/logger/logger.js';
import type { LogManager } from '../log-manager.js';
import type { Partition } from '../partition.js';
import type { TopicRecord } from '../../storage/log-store.js';
import { cleanPartition, type CleanResult } from './cleaner.js';
import { crashPointsFrom } from '../../../../common/crash-points.js';

interface ActiveSegment {
  start: number;
  since: number;
  bytesAtRoll: number;
}

/** Kafka budgets 24 bytes per key in its map; a JavaScript Map entry of a 17-character key costs about 128. */
const BYTES_PER_KEY = 128;

export const isCompacted = (log: LogManager, t: TopicRecord): boolean => log.configValue(t, 'cleanup.policy').split(',').includes('compact');

export class CleanerTask {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly segments = new WeakMap<Partition, ActiveSegment>();
  private readonly crash = crashPointsFrom(process.env.RUNNEL_TEST_CLEANER_CRASH_POINTS);

  constructor(private readonly log: LogManager, private readonly logger: Logger, private readonly config: Pick<BrokerConfig, 'logCleanerBackoffMs' | 'logCleanerDedupeBufferSize'>) {}

  start(): void {
    this.timer = setInterval(() => void this.runOnce(), this.config.logCleanerBackoffMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  runOnce(now = Date.now()): Promise<void> {
    this.running ??= this.pass(now).finally(() => { this.running = null; });
    return this.running;
  }

  private async pass(now: number): Promise<void> {
    try {
      for (const t of await this.log.allTopics()) {
        if (!isCompacted(this.log, t)) continue;
        for (let i = 0; i < t.partitions; i++) {
          const p = this.log.cachedPartition(t.name, i);
          if (!p || !this.log.leadership.leads(p.unit) || !p.ready) continue; // only the leader compacts
          await this.cleanIfDue(t, p, now);
        }
      }
    } catch (e) {
      this.logger.warn('cleaner pass failed', { err: e instanceof Error ? e.message : String(e) });
    }
  }

  private async cleanIfDue(t: TopicRecord, p: Partition, now: number): Promise<void> {
    const num = (name: string): number => this.log.configNumber(t, name);
    let seg = this.segments.get(p);
    if (!seg || seg.start < p.cleanedTo) this.segments.set(p, (seg = { start: p.cleanedTo, since: now, bytesAtRoll: p.appendedBytes }));
    const age = now - seg.since;
    const due = age >= num('segment.ms') || age >= num('max.compaction.lag.ms') || p.appendedBytes - seg.bytesAtRoll >= num('segment.bytes');
    if (due && p.nextOffset > seg.start) Object.assign(seg, { start: p.nextOffset, since: now, bytesAtRoll: p.appendedBytes });

    let limit = seg.start;
    // Never compact what the archiver has not committed to the lake: it keeps the full history.
    // Its watermark moves independently of this broker (and may appear at any time): read it fresh.
    p.archivedOffset = (await this.log.store.tail(p.tp)).archivedOffset;
    if (this.log.configValue(t, 'archive.enable') === 'true' || p.archivedOffset >= 0) limit = Math.min(limit, p.archivedOffset + 1);
    if (limit <= p.cleanedTo) return;
    // min.cleanable.dirty.ratio: dirty bytes over dirty + compacted bytes (the dirty share of the log estimated by offsets).
    // As in Kafka, tombstones past their delete horizon go in the next pass that new dirty records start.
    const sizes = await this.log.store.compaction.sizes(p.tp);
    const dirty = sizes.log * Math.min(1, (limit - p.cleanedTo) / Math.max(1, p.nextOffset - p.cleanedTo));
    if (dirty / Math.max(1, dirty + sizes.compacted) < num('min.cleanable.dirty.ratio')) return;
    const result = await cleanPartition(this.log.store, p, {
      limit,
      deleteRetentionMs: num('delete.retention.ms'),
      minCompactionLagMs: num('min.compaction.lag.ms'),
      mapCapacity: Math.max(1, Math.floor(this.config.logCleanerDedupeBufferSize / BYTES_PER_KEY)),
      now,
      crash: this.crash,
    });
    if (result) this.report(p, result);
  }

  private report(p: Partition, r: CleanResult): void {
    if (r.outcome === 'fenced') {
      this.logger.info('compaction fenced: another leader or pass took the partition', { topic: p.tp.topic, partition: p.tp.partition });
      p.invalidate();
      return;
    }
    this.logger.info('compacted', {
      topic: p.tp.topic, partition: p.tp.partition, from: r.cleanedFrom, cleanedTo: r.cleanedTo,
      recordsRead: r.recordsRead, recordsKept: r.recordsKept, bytesRead: r.bytesRead, bytesWritten: r.bytesWritten, ms: r.durationMs,
    });
  }
}
