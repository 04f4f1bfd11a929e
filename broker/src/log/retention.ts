// Enforces retention.ms and retention.bytes on led partitions by moving the
// log start offset and trimming whole batches (XTRIM MINID), and expires idle
// idempotent producers. Archived topics are never trimmed past what the
// archiver has committed to the lake.
//
// Tiered topics (remote.storage.enable=true, KIP-405): Redis keeps
// local.retention.* (-2: retention.*) of what the archiver committed, and
// retention.* is the total over both tiers: past it the Kafka-visible log
// start moves through the lake, one data file's share of the partition at a
// time (Kafka deletes whole remote segments). The lake's rows stay for SQL.
import type { Logger } from '../../../common/logger/logger.js';
import type { LogManager } from './log-manager.js';
import type { Partition } from './partition.js';
import type { RemoteLog } from '../storage/remote-log.js';
import type { TopicRecord } from '../storage/log-store.js';
import { readHeader } from '../record-batch/batch.js';

const PAGE = 256;

/** What one pass applies to a partition: its limits (-1: none) and whether the lake keeps what Redis drops. */
export interface RetentionLimits {
  retentionMs: number;
  retentionBytes: number;
  /** Never trim past the archiver's watermark. */
  archived: boolean;
  /** Trimmed offsets stay readable from the lake (the remote log start is kept). */
  keepRemote: boolean;
}

export class RetentionTask {
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  constructor(
    private readonly log: LogManager,
    private readonly logger: Logger,
    private readonly intervalMs: number,
    private readonly remote: RemoteLog | null = null,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.runOnce(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async runOnce(now = Date.now()): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const topics = await this.log.allTopics();
      for (const t of topics) {
        // Kafka applies retention.ms/retention.bytes only when cleanup.policy includes delete.
        const deletes = this.log.configValue(t, 'cleanup.policy').split(',').includes('delete');
        const retentionMs = deletes ? this.log.configNumber(t, 'retention.ms') : -1;
        const retentionBytes = deletes ? this.log.configNumber(t, 'retention.bytes') : -1;
        const tiered = this.log.isTiered(t);
        const copying = tiered && this.log.configValue(t, 'remote.log.copy.disable') !== 'true';
        const local: RetentionLimits = copying
          ? { retentionMs: localLimit(this.log.configNumber(t, 'local.retention.ms'), retentionMs), retentionBytes: localLimit(this.log.configNumber(t, 'local.retention.bytes'), retentionBytes), archived: true, keepRemote: true }
          : { retentionMs, retentionBytes, archived: tiered || this.log.configValue(t, 'archive.enable') === 'true', keepRemote: tiered };
        for (let i = 0; i < t.partitions; i++) {
          const p = this.log.cachedPartition(t.name, i);
          if (!p || !this.log.leadership.leads(p.unit)) continue; // only the leader trims and expires
          // Idempotent producers silent for producer.id.expiration.ms are forgotten (Kafka's producer expiry).
          const expired = await p.expireProducers(now);
          if (expired > 0) this.logger.info('producers expired', { topic: t.name, partition: i, count: expired });
          if (local.retentionMs >= 0 || local.retentionBytes >= 0) await this.enforce(p, local, now);
          if (tiered) await this.enforceRemote(t, p, retentionMs, retentionBytes, now);
          else if (p.remoteLogStartOffset !== null) {
            // remote.storage.enable went false (with remote.log.delete.on.disable=true): consumers lose the lake's offsets.
            await this.log.dropRemoteTier(p);
            this.logger.info('remote tier dropped', { topic: t.name, partition: i, logStartOffset: p.logStartOffset });
          }
        }
      }
    } catch (e) {
      this.logger.warn('retention pass failed', { err: e instanceof Error ? e.message : String(e) });
    } finally {
      this.running = false;
    }
  }

  /**
   * Finds the first batch to keep and advances the log start to it. The newest
   * batch is always kept. A topic with archive.enable=true, a tiered topic, or
   * a partition with an archiver watermark is never trimmed past that watermark.
   */
  async enforce(p: Partition, limits: RetentionLimits, now: number): Promise<void> {
    const { retentionMs, retentionBytes } = limits;
    await p.ensureLoaded();
    const store = this.log.store;
    // The archiver's watermark moves independently of this broker: read it fresh.
    const archivedOffset = (await store.tail(p.tp)).archivedOffset;
    p.archivedOffset = archivedOffset;
    const guarded = limits.archived || archivedOffset >= 0;
    let excessBytes = retentionBytes >= 0 ? (await store.sizeBytes(p.tp)) - retentionBytes : 0;
    let cut = -1;
    let from = p.logStartOffset;
    for (;;) {
      const page = await store.read(p.tp, from, PAGE);
      let stop = false;
      for (const b of page) {
        const h = readHeader(b.bytes);
        const next = b.baseOffset + h.lastOffsetDelta + 1;
        if (next >= p.highWatermark) { stop = true; break; } // newest batch stays
        if (guarded && next - 1 > archivedOffset) { stop = true; break; }
        const expired = retentionMs >= 0 && h.maxTimestamp < now - retentionMs;
        const oversize = excessBytes > 0;
        if (!expired && !oversize) { stop = true; break; }
        excessBytes -= b.bytes.length;
        cut = next;
      }
      if (stop || page.length < PAGE) break;
      from = cut;
    }
    if (cut > p.logStartOffset) {
      await this.log.advanceLogStart(p, cut, limits.keepRemote);
      this.logger.info('retention trimmed', { topic: p.tp.topic, partition: p.tp.partition, logStartOffset: cut, remoteLogStartOffset: p.remoteLogStartOffset });
    }
  }

  /**
   * The total retention of a tiered partition: the lake's share of it (one
   * segment per data file) goes, oldest first, while it is older than
   * retention.ms or the two tiers together hold more than retention.bytes.
   */
  async enforceRemote(t: TopicRecord, p: Partition, retentionMs: number, retentionBytes: number, now: number): Promise<void> {
    if (!this.remote || p.remoteLogStartOffset === null || (retentionMs < 0 && retentionBytes < 0)) return;
    const start = p.remoteLogStartOffset;
    const segments = (await this.remote.segments(p.tp, t.id)).filter((s) => s.maxOffset >= start && s.minOffset < p.logStartOffset);
    let excess = retentionBytes >= 0 ? segments.reduce((n, s) => n + s.bytes, 0) + (await this.log.store.sizeBytes(p.tp)) - retentionBytes : 0;
    let cut = start;
    for (const s of segments) {
      const expired = retentionMs >= 0 && s.maxTimestampMs < now - retentionMs;
      if (!expired && excess <= 0) break;
      excess -= s.bytes;
      cut = s.maxOffset + 1;
    }
    if (cut > start) {
      await this.log.advanceRemoteLogStart(p, Math.min(cut, p.logStartOffset));
      this.logger.info('retention moved the log start through the lake', { topic: t.name, partition: p.tp.partition, logStartOffset: p.earliestOffset });
    }
  }
}

/** local.retention.*: -2 means the total retention's value (Kafka's LogConfig). */
function localLimit(local: number, total: number): number {
  return local === -2 ? total : local;
}
