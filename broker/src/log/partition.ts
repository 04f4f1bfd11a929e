// One led topic-partition: offset assignment in memory, fenced appends,
// idempotent-producer checks and fetch wake-ups. All durable state is in the
// LogStore; this object can be dropped and rebuilt from the log tail.
import { ErrorCode, KafkaError, RunnelError, type KafkaErrorCode } from '../errors.js';
import { lastOffsetOf, readHeader, stampBatch, stampLogAppendTime } from '../record-batch/batch.js';
import type { LogStore, StoredBatch, TopicPartition } from '../storage/log-store.js';
import type { LeaseUnit } from '../storage/cluster-store.js';
import { ProducerStateTable } from './producer-state.js';

export interface AppendOutcome {
  errorCode: KafkaErrorCode;
  errorMessage: string | null;
  baseOffset: number;
  logAppendTime: number;
}

export interface AppendOptions {
  logAppendTime: boolean;
}

const BACKSCAN_PAGE = 64;

export class Partition {
  nextOffset = 0;
  /** End of the acknowledged log: consumers read below it. */
  highWatermark = 0;
  logStartOffset = 0;
  leaderEpoch = 0;
  archivedOffset = -1;
  readonly producers = new ProducerStateTable();
  private inflight = 0;
  private needsLoad = true;
  private loading: Promise<void> | null = null;
  private idle: Array<() => void> = [];
  private readonly waiters = new Set<() => void>();
  /** Running average of stored batch sizes, used to size reads. */
  avgBatchBytes = 16384;

  /** Leader epoch -> first offset written in it (OffsetForLeaderEpoch). */
  epochStarts = new Map<number, number>();
  readonly unit: LeaseUnit;

  constructor(readonly tp: TopicPartition, private readonly store: LogStore, private readonly scan: { entries: number; bytes: number }) {
    this.unit = { kind: 'partition', topic: tp.topic, partition: tp.partition };
  }

  get ready(): boolean { return !this.needsLoad; }

  async ensureLoaded(): Promise<void> {
    if (!this.needsLoad) return;
    if (!this.loading) {
      this.loading = this.load().finally(() => { this.loading = null; });
    }
    return this.loading;
  }

  private async load(): Promise<void> {
    while (this.inflight > 0) await new Promise<void>((r) => this.idle.push(r));
    const tail = await this.store.tail(this.tp);
    this.logStartOffset = tail.logStartOffset;
    this.archivedOffset = tail.archivedOffset;
    this.leaderEpoch = tail.leaderEpoch;
    if (tail.last) {
      const h = readHeader(tail.last.bytes);
      this.nextOffset = lastOffsetOf({ ...h, baseOffset: tail.last.baseOffset }) + 1;
      this.avgBatchBytes = Math.max(64, tail.last.bytes.length);
    } else {
      this.nextOffset = tail.logStartOffset;
    }
    this.highWatermark = this.nextOffset;
    await this.rebuildProducers();
    this.needsLoad = false;
  }

  /**
   * Rebuilds idempotent-producer state from the newest batches, as Kafka does
   * from its log. Bounded by entries and bytes: a producer silent for longer
   * than that window is forgotten and treated as new (KIP-360), as Kafka does
   * after producer.id.expiration.ms; retries arrive within seconds.
   */
  private async rebuildProducers(): Promise<void> {
    this.producers.clear();
    let before = this.nextOffset - 1;
    let entries = 0;
    let bytes = 0;
    while (before >= 0 && entries < this.scan.entries && bytes < this.scan.bytes) {
      const byBytes = Math.floor((this.scan.bytes - bytes) / Math.max(1, this.avgBatchBytes));
      const pageSize = Math.max(1, Math.min(BACKSCAN_PAGE, this.scan.entries - entries, byBytes));
      const page = await this.store.readBackwards(this.tp, before, pageSize);
      if (page.length === 0) break;
      for (const b of page) {
        this.producers.recordOlder({ ...readHeader(b.bytes), baseOffset: b.baseOffset });
        bytes += b.bytes.length;
      }
      entries += page.length;
      before = page[page.length - 1]!.baseOffset - 1;
    }
  }

  /**
   * Called right after this broker took the partition's lease with a freshly
   * bumped epoch: reload the tail, then record where the epoch starts.
   */
  async takeLeadership(epoch: number, history: { recordEpochStart(t: string, p: number, e: number, o: number): Promise<void>; epochHistory(t: string, p: number): Promise<Map<number, number>> }): Promise<void> {
    this.needsLoad = true;
    await this.ensureLoaded();
    this.leaderEpoch = epoch;
    await history.recordEpochStart(this.tp.topic, this.tp.partition, epoch, this.nextOffset);
    this.epochStarts = await history.epochHistory(this.tp.topic, this.tp.partition);
  }

  /** Marks the in-memory view stale; the next operation reloads it from the store. */
  invalidate(): void {
    this.needsLoad = true;
  }

  async append(batch: Buffer, opts: AppendOptions): Promise<AppendOutcome> {
    if (this.needsLoad) await this.ensureLoaded();
    const h = readHeader(batch);
    const seq = this.producers.check(h);
    if (seq.kind === 'duplicate') return { errorCode: ErrorCode.NONE, errorMessage: null, baseOffset: seq.baseOffset, logAppendTime: -1 };
    if (seq.kind === 'error') return { errorCode: seq.code, errorMessage: seq.message, baseOffset: -1, logAppendTime: -1 };

    const base = this.nextOffset;
    const now = opts.logAppendTime ? Date.now() : -1;
    stampBatch(batch, base, this.leaderEpoch);
    if (opts.logAppendTime) stampLogAppendTime(batch, now);
    this.nextOffset = base + h.lastOffsetDelta + 1;
    this.producers.record(h, base);
    this.inflight++;
    try {
      const result = await this.store.append(this.tp, base, batch);
      if (result === 'fenced') {
        this.needsLoad = true;
        return { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, errorMessage: 'append fenced: another writer moved the log tail', baseOffset: -1, logAppendTime: -1 };
      }
      this.avgBatchBytes = (this.avgBatchBytes * 7 + batch.length) / 8;
      const end = base + h.lastOffsetDelta + 1;
      if (end > this.highWatermark) this.highWatermark = end;
      this.wake();
      return { errorCode: ErrorCode.NONE, errorMessage: null, baseOffset: base, logAppendTime: now };
    } catch (e) {
      this.needsLoad = true;
      return { errorCode: ErrorCode.KAFKA_STORAGE_ERROR, errorMessage: e instanceof Error ? e.message : String(e), baseOffset: -1, logAppendTime: -1 };
    } finally {
      if (--this.inflight === 0 && this.idle.length) {
        const idle = this.idle;
        this.idle = [];
        for (const r of idle) r();
      }
    }
  }

  /**
   * Batches starting with the one containing `offset`, up to `maxBytes`
   * (at least one whole batch, KIP-74). Throws KafkaError for out-of-range.
   */
  async read(offset: number, maxBytes: number): Promise<StoredBatch[]> {
    if (this.needsLoad) await this.ensureLoaded();
    const hw = this.highWatermark;
    if (offset < this.logStartOffset || offset > hw) throw new KafkaError(ErrorCode.OFFSET_OUT_OF_RANGE);
    if (offset === hw) return [];
    const count = Math.max(1, Math.min(1000, Math.floor(maxBytes / this.avgBatchBytes)));
    let batches: StoredBatch[];
    try {
      batches = await this.store.read(this.tp, offset, count);
    } catch (e) {
      throw e instanceof RunnelError ? new KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, e.message) : e;
    }
    const out: StoredBatch[] = [];
    let bytes = 0;
    for (const b of batches) {
      if (b.baseOffset >= hw) break; // written but not yet acknowledged
      const last = b.baseOffset + b.bytes.readInt32BE(23);
      if (last < offset) continue;
      if (out.length > 0 && bytes + b.bytes.length > maxBytes) break;
      out.push(b);
      bytes += b.bytes.length;
    }
    return out;
  }

  /**
   * OffsetForLeaderEpoch: the largest known epoch <= `epoch` and the offset
   * where it ended (the start of the next epoch, or the log end for the
   * current one). Unknown (older than all history): -1/-1, as Kafka answers.
   */
  endOffsetForEpoch(epoch: number): { epoch: number; endOffset: number } {
    if (epoch >= this.leaderEpoch) return epoch === this.leaderEpoch ? { epoch, endOffset: this.highWatermark } : { epoch: -1, endOffset: -1 };
    const known = [...this.epochStarts.keys()].filter((e) => e <= epoch).sort((a, b) => b - a);
    const found = known[0];
    if (found === undefined) return { epoch: -1, endOffset: -1 };
    const later = [...this.epochStarts].filter(([e]) => e > found).sort((a, b) => a[0] - b[0]);
    return { epoch: found, endOffset: later.length ? later[0]![1] : this.highWatermark };
  }

  onAppend(fn: () => void): () => void {
    this.waiters.add(fn);
    return () => this.waiters.delete(fn);
  }

  private wake(): void {
    if (this.waiters.size === 0) return;
    for (const w of [...this.waiters]) w();
  }
}
