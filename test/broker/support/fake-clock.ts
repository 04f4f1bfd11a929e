// A Clock whose time moves only when a test says so.
import type { Cancel, Clock } from '../../../common/clock.js';

interface Timer { at: number; seq: number; fn: () => void }

export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  private timers = new Set<Timer>();

  constructor(start = 1_700_000_000_000) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  schedule(delayMs: number, fn: () => void): Cancel {
    const timer: Timer = { at: this.t + Math.max(0, delayMs), seq: this.seq++, fn };
    this.timers.add(timer);
    return () => { this.timers.delete(timer); };
  }

  /** Pending timers (for assertions about leaks). */
  get pending(): number {
    return this.timers.size;
  }

  /** Moves time forward, running due timers in order (and letting promise callbacks settle between them). */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await flush();
      let next: Timer | null = null;
      for (const x of this.timers) if (x.at <= end && (!next || x.at < next.at || (x.at === next.at && x.seq < next.seq))) next = x;
      if (!next) break;
      this.timers.delete(next);
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
    this.t = end;
    await flush();
  }
}

/** Lets pending promise callbacks (store writes of the memory store) run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise<void>((r) => setImmediate(r));
}
