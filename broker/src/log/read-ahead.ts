// Read-ahead for sequential fetches. A consumer fetches a partition again at
// exactly the offset where the previous answer ended. Starting that store read
// as soon as an answer is handed out lets Redis and the broker work while the
// consumer is still decoding the records, instead of after it asks again.
//
// Bounds:
// - at most SLOTS_PER_PARTITION reads ahead per partition (a few consumer
//   groups reading the same partition at different positions); further
//   positions read as before;
// - a slot not taken within TTL_MS is dropped (the consumer went away);
// - every slot is charged the bytes its read asked for against one budget
//   shared by all partitions of the broker (fetch.read.ahead.bytes, 64 MiB by
//   default; 0 turns read-ahead off). When it is spent, no read ahead starts.
//
// A slot is tied to a stamp of the partition's state (its load generation and
// leader epoch, and the compacted prefix). Any change makes it a miss, so a
// slot never outlives a reload, a leadership change or a cleaner run. The
// batches are cut again at the high watermark or the LSO of the fetch that
// takes them.

export const SLOTS_PER_PARTITION = 4;
export const TTL_MS = 2000;
export const BUDGET_BYTES = 64 * 1024 * 1024;

/** The byte budget that all read-ahead slots share. */
export class ReadAheadBudget {
  used = 0;
  constructor(public limit: number) {}
  tryCharge(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }
  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}


interface Slot<B> {
  count: number;
  stamp: string;
  charge: number;
  /** Resolves to null when the read failed: the fetch then reads as usual. */
  batches: Promise<B[] | null>;
  timer: ReturnType<typeof setTimeout>;
}

export class ReadAhead<B> {
  private readonly slots = new Map<number, Slot<B>>();
  /** Reads started ahead, and how many of them a fetch took (metrics and tests). */
  started = 0;
  taken = 0;

  constructor(private readonly budget: ReadAheadBudget, private readonly ttlMs = TTL_MS) {}

  /**
   * The batches read ahead at `offset`, if a slot exists for the same stamp
   * that read at least `count` batches' worth; null otherwise (read as usual).
   * The slot is consumed either way.
   */
  take(offset: number, count: number, stamp: string): Promise<B[] | null> | null {
    const slot = this.slots.get(offset);
    if (!slot) return null;
    this.drop(offset, slot);
    if (slot.stamp !== stamp || slot.count < count) return null;
    this.taken++;
    return slot.batches;
  }

  /** Starts `read` for `offset` unless a slot for it exists or a bound is reached. */
  start(offset: number, count: number, stamp: string, chargeBytes: number, read: () => Promise<B[]>): void {
    if (this.slots.has(offset) || this.slots.size >= SLOTS_PER_PARTITION) return;
    if (!this.budget.tryCharge(chargeBytes)) return;
    const batches = read().then((b) => (b.length > 0 ? b : null), () => null);
    const timer = setTimeout(() => {
      const s = this.slots.get(offset);
      if (s === slot) this.drop(offset, s);
    }, this.ttlMs);
    timer.unref?.();
    const slot: Slot<B> = { count, stamp, charge: chargeBytes, batches, timer };
    this.slots.set(offset, slot);
    this.started++;
  }

  /** Drops every slot (the partition is unloaded or its state changed). */
  clear(): void {
    for (const [offset, slot] of [...this.slots]) this.drop(offset, slot);
  }

  get size(): number { return this.slots.size; }

  private drop(offset: number, slot: Slot<B>): void {
    clearTimeout(slot.timer);
    this.slots.delete(offset);
    this.budget.release(slot.charge);
  }
}
