// The share-partitions this broker serves (it leads their topic-partitions):
// each loaded from the SharePartitionStore on first use under the partition's
// leader epoch, changed by one operation at a time, and saved whole after a
// change before the operation's caller answers the client. A store write
// refused by the fence (a newer leader) or failed drops the cached state, so
// the next use loads what the store holds; one refused because the state was
// changed administratively meanwhile (offsets reset or deleted) is run again
// once on the reloaded state.
import { StaleShareStateError, type SharePartitionKey, type SharePartitionStore } from './share-store.js';
import { SharePartition } from './share-partition.js';

interface Loaded { sp: SharePartition; version: number; fresh: boolean }

interface Entry {
  leaderEpoch: number;
  state: Promise<Loaded>;
  /** The tail of the chain of operations on this share-partition. */
  tail: Promise<unknown>;
}

export type ShareOp<T> = (sp: SharePartition) => Promise<{ value: T; changed: boolean }>;

export class SharePartitions {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly store: SharePartitionStore) {}

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
      e = { leaderEpoch, state, tail: e?.tail ?? Promise.resolve() };
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
    const entry = this.entry(k, leaderEpoch, initialStart);
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
    });
    entry.tail = op;
    return op;
  }

  /** Forgets the cached share-partitions of a group (after an administrative change made here). */
  forgetGroup(groupId: string): void {
    for (const id of [...this.entries.keys()]) if (id.startsWith(`${groupId}\u0000`)) this.entries.delete(id);
  }
}
