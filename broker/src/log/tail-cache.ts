// The tail cache: the batches this broker appended last, kept in memory so a
// consumer at the tail is answered without reading back from Redis what the
// leader has just written (Kafka serves such consumers from the page cache).
//
// Rules (docs/architecture.md, "Tail cache"):
// - a batch enters only after Redis acknowledged its append, in offset order:
//   each partition's cached batches are one contiguous run of offsets, and an
//   insert that does not continue it starts the run again at that batch;
// - batches are kept as the exact bytes handed to Redis (opaque, never decoded);
// - a lookup is a hit only when the run holds the batch containing the offset,
//   and returns nothing at or past `bound` (the high watermark, or the last
//   stable offset for read_committed): the caller passes it;
// - the partition empties its run on every reload, leadership change, release,
//   and drops what retention, DeleteRecords or the cleaner removed from Redis;
// - all partitions share one byte budget (log.tail.cache.bytes); past it the
//   oldest batches of the whole broker go first. 0 turns the cache off.
import type { FetchBatch } from '../storage/log-store.js';

/** A cached batch, linked in the broker-wide insertion order (oldest first). */
interface Node {
  batch: FetchBatch;
  slice: TailSlice;
  prev: Node | null;
  next: Node | null;
}

/** The broker's tail cache: the byte budget, the eviction order, and the counters. */
export class TailCache {
  used = 0;
  hits = 0;
  misses = 0;
  /** Batch bytes handed out from the cache. */
  servedBytes = 0;
  private oldest: Node | null = null;
  private newest: Node | null = null;

  /** log.tail.cache.bytes (tests lower it to turn the cache off: nothing is served or added past 0). */
  constructor(public limit: number) {}

  get enabled(): boolean { return this.limit > 0; }

  /** A partition's share of the cache. */
  slice(): TailSlice {
    return new TailSlice(this);
  }

  /** Links `n` as the newest batch and evicts the oldest ones while past the budget. */
  add(n: Node): void {
    n.prev = this.newest;
    n.next = null;
    if (this.newest) this.newest.next = n;
    else this.oldest = n;
    this.newest = n;
    this.used += n.batch.size;
    while (this.used > this.limit && this.oldest) this.oldest.slice.evictOldest(this.oldest);
  }

  unlink(n: Node): void {
    if (n.prev) n.prev.next = n.next;
    else this.oldest = n.next;
    if (n.next) n.next.prev = n.prev;
    else this.newest = n.prev;
    n.prev = n.next = null;
    this.used -= n.batch.size;
  }
}

/** One partition's cached run of batches, oldest first. */
export class TailSlice {
  private nodes: Array<Node | undefined> = [];
  /** Index of the first live node in `nodes` (dropped ones before it are compacted away now and then). */
  private first = 0;
  private closed = false;

  constructor(private readonly cache: TailCache) {}

  /** Cached batches. */
  get length(): number { return this.nodes.length - this.first; }

  /** Whether the run holds `offset` (a read ahead there would be wasted). */
  holds(offset: number): boolean {
    return this.cache.enabled && this.indexOf(offset) >= 0;
  }

  /** First offset of the run (null when empty). */
  get startOffset(): number | null { return this.length > 0 ? this.nodes[this.first]!.batch.baseOffset : null; }

  /** The offset after the run's last batch (null when empty). */
  get endOffset(): number | null {
    const last = this.nodes[this.nodes.length - 1];
    return this.length > 0 && last ? lastOf(last.batch) + 1 : null;
  }

  /**
   * Adds a batch Redis has just acknowledged. `batch` is the batch exactly as
   * stored; a view into a larger buffer (a request frame) is copied so the cache
   * holds only the bytes it counts.
   */
  append(baseOffset: number, lastOffsetDelta: number, batch: Buffer): void {
    if (this.closed || !this.cache.enabled) return;
    if (batch.length > this.cache.limit) { this.clear(); return; }
    if (this.length > 0 && this.endOffset !== baseOffset) this.clear(); // not the next batch: start the run again
    const bytes = batch.buffer.byteLength > 2 * batch.length ? Buffer.from(batch) : batch;
    const n: Node = { batch: { baseOffset, lastOffsetDelta, size: bytes.length, pieces: [bytes] }, slice: this, prev: null, next: null };
    this.nodes.push(n);
    this.cache.add(n);
  }

  /**
   * The cached batches from the one containing `offset`, at most `count`, none
   * starting at or past `bound`; null (a miss) when the run does not hold
   * `offset` or `allowed` is false. Counted as a hit or miss (when the cache is on).
   */
  read(offset: number, count: number, bound: number, allowed = true): FetchBatch[] | null {
    if (!this.cache.enabled) return null;
    const i = allowed ? this.indexOf(offset) : -1;
    if (i < 0 || offset >= bound) {
      this.cache.misses++;
      return null;
    }
    const out: FetchBatch[] = [];
    let bytes = 0;
    for (let j = i; j < this.nodes.length && out.length < count; j++) {
      const b = this.nodes[j]!.batch;
      if (b.baseOffset >= bound) break;
      out.push(b);
      bytes += b.size;
    }
    this.cache.hits++;
    this.cache.servedBytes += bytes;
    return out;
  }

  /** Drops batches that end before `offset` (the log start moved: retention, DeleteRecords). */
  dropEndingBefore(offset: number): void {
    while (this.length > 0 && lastOf(this.nodes[this.first]!.batch) < offset) this.dropFirst();
  }

  /** Drops batches that start before `offset` (the cleaner compacted the log below it). */
  dropStartingBefore(offset: number): void {
    while (this.length > 0 && this.nodes[this.first]!.batch.baseOffset < offset) this.dropFirst();
  }

  /** Empties the run (reload, leadership change, a failed append). */
  clear(): void {
    for (let j = this.first; j < this.nodes.length; j++) this.cache.unlink(this.nodes[j]!);
    this.nodes = [];
    this.first = 0;
  }

  /** Empties the run for good: the partition was released or its topic deleted. */
  close(): void {
    this.clear();
    this.closed = true;
  }

  /** Called by the cache: `n` is the broker's oldest batch, so it is this run's first. */
  evictOldest(n: Node): void {
    if (this.nodes[this.first] !== n) throw new Error('tail cache: eviction out of insertion order');
    this.dropFirst();
  }

  private dropFirst(): void {
    this.cache.unlink(this.nodes[this.first]!);
    this.nodes[this.first] = undefined;
    this.first++;
    if (this.first === this.nodes.length) {
      this.nodes = [];
      this.first = 0;
    } else if (this.first >= 1024 && this.first * 2 >= this.nodes.length) {
      this.nodes = this.nodes.slice(this.first);
      this.first = 0;
    }
  }

  /** Index in `nodes` of the batch containing `offset`, -1 when the run does not hold it. */
  private indexOf(offset: number): number {
    let lo = this.first;
    let hi = this.nodes.length - 1;
    if (lo > hi || offset < this.nodes[lo]!.batch.baseOffset || offset > lastOf(this.nodes[hi]!.batch)) return -1;
    // Consumers at the tail ask for the newest batches: try the last one first.
    if (offset >= this.nodes[hi]!.batch.baseOffset) return hi;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.nodes[mid]!.batch.baseOffset <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

function lastOf(b: FetchBatch): number {
  return b.baseOffset + b.lastOffsetDelta;
}
