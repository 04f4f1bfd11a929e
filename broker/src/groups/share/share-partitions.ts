// The share-partitions this broker serves (it leads their topic-partitions):
// each loaded from the SharePartitionStore on first use under the partition's
// leader epoch, changed by one operation at a time, and saved whole after a
// change before the operation's caller answers the client. A store write
// refused by the fence (a newer leader) or failed drops the cached state, so
// the next use loads what the store holds.
import type { SharePartitionKey, SharePartitionStore } from './share-store.js';
import { SharePartition } from './share-partition.js';

interface Entry {
  leaderEpoch: number;
  state: Promise<{ sp: SharePartition; fresh: boolean }>;
  /** The tail of the chain of operations on this share-partition. */
  tail: Promise<unknown>;
}

export class SharePartitions {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly store: SharePartitionStore) {}

  private id(k: SharePartitionKey): string {
    return `${k.groupId}\u0000${k.topicId}/${k.partition}`;
  }

  /**
   * Runs `fn` on the share-partition alone (operations on it are queued), then
   * saves it when `fn` says it changed. `initialStart` gives the SPSO of a
   * share-partition without stored state (share.auto.offset.reset).
   */
  run<T>(k: SharePartitionKey, leaderEpoch: number, initialStart: () => number, fn: (sp: SharePartition) => Promise<{ value: T; changed: boolean }>): Promise<T> {
    const id = this.id(k);
    let e = this.entries.get(id);
    if (!e || e.leaderEpoch !== leaderEpoch) {
      // A share-partition without state starts at initialStart(), and is saved with the first operation (a restart keeps its start).
      const state = this.store.load(k, leaderEpoch).then((s) => (s ? { sp: SharePartition.fromStored(s), fresh: false } : { sp: new SharePartition(initialStart()), fresh: true }));
      e = { leaderEpoch, state, tail: e?.tail ?? Promise.resolve() };
      this.entries.set(id, e);
    }
    const entry = e;
    const op = entry.tail.catch(() => undefined).then(async () => {
      let loaded: { sp: SharePartition; fresh: boolean };
      try {
        loaded = await entry.state;
      } catch (err) {
        if (this.entries.get(id) === entry) this.entries.delete(id);
        throw err;
      }
      const { sp } = loaded;
      const { value, changed } = await fn(sp);
      if (changed || loaded.fresh) {
        try {
          await this.store.save(k, leaderEpoch, sp.toStored());
          loaded.fresh = false;
        } catch (err) {
          if (this.entries.get(id) === entry) this.entries.delete(id);
          throw err;
        }
      }
      return value;
    });
    entry.tail = op;
    return op;
  }

  /** The loaded share-partitions of a group (describe, tests). */
  loaded(groupId: string): Array<{ key: string; state: Promise<SharePartition> }> {
    return [...this.entries].filter(([id]) => id.startsWith(`${groupId}\u0000`)).map(([key, e]) => ({ key, state: e.state.then((l) => l.sp) }));
  }
}
