import { describe, expect, it } from 'vitest';
import { planTakes, planUpkeep, type HeldUnit, type OtherUnit } from '../../../broker/src/cluster/tick-plan.js';

const TTL = 3000;
const upkeep = { now: 10_000, renewWithinMs: TTL * 0.5, handoffPerTick: 2 };

describe('tick plan', () => {
  it('renews every held unit that is due, however many free units wait, and hands over at most handoffPerTick', () => {
    const held: Array<HeldUnit<number>> = [
      ...Array.from({ length: 5000 }, (_, i) => ({ unit: i, validUntil: upkeep.now + 1000, ours: true })), // due (1000 <= 1500 ms left)
      { unit: 5000, validUntil: upkeep.now + 2400, ours: true }, // renewed 0.2 TTL ago: not due
      { unit: 5001, validUntil: upkeep.now + 2400, ours: false },
      { unit: 5002, validUntil: upkeep.now + 100, ours: false },
      { unit: 5003, validUntil: upkeep.now + 100, ours: false }, // third handoff: renewed instead, handed over a later tick
    ];
    const plan = planUpkeep(held, upkeep);
    expect(plan.renew).toEqual([...Array.from({ length: 5000 }, (_, i) => i), 5003]);
    expect(plan.handoff).toEqual([5001, 5002]);
  });

  it('acquires at most acquirePerTick, counting acquisitions already in flight; skips held, foreign and in-flight units', () => {
    const others: Array<OtherUnit<number>> = [
      { unit: 0, free: false, ours: true, acquiring: false }, // another broker holds it
      { unit: 1, free: true, ours: false, acquiring: false }, // free, but another broker's to take
      { unit: 2, free: true, ours: true, acquiring: true }, // a claim is loading it
      ...Array.from({ length: 1000 }, (_, i) => ({ unit: 100 + i, free: true, ours: true, acquiring: false })),
    ];
    expect(planTakes(others, { acquirePerTick: 200, inFlight: 0 })).toEqual(Array.from({ length: 200 }, (_, i) => 100 + i));
    expect(planTakes(others, { acquirePerTick: 200, inFlight: 150 })).toEqual(Array.from({ length: 50 }, (_, i) => 100 + i));
    expect(planTakes(others, { acquirePerTick: 200, inFlight: 200 })).toEqual([]);
    expect(planTakes(others, { acquirePerTick: 200, inFlight: 250 })).toEqual([]); // claims past the cap: none
  });

  it('a backlog of 3 x 2,000 free units drains over ticks at the cap while every held unit stays renewed', () => {
    const cap = 100;
    const free = new Set(Array.from({ length: 6000 }, (_, i) => i));
    const validUntil = new Map<number, number>();
    let now = 0;
    let ticks = 0;
    while (free.size > 0) {
      ticks++;
      // Upkeep first: every unit held so far whose validity is half gone is renewed this tick.
      const plan = planUpkeep([...validUntil].map(([unit, v]) => ({ unit, validUntil: v, ours: true })), { now, renewWithinMs: TTL * 0.5, handoffPerTick: 8 });
      for (const u of plan.renew) validUntil.set(u, now + TTL * 0.8);
      expect(Math.min(now + 1, ...validUntil.values())).toBeGreaterThan(now); // nothing held lapses while the backlog drains
      // Then at most `cap` acquisitions (each done within the tick here).
      const take = planTakes([...free].map((unit) => ({ unit, free: true, ours: true, acquiring: false })), { acquirePerTick: cap, inFlight: 0 });
      expect(take.length).toBe(Math.min(cap, free.size));
      for (const u of take) { free.delete(u); validUntil.set(u, now + TTL * 0.8); }
      now += 500;
    }
    expect(ticks).toBe(6000 / cap);
  });
});
