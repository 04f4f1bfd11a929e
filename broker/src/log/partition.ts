// One led topic-partition: offset assignment in memory, fenced appends,
// idempotent-producer checks, transaction markers and the last stable offset,
// and fetch wake-ups. All durable state is in the LogStore; this object can be
// dropped and rebuilt from the log tail and the stored producer states.
import { ErrorCode, KafkaError, RunnelError, kafkaCodeOf, type KafkaErrorCode } from '../../../common/errors.js';
import { lastOffsetOf, readHeader, stampBatch, stampLogAppendTime, type BatchHeader } from '../record-batch/batch.js';
import { fetchBatchOf, type AbortedTxn, type AppendRequest, type FetchBatch, type LogStore, type StoredBatch, type TopicPartition } from '../storage/log-store.js';
import type { LeaseUnit } from '../storage/cluster-store.js';
import type { TxnMarker } from './txn-marker.js';
import { ProducerStateTable } from './producer-state.js';
import { leaseUnitOf } from './internal-topics.js';
import { buildMarkerBatch } from './txn-marker.js';
import { ReadAhead, ReadAheadBudget, BUDGET_BYTES } from './read-ahead.js';
import type { SequenceHoles } from './sequence-holes.js';
import { TailCache, type TailSlice } from './tail-cache.js';

/** Most aborted transactions one read_committed fetch looks at (a consumer far behind many aborts gets the first ones; see docs). */
const ABORTED_SCAN_LIMIT = 1000;

export interface AppendOutcome {
  errorCode: KafkaErrorCode;
  errorMessage: string | null;
  baseOffset: number;
  logAppendTime: number;
  /** Set when visibility was deferred: call settle() once the acks level's durability is confirmed. */
  pending: PendingAppend | null;
  /** The batch was stored before (an idempotent retry answered with its first offset). */
  duplicate?: true;
}

export interface AppendOptions {
  logAppendTime: boolean;
  /**
   * The records become visible to consumers only after settle(): acks=all
   * with WAIT/WAITAOF. Otherwise they are visible once Redis stored them.
   */
  deferVisibility?: boolean;
}

/** Why acks=all could not be answered with success (NOT_ENOUGH_REPLICAS[_AFTER_APPEND], KAFKA_STORAGE_ERROR). */
export interface ReplicaShortfall {
  errorCode: KafkaErrorCode;
  errorMessage: string;
}

/** An append in flight, in log order; the high watermark moves over a prefix of settled ones. */
export interface PendingAppend {
  readonly end: number;
  settled: boolean;
  failed: boolean;
}

/** Where leader epochs' start offsets are kept (OffsetForLeaderEpoch). */
export interface EpochHistory {
  recordEpochStart(t: string, p: number, e: number, o: number): Promise<void>;
  epochHistory(t: string, p: number): Promise<Map<number, number>>;
}

export interface PartitionOptions {
  producerIdExpirationMs: number;
  /** Shared by all partitions of a broker (fetch.read.ahead.bytes); a partition made alone gets its own. */
  readAheadBudget?: ReadAheadBudget;
  /** Shared by all partitions of a broker: producer sequences still to be retried (see sequence-holes.ts). */
  sequenceHoles?: SequenceHoles;
  /** Shared by all partitions of a broker (log.tail.cache.bytes); a partition made alone gets none (0 bytes). */
  tailCache?: TailCache;
}

export class Partition {
  nextOffset = 0;
  /** End of the visible log: every offset below it is stored with the durability its acks level promised. */
  highWatermark = 0;
  /** The start of what Redis holds (Kafka's local log start offset on a tiered topic); moving it drops older batches from the tail cache. */
  get logStartOffset(): number { return this.logStart; }
  set logStartOffset(v: number) {
    this.logStart = v;
    this.tailCache.dropEndingBefore(v);
  }
  private logStart = 0;
  /** Tiered topics: the Kafka-visible log start when below logStartOffset (the offsets between are in the lake); null: none. */
  remoteLogStartOffset: number | null = null;
  /** The epoch this broker writes with; the append script rejects any other. */
  leaderEpoch = 0;
  archivedOffset = -1;
  /** Compacted topics: offsets below this have been compacted (the compacted prefix); never served from the tail cache. */
  get cleanedTo(): number { return this.cleaned; }
  set cleanedTo(v: number) {
    this.cleaned = v;
    this.tailCache.dropStartingBefore(v);
  }
  private cleaned = 0;
  /** Bytes of batches this broker appended since it loaded the partition (the cleaner's segment.bytes roll). */
  appendedBytes = 0;
  readonly producers: ProducerStateTable;
  /** Appends not yet settled or failed, oldest first. */
  private readonly queue: PendingAppend[] = [];
  /** Epoch of the lease this broker took; null when running without leases (adopts the stored epoch). */
  private leaseEpoch: number | null = null;
  private needsLoad = true;
  private loading: Promise<void> | null = null;
  private idle: Array<() => void> = [];
  private readonly waiters = new Set<() => void>();
  /** Running average of stored batch sizes, used to size reads. */
  avgBatchBytes = 16384;
  /** Largest lastOffset in the aborted-transaction index (-1: empty): read_committed fetches past it skip the index. */
  lastAbortedOffset = -1;

  /** Leader epoch -> first offset written in it (OffsetForLeaderEpoch). */
  epochStarts = new Map<number, number>();
  readonly unit: LeaseUnit;

  constructor(readonly tp: TopicPartition, private readonly store: LogStore, private readonly opts: PartitionOptions = { producerIdExpirationMs: 86_400_000 }) {
    this.unit = leaseUnitOf(tp);
    this.producers = new ProducerStateTable(opts.producerIdExpirationMs);
    this.ahead = new ReadAhead(opts.readAheadBudget ?? new ReadAheadBudget(BUDGET_BYTES));
    this.tailCache = (opts.tailCache ?? new TailCache(0)).slice();
  }

  /** The batches this broker appended last, as Redis stored them (tail-cache.ts). */
  readonly tailCache: TailSlice;

  /** The partition is no longer served here (released, its topic deleted): its cached batches go. */
  close(): void {
    this.tailCache.close();
    this.ahead.clear();
  }

  get ready(): boolean { return !this.needsLoad; }

  async ensureLoaded(): Promise<void> {
    if (!this.needsLoad) return;
    if (!this.loading) {
      this.loading = this.load().finally(() => { this.loading = null; });
    }
    return this.loading;
  }

  /**
   * Reads the stored log end, offsets and producer states. Waits for appends
   * in flight first, so the stored end is final. Everything stored counts as
   * visible: it survived whatever made this broker reload.
   */
  private async load(): Promise<void> {
    while (this.queue.length > 0) await new Promise<void>((r) => this.idle.push(r));
    this.generation++;
    this.ahead.clear();
    this.tailCache.clear();
    const [tail, producers, lastAborted] = await Promise.all([this.store.tail(this.tp), this.store.producerStates(this.tp), this.store.lastAbortedOffset(this.tp)]);
    this.lastAbortedOffset = lastAborted;
    this.logStartOffset = tail.logStartOffset;
    this.archivedOffset = tail.archivedOffset;
    this.cleanedTo = tail.cleanedTo;
    this.remoteLogStartOffset = tail.remoteLogStartOffset !== null && tail.remoteLogStartOffset < tail.logStartOffset ? tail.remoteLogStartOffset : null;
    if (this.leaseEpoch === null) this.leaderEpoch = tail.leaderEpoch;
    else if (tail.leaderEpoch < this.leaseEpoch) {
      // Redis lost the epoch this broker took with its lease (a primary failed
      // over before replicating it): put it back, or every append stays fenced.
      // A newer leader's higher epoch is never lowered, so it still fences us.
      await this.store.restoreLeaderEpoch(this.tp, this.leaseEpoch);
    }
    if (tail.last) this.avgBatchBytes = Math.max(64, tail.last.bytes.length);
    if (tail.nextOffset !== null) {
      this.nextOffset = tail.nextOffset;
    } else if (tail.last) {
      const h = readHeader(tail.last.bytes);
      this.nextOffset = lastOffsetOf({ ...h, baseOffset: tail.last.baseOffset }) + 1;
    } else {
      this.nextOffset = tail.logStartOffset;
    }
    this.highWatermark = this.nextOffset;
    this.producers.load(producers);
    this.needsLoad = false;
  }

  /**
   * Called right after this broker took the partition's lease with a freshly
   * bumped epoch: writes from now on carry that epoch (older leaders are
   * fenced by it), then the tail is reloaded and the epoch's start recorded.
   */
  async takeLeadership(epoch: number, history: EpochHistory): Promise<void> {
    this.leaseEpoch = epoch;
    this.leaderEpoch = epoch;
    this.needsLoad = true;
    await this.ensureLoaded();
    await history.recordEpochStart(this.tp.topic, this.tp.partition, epoch, this.nextOffset);
    this.epochStarts = await history.epochHistory(this.tp.topic, this.tp.partition);
  }

  /**
   * `__consumer_offsets` partitions: led under the coordinator slot's lease,
   * whose coordinator epoch is the leader epoch. Takes leadership with it the
   * first time it is seen (once, however many callers wait).
   */
  adoptEpoch(epoch: number, history: EpochHistory): Promise<void> {
    if (this.leaseEpoch === epoch && !this.adopting) return this.ensureLoaded();
    if (this.adopting?.epoch === epoch) return this.adopting.done;
    const done = this.takeLeadership(epoch, history).finally(() => { if (this.adopting?.done === done) this.adopting = null; });
    this.adopting = { epoch, done };
    return done;
  }

  private adopting: { epoch: number; done: Promise<void> } | null = null;

  /** Marks the in-memory view stale; the next operation reloads it from the store. */
  invalidate(): void {
    this.needsLoad = true;
    this.generation++;
    this.ahead.clear();
    this.tailCache.clear();
  }

  /** Sequential fetches' next reads, started early (see read-ahead.ts). */
  readonly ahead: ReadAhead<FetchBatch>;
  /** Bumped by every reload: a read ahead from before it is never served. */
  private generation = 0;

  /** The state a read ahead is valid for: this load of the partition, its epoch, and its compacted prefix. */
  private aheadStamp(): string {
    return `${this.generation}:${this.leaderEpoch}:${this.cleanedTo}`;
  }

  /**
   * Appends one batch at the log end. `h` is the batch's header when the
   * caller has read it already (the produce path's validation step).
   */
  async append(batch: Buffer, opts: AppendOptions, h: BatchHeader = readHeader(batch)): Promise<AppendOutcome> {
    if (this.needsLoad) await this.ensureLoaded();
    const now = Date.now();
    const seq = this.producers.check(h, now);
    if (seq.kind === 'duplicate') return { errorCode: ErrorCode.NONE, errorMessage: null, baseOffset: seq.baseOffset, logAppendTime: -1, pending: null, duplicate: true };
    if (seq.kind === 'error') return { errorCode: seq.code, errorMessage: seq.message, baseOffset: -1, logAppendTime: -1, pending: null };
    if (seq.unknownProducer && h.baseSequence !== 0) {
      const hole = this.opts.sequenceHoles?.below(this.tp, h.producerId, h.producerEpoch, h.baseSequence, now) ?? null;
      if (hole !== null) {
        const message = `sequence ${hole} of producer ${h.producerId} failed here and is not appended yet: it must be retried before sequence ${h.baseSequence}`;
        return { errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, errorMessage: message, baseOffset: -1, logAppendTime: -1, pending: null };
      }
    }

    const base = this.nextOffset;
    const end = base + h.lastOffsetDelta + 1;
    const appendTime = opts.logAppendTime ? now : -1;
    stampBatch(batch, base, this.leaderEpoch);
    if (opts.logAppendTime) stampLogAppendTime(batch, appendTime);
    this.nextOffset = end;
    // The transaction opens at this batch: from now on the last stable offset stays at `base`.
    const begins = h.isTransactional && this.producers.beginsTransaction(h, now);
    const state = this.producers.record(h, base, now);
    return this.appendStamped(base, end, batch, state === null ? null : { id: h.producerId, state }, begins ? { kind: 'begin', firstOffset: base } : null, opts, appendTime);
  }

  /**
   * Appends a transaction marker (a control batch, Kafka's WriteTxnMarkers on
   * the leader) through the same fenced append. It ends the producer's open
   * transaction here: an abort also enters [first offset, marker offset] in
   * the aborted index, in the same Redis transaction. A marker for a producer
   * without an open transaction is still written (Kafka does) and changes only
   * the producer's epochs. Refused markers: INVALID_PRODUCER_EPOCH (older
   * producer epoch), TRANSACTION_COORDINATOR_FENCED (older coordinator epoch).
   */
  async appendMarker(marker: TxnMarker): Promise<AppendOutcome> {
    if (this.needsLoad) await this.ensureLoaded();
    const now = Date.now();
    const base = this.nextOffset;
    const plan = this.producers.planMarker(marker.producerId, marker, base, now);
    if ('code' in plan) return { errorCode: plan.code, errorMessage: plan.message, baseOffset: -1, logAppendTime: -1, pending: null };
    const batch = buildMarkerBatch(marker, now);
    stampBatch(batch, base, this.leaderEpoch);
    this.nextOffset = base + 1;
    const c = plan.completed;
    const txn = c ? { kind: 'end' as const, aborted: c.aborted ? { producerId: c.producerId, firstOffset: c.firstOffset, lastOffset: c.lastOffset } : null } : null;
    return this.appendStamped(base, base + 1, batch, { id: marker.producerId, state: plan.state }, txn, { logAppendTime: false }, -1, () => {
      // Only now, with the marker stored, may the last stable offset pass the transaction.
      this.producers.applyMarker(plan);
      if (c?.aborted) this.lastAbortedOffset = Math.max(this.lastAbortedOffset, c.lastOffset);
    });
  }

  /** The fenced append of one stamped batch at `base`; `stored` runs once Redis holds it, before it becomes visible. */
  private async appendStamped(
    base: number, end: number, batch: Buffer, producer: AppendRequest['producer'], txn: AppendRequest['txn'], opts: AppendOptions, appendTime: number, stored?: () => void,
  ): Promise<AppendOutcome> {
    const entry: PendingAppend = { end, settled: false, failed: false };
    this.queue.push(entry);
    try {
      const result = await this.store.append(this.tp, { epoch: this.leaderEpoch, baseOffset: base, nextOffset: end, batch, producer, txn });
      if (result !== 'ok') {
        this.needsLoad = true;
        this.tailCache.clear();
        this.fail(entry);
        const why = `append fenced at base ${base}, epoch ${this.leaderEpoch} (${result.fenced}): this broker no longer leads the partition in its epoch, or the log end moved`;
        return { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, errorMessage: why, baseOffset: -1, logAppendTime: -1, pending: null };
      }
      this.avgBatchBytes = (this.avgBatchBytes * 7 + batch.length) / 8;
      this.appendedBytes += batch.length;
      // Stored: the batch may be served from memory, once visible (reads are cut at the high watermark / LSO).
      if (!this.needsLoad) this.tailCache.append(base, end - base - 1, batch);
      stored?.();
      if (!opts.deferVisibility) this.settle(entry);
      return { errorCode: ErrorCode.NONE, errorMessage: null, baseOffset: base, logAppendTime: appendTime, pending: opts.deferVisibility ? entry : null };
    } catch (e) {
      this.needsLoad = true;
      this.tailCache.clear();
      this.fail(entry);
      return { errorCode: ErrorCode.KAFKA_STORAGE_ERROR, errorMessage: e instanceof Error ? e.message : String(e), baseOffset: -1, logAppendTime: -1, pending: null };
    }
  }

  /**
   * acks=all before the append (Kafka's Partition.appendRecordsToLeader):
   * NOT_ENOUGH_REPLICAS unless min.insync.replicas - 1 Redis replicas are
   * connected to the primary that holds this partition (the primary counts as
   * Kafka's leader does). Null when the append may go on.
   */
  async checkReplicasConnected(minIsr: number): Promise<ReplicaShortfall | null> {
    if ((await this.store.connectedReplicas(this.tp)) >= minIsr - 1) return null;
    return { errorCode: ErrorCode.NOT_ENOUGH_REPLICAS, errorMessage: `min.insync.replicas=${minIsr} needs ${minIsr - 1} Redis replicas` };
  }

  /**
   * acks=all after the append (Kafka's checkEnoughReplicasReachOffset): waits
   * up to `timeoutMs` for min.insync.replicas - 1 Redis replicas, and with
   * `aof` for the primary's AOF fsync, to confirm the partition's writes so
   * far. `coverStored`: see LogStore.waitReplicas. Null when confirmed.
   * An unconfirmed append may be lost by a Redis failover. The in-memory view
   * (log end, producer sequences) is then reloaded from the store before the
   * next append: otherwise the producer's retry would be answered as a
   * duplicate of a batch the promoted replica never got.
   */
  async confirmReplicas(minIsr: number, aof: boolean, timeoutMs: number, coverStored: boolean): Promise<ReplicaShortfall | null> {
    const replicas = minIsr - 1;
    try {
      const w = await this.store.waitReplicas(this.tp, replicas, aof, timeoutMs, coverStored);
      if (w.replicas < replicas) {
        this.invalidate();
        return { errorCode: ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, errorMessage: `${w.replicas} of ${replicas} Redis replicas confirmed within ${timeoutMs} ms` };
      }
      if (aof && !w.aofLocal) {
        this.invalidate();
        return { errorCode: ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, errorMessage: `the Redis primary did not confirm the AOF fsync within ${timeoutMs} ms` };
      }
      return null;
    } catch (e) {
      this.invalidate();
      return { errorCode: ErrorCode.KAFKA_STORAGE_ERROR, errorMessage: e instanceof Error ? e.message : String(e) };
    }
  }

  /** The durability the append's acks level promised is confirmed: it may become visible. */
  settle(entry: PendingAppend): void {
    if (entry.settled || entry.failed) return;
    entry.settled = true;
    this.advance();
  }

  private fail(entry: PendingAppend): void {
    entry.failed = true;
    this.advance();
  }

  /** Moves the high watermark over the settled prefix of the queue; failed appends never become visible. */
  private advance(): void {
    let moved = false;
    while (this.queue.length > 0 && (this.queue[0]!.settled || this.queue[0]!.failed)) {
      const e = this.queue.shift()!;
      if (e.settled && !this.needsLoad && e.end > this.highWatermark) {
        this.highWatermark = e.end;
        moved = true;
      }
    }
    if (moved) this.wake();
    if (this.queue.length === 0 && this.idle.length) {
      const idle = this.idle;
      this.idle = [];
      for (const r of idle) r();
    }
  }

  /** Kafka's log start offset: the first offset a consumer may fetch, in the lake on a tiered topic. */
  get earliestOffset(): number {
    return this.remoteLogStartOffset ?? this.logStartOffset;
  }

  /** Forgets producers silent for producer.id.expiration.ms, here and in the store (only while leading in this epoch). */
  async expireProducers(now = Date.now()): Promise<number> {
    if (this.needsLoad) return 0;
    const ids = this.producers.expire(now);
    if (ids.length === 0) return 0;
    return this.store.expireProducers(this.tp, this.leaderEpoch, now - this.opts.producerIdExpirationMs, ids);
  }

  /**
   * Kafka's last stable offset: the first offset of the oldest open
   * transaction (never below the log start, as in UnifiedLog), else the high
   * watermark. read_committed consumers read below it.
   */
  get lastStableOffset(): number {
    const unstable = this.producers.firstUnstableOffset();
    return unstable === null ? this.highWatermark : Math.min(Math.max(unstable, this.logStartOffset), this.highWatermark);
  }

  /**
   * Batches starting with the one containing `offset`, up to `maxBytes`
   * (at least one whole batch, KIP-74), below the high watermark, or below
   * the last stable offset for read_committed (`committed`). Throws
   * KafkaError for out-of-range (always measured against the high watermark).
   */
  async read(offset: number, maxBytes: number, committed = false, seen?: { highWatermark: number; lastStableOffset: number }): Promise<StoredBatch[]> {
    return this.readBounded(offset, maxBytes, committed, seen, (count) => this.store.read(this.tp, offset, count), (b) => b.bytes.readInt32BE(23), (b) => b.bytes.length);
  }

  /**
   * read() for Fetch: the batches as pieces (LogStore.readForFetch where the
   * store has it), taken from a read started ahead at `offset` when there is
   * one (readAhead).
   */
  async readForFetch(offset: number, maxBytes: number, committed = false, seen?: { highWatermark: number; lastStableOffset: number }): Promise<FetchBatch[]> {
    const fetch = async (count: number, bound: number): Promise<FetchBatch[]> => {
      // Never from memory below the compacted prefix (the cleaner rewrote those offsets in Redis).
      const cached = this.tailCache.read(offset, count, bound, offset >= this.cleanedTo);
      if (cached) return cached;
      const ahead = this.ahead.take(offset, count, this.aheadStamp());
      const got = ahead ? await ahead : null;
      return got ?? this.readStored(offset, count);
    };
    return this.readBounded(offset, maxBytes, committed, seen, fetch, (b) => b.lastOffsetDelta, (b) => b.size);
  }

  /**
   * Starts the store read of the next fetch at `offset` (where the answer just
   * handed out ended), for the same `maxBytes`: see read-ahead.ts. Only where
   * records are already visible there; at the tail the fetch long-polls instead.
   */
  readAhead(offset: number, maxBytes: number, committed: boolean): void {
    if (this.needsLoad || offset < this.cleanedTo) return;
    if (offset >= (committed ? this.lastStableOffset : this.highWatermark)) return;
    if (this.tailCache.holds(offset)) return; // the next fetch is answered from memory
    const count = this.readCount(maxBytes);
    this.ahead.start(offset, count, this.aheadStamp(), Math.min(maxBytes, Math.ceil(count * this.avgBatchBytes)), () => this.readStored(offset, count));
  }

  private readStored(offset: number, count: number): Promise<FetchBatch[]> {
    const store = this.store;
    return store.readForFetch ? store.readForFetch(this.tp, offset, count) : store.read(this.tp, offset, count).then((bs) => bs.map(fetchBatchOf));
  }

  /** How many stored batches a read of `maxBytes` asks for, by the running average batch size. */
  private readCount(maxBytes: number): number {
    return Math.max(1, Math.min(1000, Math.floor(maxBytes / this.avgBatchBytes)));
  }

  private async readBounded<B extends { baseOffset: number }>(
    offset: number, maxBytes: number, committed: boolean, seen: { highWatermark: number; lastStableOffset: number } | undefined,
    fetch: (count: number, bound: number) => Promise<B[]>, lastOffsetDelta: (b: B) => number, size: (b: B) => number,
  ): Promise<B[]> {
    if (this.needsLoad) await this.ensureLoaded();
    const hw = this.highWatermark;
    if (offset < this.logStartOffset || offset > hw) throw new KafkaError(ErrorCode.OFFSET_OUT_OF_RANGE);
    const bound = committed ? this.lastStableOffset : hw;
    // The marks the read was bounded by, for the response: Kafka reports the
    // same ones, so a consumer that got everything up to them sees their end.
    if (seen) { seen.highWatermark = hw; seen.lastStableOffset = this.lastStableOffset; }
    if (offset >= bound) return [];
    const count = this.readCount(maxBytes);
    let batches: B[];
    try {
      batches = await fetch(count, bound);
    } catch (e) {
      throw asKafkaError(e);
    }
    const out: B[] = [];
    let bytes = 0;
    for (const b of batches) {
      if (b.baseOffset >= bound) break; // written but not yet acknowledged (or, read_committed, not yet decided)
      const last = b.baseOffset + lastOffsetDelta(b);
      if (last < offset) continue;
      if (out.length > 0 && bytes + size(b) > maxBytes) break;
      out.push(b);
      bytes += size(b);
    }
    return out;
  }

  /**
   * read_committed: the aborted transactions that overlap [fetchOffset, upperOffset)
   * (Kafka's collectAbortedTransactions: lastOffset >= fetchOffset and
   * firstOffset < upperOffset), as the fetch response lists them.
   */
  async abortedTxns(fetchOffset: number, upperOffset: number): Promise<AbortedTxn[]> {
    if (this.lastAbortedOffset < fetchOffset) return []; // nothing aborted at or after the fetch: no Redis round trip
    let found: AbortedTxn[];
    try {
      found = await this.store.abortedTxns(this.tp, fetchOffset, ABORTED_SCAN_LIMIT);
    } catch (e) {
      throw asKafkaError(e);
    }
    return found.filter((a) => a.firstOffset < upperOffset);
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

/** A store failure as the KafkaError the partition's readers answer with (kafkaCodeOf); anything else as it is. */
function asKafkaError(e: unknown): unknown {
  if (!(e instanceof RunnelError)) return e;
  const code = kafkaCodeOf(e);
  return code === null ? e : new KafkaError(code, e.message);
}
