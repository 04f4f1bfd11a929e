// Kafka's queued.max.request.bytes: one budget for the request bytes that all
// connections have read but not yet answered (partial frames included). While
// it is spent, no connection reads from its socket; reading resumes as
// responses go out and release their bytes. A single request may take the
// pool past its limit (it was already read), so no request is ever stuck.

export class RequestBytesPool {
  private used = 0;
  private readonly waiting = new Set<() => void>();

  /** limit <= 0: unlimited (Kafka's -1). */
  constructor(readonly limit: number) {}

  get bytes(): number {
    return this.used;
  }

  exhausted(): boolean {
    return this.limit > 0 && this.used >= this.limit;
  }

  acquire(n: number): void {
    this.used += n;
  }

  release(n: number): void {
    if (n <= 0) return;
    this.used -= n;
    if (!this.exhausted() && this.waiting.size > 0) {
      const wake = [...this.waiting];
      this.waiting.clear();
      for (const w of wake) w();
    }
  }

  /** Calls `fn` once the pool is below its limit again. */
  onAvailable(fn: () => void): void {
    this.waiting.add(fn);
  }

  forget(fn: () => void): void {
    this.waiting.delete(fn);
  }
}
