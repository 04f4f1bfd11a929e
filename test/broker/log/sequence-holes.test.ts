import { describe, expect, it } from 'vitest';
import { SequenceHoles } from '../../../broker/src/log/sequence-holes.js';

const tp = { topic: 't', partition: 0 };

describe('SequenceHoles', () => {
  it('keeps the lowest failed sequence and blocks only sequences above it, for that producer epoch and partition', () => {
    const h = new SequenceHoles();
    h.record(tp, 7, 0, 20, 1000);
    h.record(tp, 7, 0, 8, 1000);
    h.record(tp, 7, 0, 30, 1000);
    expect(h.below(tp, 7, 0, 8, 1000)).toBeNull();
    expect(h.below(tp, 7, 0, 9, 1000)).toBe(8);
    expect(h.below(tp, 7, 1, 9, 1000)).toBeNull(); // a new epoch restarts sequences
    expect(h.below(tp, 8, 0, 9, 1000)).toBeNull();
    expect(h.below({ topic: 't', partition: 1 }, 7, 0, 9, 1000)).toBeNull();
  });

  it('is filled only by the batch that holds it', () => {
    const h = new SequenceHoles();
    h.record(tp, 7, 0, 8, 0);
    h.filled(tp, 7, 0, 0, 7); // an earlier batch: the hole stays
    expect(h.below(tp, 7, 0, 20, 0)).toBe(8);
    h.filled(tp, 7, 0, 8, 19);
    expect(h.below(tp, 7, 0, 20, 0)).toBeNull();
    expect(h.size).toBe(0);
  });

  it('expires after its ttl, and stays bounded in number', () => {
    const h = new SequenceHoles(100, 2);
    h.record(tp, 1, 0, 0, 0);
    expect(h.below(tp, 1, 0, 5, 99)).toBe(0);
    expect(h.below(tp, 1, 0, 5, 100)).toBeNull();
    h.record(tp, 1, 0, 0, 200);
    h.record(tp, 2, 0, 0, 200);
    h.record(tp, 3, 0, 0, 200);
    expect(h.size).toBe(2);
    expect(h.below(tp, 1, 0, 5, 200)).toBeNull(); // the oldest went first
    expect(h.below(tp, 3, 0, 5, 200)).toBe(0);
  });

  it('ignores batches without a producer', () => {
    const h = new SequenceHoles();
    h.record(tp, -1, -1, -1, 0);
    expect(h.size).toBe(0);
  });
});
