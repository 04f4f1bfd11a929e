// The share-partitions this broker serves (it leads their topic-partitions):
// each loaded from the SharePartitionStore on first use under the partition's
// leader epoch, changed by one operation at a time, and saved whole after a
// change before the operation's caller answers the client. A store write
// refused by the fence (a newer leader) or failed drops the cached state, so
// the next use loads what the store holds; one refused because the state was
// changed administratively meanwhile (offsets reset or deleted) is run again
// once on the reloaded state. A share-partition left alone for IDLE_EVICT_MS
// is dropped from memory (its state is in the store, lock deadlines included,
// which expire lazily on the next operation), so a broker that served many
// share groups does not keep them all.
import type { Clock } from '../../../../common/clock.js';
import { StaleShareStateError, type SharePartitionKey, type SharePartitionStore } from './share-store.js';
import { SharePartition } from './share-partition.js';

interface Loaded { sp: SharePartition; version: number; fresh: boolean }

interface Entry {
  leaderEpoch: number;
  state: Promise<Loaded>;
  /** The tail of the chain of operations on this share-partition. */
  tail: Promise<unknown>;
  /** Operations queued or running. */
  pending: number;
  /** When the last operation was queued (clock ms). */
  usedAt: number;
}

/** How long an unused share-partition stays in memory. */
export const IDLE_EVICT_MS = 10 * 60_000;

export type ShareOp<T> = (sp: SharePartition) => Promise<{ value: T; changed: boolean }>;

export class SharePartitions {
  private readonly entries = new Map<string, Entry>();
  private sweptAt: number;

  constructor(private readonly store: SharePartitionStore, private readonly clock: Clock, private readonly idleMs = IDLE_EVICT_MS) {
    this.sweptAt = clock.now();
  }

  /** Share-partitions held in memory. */
  get size(): number {
    return this.entries.size;
  }

  /** Drops the share-partitions unused for idleMs with nothing queued; runs at most every idleMs / 4. */
  private sweep(now: number): void {
    if (now - this.sweptAt < this.idleMs / 4) return;
    this.sweptAt = now;
    for (const [id, e] of this.entries) if (e.pending === 0 && now - e.usedAt >= this.idleMs) this.entries.delete(id);
  }

  private id(k: SharePartitionKey): string {
    return `${k.groupId}\u0000${k.topicId}/${k.partition}`;
  }

  private entry(k: SharePartitionKey, leaderEpoch: number, initialStart: () => number): Entry {
    const id = this.id(k);
    let e = this.entries.get(id);
    if (!e || e.leaderEpoch !== leaderEpoch) {
      // A share-partition without state starts at initialStart(), and is saved with the first operation (a restart keeps its start).
      const state = this.store.load(k, leaderEpoch).then(({ state: s, version }): Loaded =>
        (s ? { sp: SharePartition.fromStored(s), version, fresh: false } : { sp: new SharePartition(initialStart()), version, fresh: true }));
      e = { leaderEpoch, state, tail: e?.tail ?? Promise.resolve(), pending: 0, usedAt: 0 }; // usedAt: set by the operation that asked
      this.entries.set(id, e);
    }
    return e;
  }

  /**
   * Runs `fn` on the share-partition alone (operations on it are queued), then
   * saves it when `fn` says it changed. `initialStart` gives the SPSO of a
   * share-partition without stored state (share.auto.offset.reset).
   */
  async run<T>(k: SharePartitionKey, leaderEpoch: number, initialStart: () => number, fn: ShareOp<T>): Promise<T> {
    try {
      return await this.once(k, leaderEpoch, initialStart, fn);
    } catch (e) {
      if (!(e instanceof StaleShareStateError)) throw e;
      return this.once(k, leaderEpoch, initialStart, fn);
    }
  }

  private once<T>(k: SharePartitionKey, leaderEpoch: number, initialStart: () => number, fn: ShareOp<T>): Promise<T> {
    const id = this.id(k);
    const now = this.clock.now();
    this.sweep(now);
    const entry = this.entry(k, leaderEpoch, initialStart);
    entry.usedAt = now;
    entry.pending++;
    const drop = (): void => { if (this.entries.get(id) === entry) this.entries.delete(id); };
    const op = entry.tail.catch(() => undefined).then(async () => {
      let loaded: Loaded;
      try {
        loaded = await entry.state;
      } catch (err) {
        drop();
        throw err;
      }
      const { value, changed } = await fn(loaded.sp);
      if (changed || loaded.fresh) {
        try {
          loaded.version = await this.store.save(k, leaderEpoch, loaded.sp.toStored(), loaded.version);
          loaded.fresh = false;
        } catch (err) {
          drop();
          throw err;
        }
      }
      return value;
    }).finally(() => { entry.pending--; });
    entry.tail = op;
    return op;
  }

  /** Forgets the cached share-partitions of a group (after an administrative change made here). */
  forgetGroup(groupId: string): void {
    for (const id of [...this.entries.keys()]) if (id.startsWith(`${groupId}\u0000`)) this.entries.delete(id);
  }
}
