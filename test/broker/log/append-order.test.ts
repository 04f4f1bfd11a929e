import { describe, expect, it } from 'vitest';
import { AppendOrder } from '../../../broker/src/log/append-order.js';

describe('AppendOrder', () => {
  it('a first turn has nothing to wait for; a second waits until the first is released', async () => {
    const o = new AppendOrder();
    const a = o.take('t', 0);
    const b = o.take('t', 0);
    const other = o.take('t', 1);
    expect(a.ready).toBeNull();
    expect(other.ready).toBeNull();
    let passed = false;
    const waiting = b.ready!.then(() => { passed = true; });
    await Promise.resolve();
    expect(passed).toBe(false);
    a.release();
    await waiting;
    expect(passed).toBe(true);
    b.release();
    other.release();
    expect(o.pending).toBe(0);
  });

  it('a turn released before the one ahead of it does not let the next one overtake', async () => {
    const o = new AppendOrder();
    const a = o.take('t', 0);
    const b = o.take('t', 0);
    const c = o.take('t', 0);
    const order: string[] = [];
    const cGoes = c.ready!.then(() => order.push('c'));
    b.release(); // b gave up (an early error answer) while a still appends
    await new Promise((r) => setTimeout(r, 5));
    order.push('a');
    a.release();
    await cGoes;
    expect(order).toEqual(['a', 'c']);
  });

  it('releasing twice is harmless', () => {
    const o = new AppendOrder();
    const a = o.take('t', 0);
    a.release();
    a.release();
    expect(o.take('t', 0).ready).toBeNull();
  });
});
