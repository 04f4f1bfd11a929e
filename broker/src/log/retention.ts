// Enforces retention.ms and retention.bytes on led partitions by moving the
// log start offset and trimming whole batches (XTRIM MINID), and expires idle
// idempotent producers. Archived topics are never trimmed past what the
// archiver has committed to the lake.
import type { Logger } from '../../../common/logger/logger.js';
import type { LogManager } from './log-manager.js';
import type { Partition } from './partition.js';
import { readHeader } from '../record-batch/batch.js';

const PAGE = 256;

export class RetentionTask {
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  constructor(private readonly log: LogManager, private readonly logger: Logger, private readonly intervalMs: number) {}

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
        const archived = this.log.configValue(t, 'archive.enable') === 'true';
        for (let i = 0; i < t.partitions; i++) {
          const p = this.log.cachedPartition(t.name, i);
          if (!p || !this.log.leadership.leads(p.unit)) continue; // only the leader trims and expires
          // Idempotent producers silent for producer.id.expiration.ms are forgotten (Kafka's producer expiry).
          const expired = await p.expireProducers(now);
          if (expired > 0) this.logger.info('producers expired', { topic: t.name, partition: i, count: expired });
          if (retentionMs >= 0 || retentionBytes >= 0) await this.enforce(p, retentionMs, retentionBytes, archived, now);
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
   * batch is always kept. A topic with archive.enable=true, or whose partition
   * has an archiver watermark, is never trimmed past that watermark.
   */
  async enforce(p: Partition, retentionMs: number, retentionBytes: number, archived: boolean, now: number): Promise<void> {
    await p.ensureLoaded();
    const store = this.log.store;
    // The archiver's watermark moves independently of this broker: read it fresh.
    const archivedOffset = (await store.tail(p.tp)).archivedOffset;
    p.archivedOffset = archivedOffset;
    const guarded = archived || archivedOffset >= 0;
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
      await this.log.advanceLogStart(p, cut);
      this.logger.info('retention trimmed', { topic: p.tp.topic, partition: p.tp.partition, logStartOffset: cut });
    }
  }
}
