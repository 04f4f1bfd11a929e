// The transaction coordinator, sans-IO: requests in, results out; state in a
// TxnStore, markers through a MarkerWriter, time from a Clock. It follows
// Apache Kafka's TransactionCoordinator (transitions.ts has the rules):
// requests on one transactional id run one at a time, every state change is
// stored (fenced by the slot's coordinator epoch) before it is answered, and a
// decided outcome is finished in the background until every partition has
// its marker. Transactional ids hash onto the group-coordinator slots.
import { ErrorCode, KafkaError, type KafkaErrorCode } from '../../../common/errors.js';
import type { Logger } from '../../../common/logger/logger.js';
import type { Cancel, Clock } from '../../../common/clock.js';
import type { TopicPartition } from '../storage/log-store.js';
import type { MarkerWriter } from './types.js';
import { isPrepare, parseTp, tpKey, TXN_V2, type TxnMetadata, type TxnState } from './txn-metadata.js';
import { TxnCoordinatorFencedError, type TxnStore } from './txn-store.js';
import { bumped, decideAdd, decideEnd, decideInit, endedWith, fenced, completed, prepared, timedOut, verifyPartition, type InitRequest } from './transitions.js';
import { writeAllMarkers } from './markers.js';

export interface TxnSettings {
  /** transaction.max.timeout.ms */
  maxTimeoutMs: number;
  /** transaction.abort.timed.out.transaction.cleanup.interval.ms */
  abortTimedOutIntervalMs: number;
  /** How often slots newly taken over are scanned for transactions to finish (and to time out). */
  takeoverScanMs: number;
}

export const DEFAULT_TXN_SETTINGS: TxnSettings = { maxTimeoutMs: 900_000, abortTimedOutIntervalMs: 10_000, takeoverScanMs: 500 };

export interface TxnCoordinatorOptions {
  settings?: Partial<TxnSettings>;
  logger?: Logger;
  /** The coordinator slot of a transactional id (Leadership.coordinatorSlot). */
  slotOf(transactionalId: string): number;
  /** The coordinator epoch of a slot this broker coordinates now, else null. */
  epochOf(slot: number): number | null;
  /** Slots this broker coordinates now. */
  ownedSlots(): number[];
  /** The `__consumer_offsets` partition of a group (AddOffsetsToTxn). */
  offsetsPartitionOf(groupId: string): TopicPartition;
}

export interface TxnDescription {
  errorCode: KafkaErrorCode;
  transactionalId: string;
  state: TxnState | '';
  timeoutMs: number;
  txnStartMs: number;
  producerId: number;
  producerEpoch: number;
  partitions: TopicPartition[];
}

interface Cached { meta: TxnMetadata | null; epoch: number }

export class TransactionCoordinator {
  readonly settings: TxnSettings;
  private readonly logger: Logger | undefined;
  private readonly cache = new Map<string, Cached>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly completing = new Set<string>();
  /** Slot -> the coordinator epoch under which its stored transactions were scanned. */
  private readonly scanned = new Map<number, number>();
  private timers: Cancel[] = [];
  private stopped = false;

  constructor(private readonly store: TxnStore, private readonly markers: MarkerWriter, private readonly clock: Clock, private readonly opts: TxnCoordinatorOptions) {
    this.settings = { ...DEFAULT_TXN_SETTINGS, ...opts.settings };
    this.logger = opts.logger;
  }

  /** Starts the timeout pass and the scan of slots taken over. */
  start(): void {
    const every = (ms: number, fn: () => Promise<unknown>, what: string): void => {
      const tick = (): void => {
        const cancel = this.clock.schedule(ms, () => {
          fn().catch((e) => this.logger?.warn(`${what} failed`, { err: String(e) })).finally(() => { if (!this.stopped) tick(); });
        });
        this.timers.push(cancel);
      };
      tick();
    };
    every(this.settings.abortTimedOutIntervalMs, () => this.abortTimedOut(), 'transaction timeout pass');
    every(this.settings.takeoverScanMs, () => this.scanTakenOver(), 'transaction takeover scan');
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) t();
    this.timers = [];
  }

  /** Forgets the transactional ids of a slot this broker no longer coordinates. */
  unloadSlot(slot: number): void {
    for (const id of [...this.cache.keys()]) if (this.opts.slotOf(id) === slot) this.cache.delete(id);
    this.scanned.delete(slot);
  }

  isLocal(transactionalId: string): boolean {
    return this.opts.epochOf(this.opts.slotOf(transactionalId)) !== null;
  }

  // ---- requests

  async initProducerId(req: InitRequest): Promise<{ errorCode: KafkaErrorCode; producerId: number; producerEpoch: number }> {
    const fail = (errorCode: KafkaErrorCode) => ({ errorCode, producerId: -1, producerEpoch: -1 });
    return this.guard(req.transactionalId, fail, async (c) => {
      const d = decideInit(c.meta, req, this.settings.maxTimeoutMs);
      const now = this.clock.now();
      switch (d.kind) {
        case 'error':
          return fail(d.errorCode);
        case 'reply':
          return { errorCode: ErrorCode.NONE, producerId: c.meta!.producerId, producerEpoch: c.meta!.producerEpoch };
        case 'fence':
          await this.save(c, fenced(c.meta!, now));
          this.finishInBackground(req.transactionalId);
          return fail(ErrorCode.CONCURRENT_TRANSACTIONS);
        case 'bump': {
          const pid = d.newProducerId ? await this.store.nextProducerId() : null;
          const next = bumped(c.meta, req, pid, now);
          await this.save(c, next);
          return { errorCode: ErrorCode.NONE, producerId: next.producerId, producerEpoch: next.producerEpoch };
        }
        default:
          return fail(ErrorCode.UNKNOWN_SERVER_ERROR);
      }
    });
  }

  /**
   * AddPartitionsToTxn (and its v4+ verifyOnly form): one error for all
   * partitions. `txnVersion` 2: an implicit add of transactions v2 (Produce
   * v12, TxnOffsetCommit v5, AddPartitionsToTxn v4+ from a broker).
   */
  async addPartitions(transactionalId: string, producerId: number, producerEpoch: number, partitions: TopicPartition[], verifyOnly = false, txnVersion = 0): Promise<Map<string, KafkaErrorCode>> {
    const keys = partitions.map(tpKey);
    const all = (code: KafkaErrorCode) => new Map(keys.map((k) => [k, code]));
    return this.guard(transactionalId, all, async (c) => {
      if (verifyOnly) return new Map(keys.map((k) => [k, verifyPartition(c.meta, producerId, producerEpoch, k)]));
      const d = decideAdd(c.meta, producerId, producerEpoch, keys, this.clock.now(), undefined, txnVersion);
      if (d.kind === 'error') return all(d.errorCode);
      if (d.kind === 'store') await this.save(c, d.meta);
      return all(ErrorCode.NONE);
    });
  }

  /** AddOffsetsToTxn: the group's `__consumer_offsets` partition joins the transaction. */
  async addOffsets(transactionalId: string, producerId: number, producerEpoch: number, groupId: string): Promise<KafkaErrorCode> {
    return this.guard(transactionalId, (e) => e, async (c) => {
      const d = decideAdd(c.meta, producerId, producerEpoch, [tpKey(this.opts.offsetsPartitionOf(groupId))], this.clock.now(), groupId);
      if (d.kind === 'error') return d.errorCode;
      if (d.kind === 'store') await this.save(c, d.meta);
      return ErrorCode.NONE;
    });
  }

  /** KIP-890 part 1, for the partition side (TransactionServices.verify). */
  async verify(transactionalId: string, producerId: number, producerEpoch: number, tp: TopicPartition): Promise<KafkaErrorCode> {
    return (await this.addPartitions(transactionalId, producerId, producerEpoch, [tp], true)).get(tpKey(tp))!;
  }

  /** KIP-890 part 2, for the partition side (TransactionServices.addPartition): the implicit AddPartitionsToTxn of transactions v2. */
  async addPartition(transactionalId: string, producerId: number, producerEpoch: number, tp: TopicPartition): Promise<KafkaErrorCode> {
    return (await this.addPartitions(transactionalId, producerId, producerEpoch, [tp], false, TXN_V2)).get(tpKey(tp))!;
  }

  /**
   * EndTxn: stores Prepare*, writes the markers and answers once they are
   * written or, for partitions that failed, retried in the background.
   * `txnVersion` 2 (EndTxn v5+): the epoch is bumped, and the answer carries
   * the producer id and epoch to go on with (-1/-1 with an error).
   */
  async endTxn(transactionalId: string, producerId: number, producerEpoch: number, commit: boolean, txnVersion = 0): Promise<{ errorCode: KafkaErrorCode; producerId: number; producerEpoch: number }> {
    const fail = (errorCode: KafkaErrorCode) => ({ errorCode, producerId: -1, producerEpoch: -1 });
    let finishing: Promise<boolean> | null = null;
    const r = await this.guard(transactionalId, fail, async (c) => {
      const d = decideEnd(c.meta, producerId, producerEpoch, commit, txnVersion);
      if (d.kind === 'error') return fail(d.errorCode);
      const m = c.meta!;
      if (d.kind === 'reply') return { errorCode: ErrorCode.NONE, producerId: m.producerId, producerEpoch: m.producerEpoch };
      const next = d.newProducerId ? await this.store.nextProducerId() : -1;
      const meta = prepared(m, commit, txnVersion, next, d.noPartitionAdded, this.clock.now());
      await this.save(c, meta);
      finishing = this.finishInBackground(transactionalId);
      return { errorCode: ErrorCode.NONE, ...endedWith(meta) };
    });
    if (finishing) await finishing;
    return r;
  }

  async describe(transactionalId: string): Promise<TxnDescription> {
    const none = (errorCode: KafkaErrorCode): TxnDescription => ({ errorCode, transactionalId, state: '', timeoutMs: 0, txnStartMs: -1, producerId: -1, producerEpoch: -1, partitions: [] });
    return this.guard(transactionalId, none, async (c) => {
      if (!c.meta) return none(ErrorCode.TRANSACTIONAL_ID_NOT_FOUND);
      const m = c.meta;
      return { errorCode: ErrorCode.NONE, transactionalId, state: m.state, timeoutMs: m.timeoutMs, txnStartMs: m.txnStartMs, producerId: m.producerId, producerEpoch: m.producerEpoch, partitions: m.partitions.map(parseTp) };
    });
  }

  /** ListTransactions: the transactions of the slots this broker coordinates. */
  async list(states: string[], producerIds: number[], minDurationMs = -1): Promise<Array<{ transactionalId: string; producerId: number; state: TxnState }>> {
    const out: Array<{ transactionalId: string; producerId: number; state: TxnState }> = [];
    const now = this.clock.now();
    for (const slot of this.opts.ownedSlots()) {
      for (const id of await this.store.idsOfSlot(slot)) {
        const d = await this.describe(id);
        if (d.errorCode !== ErrorCode.NONE || d.state === '') continue;
        if (states.length && !states.includes(d.state)) continue;
        if (producerIds.length && !producerIds.includes(d.producerId)) continue;
        if (minDurationMs >= 0 && (d.txnStartMs < 0 || now - d.txnStartMs < minDurationMs)) continue;
        out.push({ transactionalId: id, producerId: d.producerId, state: d.state });
      }
    }
    return out;
  }

  // ---- background work

  /** Aborts, with an epoch bump that fences the producer, every loaded transaction past its timeout. Returns how many. */
  async abortTimedOut(): Promise<number> {
    let n = 0;
    const now = this.clock.now();
    for (const [id, c] of [...this.cache]) {
      if (!c.meta || !timedOut(c.meta, now)) continue;
      const aborted = await this.guard(id, () => false, async (cur) => {
        if (!cur.meta || !timedOut(cur.meta, this.clock.now())) return false;
        this.logger?.info('aborting a transaction past its timeout', { transactionalId: id, producerId: cur.meta.producerId, producerEpoch: cur.meta.producerEpoch, timeoutMs: cur.meta.timeoutMs });
        await this.save(cur, fenced(cur.meta, this.clock.now()));
        this.finishInBackground(id);
        return true;
      });
      if (aborted) n++;
    }
    return n;
  }

  /**
   * Loads every transaction of the slots this broker took over since the last
   * scan: decided ones (Prepare*) are finished, ongoing ones stay loaded so
   * the timeout pass sees them.
   */
  async scanTakenOver(): Promise<void> {
    for (const slot of this.opts.ownedSlots()) {
      const epoch = this.opts.epochOf(slot);
      if (epoch === null || this.scanned.get(slot) === epoch) continue;
      const ids = await this.store.idsOfSlot(slot);
      for (const id of ids) {
        await this.guard(id, () => undefined, async (c) => {
          if (c.meta && isPrepare(c.meta.state)) this.finishInBackground(id);
        });
      }
      this.scanned.set(slot, epoch);
      if (ids.length) this.logger?.info('transaction coordinator slot loaded', { slot, coordinatorEpoch: epoch, transactionalIds: ids.length });
    }
  }

  /** Finishes a Prepare* transaction; resolves after the first round of markers (all partitions tried once). */
  private finishInBackground(id: string): Promise<boolean> {
    if (this.completing.has(id)) return Promise.resolve(false);
    const c = this.cache.get(id);
    if (!c?.meta || !isPrepare(c.meta.state)) return Promise.resolve(false);
    const m = c.meta;
    const epoch = c.epoch;
    this.completing.add(id);
    const marker = { producerId: m.producerId, producerEpoch: m.producerEpoch, commit: m.state === 'PrepareCommit', coordinatorEpoch: epoch };
    const valid = (): boolean => !this.stopped && this.opts.epochOf(this.opts.slotOf(id)) === epoch && this.cache.get(id) === c;
    const { firstRound, done } = writeAllMarkers(this.markers, m.partitions, marker, this.clock, valid, this.logger);
    done.then(async (ok) => {
      if (!ok) return;
      await this.guard(id, () => undefined, async (cur) => {
        if (cur.meta && cur.meta.state === m.state && cur.meta.producerEpoch === m.producerEpoch) await this.save(cur, completed(cur.meta, this.clock.now()));
      });
    }).catch((e) => this.logger?.warn('completing a transaction failed', { transactionalId: id, err: String(e) }))
      .finally(() => this.completing.delete(id));
    return firstRound;
  }

  // ---- state access

  /**
   * Runs `fn` on the id's state, one request per id at a time. Not the
   * coordinator (or fenced by a newer one): NOT_COORDINATOR through `fail`.
   */
  private async guard<T>(id: string, fail: (code: KafkaErrorCode) => T, fn: (c: Cached) => Promise<T>): Promise<T> {
    const prev = this.locks.get(id) ?? Promise.resolve();
    const run = prev.catch(() => undefined).then(async () => {
      try {
        return await fn(await this.loaded(id));
      } catch (e) {
        if (e instanceof TxnCoordinatorFencedError) {
          this.logger?.warn('transaction state write fenced by a newer coordinator', { transactionalId: id, epoch: e.epoch, storedEpoch: e.storedEpoch });
          this.cache.delete(id);
        }
        if (e instanceof KafkaError) return fail(e.code);
        this.logger?.warn('transaction coordinator request failed', { transactionalId: id, err: String(e) });
        return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      }
    });
    this.locks.set(id, run);
    void run.finally(() => { if (this.locks.get(id) === run) this.locks.delete(id); });
    return run;
  }

  private async loaded(id: string): Promise<Cached> {
    const epoch = this.opts.epochOf(this.opts.slotOf(id));
    if (epoch === null) throw new KafkaError(ErrorCode.NOT_COORDINATOR, `not the transaction coordinator of ${id}`);
    const c = this.cache.get(id);
    if (c && c.epoch === epoch) return c;
    const fresh: Cached = { meta: await this.store.load(id, epoch), epoch };
    this.cache.set(id, fresh);
    return fresh;
  }

  private async save(c: Cached, meta: TxnMetadata): Promise<void> {
    await this.store.save(meta, this.opts.slotOf(meta.transactionalId), c.epoch);
    c.meta = meta;
  }
}
