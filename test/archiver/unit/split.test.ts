import { describe, expect, it } from 'vitest';
import { splitRuns } from '../../../archiver/src/parquet/split.js';

const item = (n: number, tag: number) => ({ bytes: new Uint8Array(n), tag });
const tags = (runs: { tag: number }[][]) => runs.map((r) => r.map((x) => x.tag));

describe('splitRuns (a flush encoded as parallel runs)', () => {
  it('keeps a buffer below 2 x minBytes in one run', () => {
    const items = [item(100, 0), item(100, 1), item(100, 2)];
    expect(tags(splitRuns(items, 4, 200))).toEqual([[0, 1, 2]]);
    expect(splitRuns([], 4, 1)).toEqual([]);
  });

  it('cuts contiguous runs of about equal bytes, at most one per worker, order kept', () => {
    const items = Array.from({ length: 12 }, (_, i) => item(10, i));
    const runs = splitRuns(items, 3, 10);
    expect(tags(runs)).toEqual([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]);
    // every item exactly once, in order
    expect(runs.flat().map((x) => x.tag)).toEqual(items.map((x) => x.tag));
  });

  it('never makes a run smaller than minBytes by splitting too finely', () => {
    const items = Array.from({ length: 10 }, (_, i) => item(10, i));
    // 100 bytes, minBytes 40: two runs at most, although 4 workers are free
    expect(splitRuns(items, 4, 40).length).toBe(2);
    expect(splitRuns(items, 1, 1).length).toBe(1);
  });

  it('one large batch may leave fewer runs, but never an empty one', () => {
    const items = [item(1, 0), item(1, 1), item(100, 2)];
    const runs = splitRuns(items, 3, 1);
    expect(runs.every((r) => r.length > 0)).toBe(true);
    expect(runs.flat().map((x) => x.tag)).toEqual([0, 1, 2]);
  });
});
