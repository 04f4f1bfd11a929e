// Time for the group coordinator, injectable so unit tests drive timers by hand.

/** Cancels a scheduled callback; calling it after the callback ran is a no-op. */
export type Cancel = () => void;

export interface Clock {
  now(): number;
  schedule(delayMs: number, fn: () => void): Cancel;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  schedule(delayMs, fn) {
    const t = setTimeout(fn, Math.max(0, delayMs));
    t.unref?.();
    return () => clearTimeout(t);
  },
};
