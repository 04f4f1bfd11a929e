// A rate over sliding samples, as Kafka's quota sensors measure it
// (SampledStat + Rate): `num` samples of `windowMs` each; the rate is the sum
// of the live samples over the elapsed window, where the window counts at
// least num-1 whole samples (so a burst right after start is not a huge rate).

interface Sample { start: number; value: number }

export class SampledRate {
  private samples: Sample[] = [];

  constructor(private readonly num: number, private readonly windowMs: number) {}

  /** Adds `value` at `now` (negative values take back what was recorded). */
  record(value: number, now: number): void {
    this.purge(now);
    let cur = this.samples[this.samples.length - 1];
    if (!cur || now - cur.start >= this.windowMs) {
      cur = { start: now, value: 0 };
      this.samples.push(cur);
      if (this.samples.length > this.num) this.samples.shift();
    }
    cur.value += value;
  }

  /** Kafka's Rate.windowSize: the time since the oldest live sample, at least num-1 windows, at least 1 ms. */
  windowSize(now: number): number {
    this.purge(now);
    const oldest = this.samples[0]?.start ?? now;
    let elapsed = now - oldest;
    const full = Math.floor(elapsed / this.windowMs);
    if (full < this.num - 1) elapsed += (this.num - 1 - full) * this.windowMs;
    return Math.max(elapsed, 1);
  }

  /** Per second. */
  rate(now: number): number {
    this.purge(now);
    let total = 0;
    for (const s of this.samples) total += s.value;
    return total / (this.windowSize(now) / 1000);
  }

  /** Samples older than num windows no longer count. */
  private purge(now: number): void {
    const expire = this.num * this.windowMs;
    while (this.samples.length > 0 && now - this.samples[0]!.start >= expire) this.samples.shift();
  }
}

/**
 * Kafka's QuotaUtils.throttleTime: how long the client must wait for the
 * rate to fall back to the bound, 0 when within it.
 */
export function throttleMs(rate: SampledRate, bound: number, now: number): number {
  const value = rate.rate(now);
  if (value <= bound) return 0;
  return Math.round(((value - bound) / bound) * rate.windowSize(now));
}
