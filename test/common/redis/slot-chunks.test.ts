import calculateSlot from 'cluster-key-slot';
import { describe, expect, it } from 'vitest';
import { slotChunks } from '../../../common/redis/slot-chunks.js';

describe('slotChunks', () => {
  const keys = Array.from({ length: 10 }, (_, i) => `rn:p:{t/${i % 3}}:leader`);

  it('single node: every index, in order, in calls of at most `size`', () => {
    expect(slotChunks(10, (i) => keys[i]!, false, 4)).toEqual([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]);
    expect(slotChunks(0, () => 'x', false, 4)).toEqual([]);
  });

  it('cluster: no call spans two slots, each index appears once', () => {
    const chunks = slotChunks(10, (i) => keys[i]!, true, 3);
    for (const c of chunks) {
      expect(new Set(c.map((i) => calculateSlot(keys[i]!))).size).toBe(1);
      expect(c.length).toBeLessThanOrEqual(3);
    }
    expect(chunks.flat().sort((a, b) => a - b)).toEqual([...Array(10).keys()]);
    // t/0 holds indexes 0,3,6,9: one slot, two calls of at most 3
    expect(chunks.filter((c) => c.includes(0) || c.includes(9))).toEqual([[0, 3, 6], [9]]);
  });
});
