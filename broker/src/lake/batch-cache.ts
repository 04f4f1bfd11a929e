// The remote tier's decoded-file cache: rebuilt batches per (run of files,
// partition), least recently used out first, bounded by the bytes it holds.
// An entry larger than the whole limit is not kept (the reader keeps a window
// of such a file's batches instead).

export interface Sized {
  /** bytes held */
  readonly size: number;
}

export class BatchCache<V extends Sized> {
  private readonly entries = new Map<string, V>();
  bytes = 0;

  constructor(readonly limit: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The entry, now the most recently used. */
  get(key: string): V | undefined {
    const v = this.entries.get(key);
    if (v === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, v);
    return v;
  }

  /** Keeps `v` unless it alone exceeds the limit; evicts the least recently used to make room. */
  set(key: string, v: V): boolean {
    this.delete(key);
    if (v.size > this.limit) return false;
    while (this.bytes + v.size > this.limit) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.delete(oldest.value);
    }
    this.entries.set(key, v);
    this.bytes += v.size;
    return true;
  }

  /** The entry, its recency unchanged. */
  peek(key: string): V | undefined {
    return this.entries.get(key);
  }

  delete(key: string): void {
    const v = this.entries.get(key);
    if (v === undefined) return;
    this.entries.delete(key);
    this.bytes -= v.size;
  }

  /** Drops the entries whose key `drop` selects (files gone from the table). */
  prune(drop: (key: string) => boolean): void {
    for (const k of [...this.entries.keys()]) if (drop(k)) this.delete(k);
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}
