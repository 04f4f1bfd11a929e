// Arrival order of produce appends per partition.
//
// Kafka handles a connection's requests one at a time, so a producer's
// pipelined batches for a partition are appended in the order it sent them.
// Runnel answers pipelined requests concurrently, and a request may wait
// before its append (a leadership claim, a replica count, a transaction
// verification, an earlier topic of the same request). Each request
// therefore takes a turn on every partition it writes, synchronously when it
// is dispatched (in arrival order), and appends only once the turns before
// it on that partition have appended or failed.
export interface Turn {
  /** Settles when every earlier turn on the partition has been released; null when there is none. */
  readonly ready: Promise<void> | null;
  /** Lets the next turn go once every earlier one has gone too (idempotent). */
  release(): void;
}

export class AppendOrder {
  private readonly tails = new Map<string, Promise<void>>();

  take(topic: string, partition: number): Turn {
    const key = `${topic}\u0000${partition}`;
    const prev = this.tails.get(key) ?? null;
    let open!: () => void;
    const mine = new Promise<void>((r) => { open = r; });
    this.tails.set(key, mine);
    let released = false;
    return {
      ready: prev,
      release: () => {
        if (released) return;
        released = true;
        if (this.tails.get(key) === mine) this.tails.delete(key);
        // A turn given up before its own wait (an early error answer) must not let later ones pass earlier ones.
        if (prev) void prev.then(open);
        else open();
      },
    };
  }

  /** Partitions with a turn taken and not yet released (tests, metrics). */
  get pending(): number {
    return this.tails.size;
  }
}
