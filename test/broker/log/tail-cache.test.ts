// The tail cache on its own (sans-IO): one contiguous run per partition, cut
// at the bound it is given, one byte budget with broker-wide oldest-first
// eviction, and the drops the partition asks for.
import { describe, expect, it } from 'vitest';
import { TailCache } from '../../../broker/src/log/tail-cache.js';

/** A fake stored batch of `n` records at `base` (the cache never decodes it: only its length counts). */
const batch = (size: number, fill = 1) => Buffer.alloc(size, fill);
const bases = (bs: Array<{ baseOffset: number }> | null) => bs?.map((b) => b.baseOffset) ?? null;

describe('TailCache', () => {
  it('answers from the batch containing the offset, in order, and misses outside the run', () => {
    const c = new TailCache(1 << 20);
    const s = c.slice();
    s.append(10, 4, batch(100)); // 10-14
    s.append(15, 0, batch(100)); // 15
    s.append(16, 9, batch(100)); // 16-25
    expect(bases(s.read(10, 10, 26))).toEqual([10, 15, 16]);
    expect(bases(s.read(12, 10, 26))).toEqual([10, 15, 16]); // inside the first batch: the whole batch, as Redis answers
    expect(bases(s.read(20, 10, 26))).toEqual([16]);
    expect(bases(s.read(15, 1, 26))).toEqual([15]); // at most `count`
    expect(s.read(9, 10, 26)).toBeNull(); // before the run: Redis
    expect(s.read(26, 10, 30)).toBeNull(); // past the run
    expect(c.hits).toBe(4);
    expect(c.misses).toBe(2);
    expect(c.servedBytes).toBe(800);
  });

  it('never hands out a batch at or past the bound (high watermark or last stable offset)', () => {
    const c = new TailCache(1 << 20);
    const s = c.slice();
    s.append(0, 1, batch(50)); // 0-1
    s.append(2, 1, batch(50)); // 2-3
    s.append(4, 0, batch(50)); // 4
    expect(bases(s.read(0, 10, 4))).toEqual([0, 2]);
    expect(bases(s.read(0, 10, 2))).toEqual([0]);
    expect(s.read(2, 10, 2)).toBeNull(); // the offset itself is not visible yet
    expect(s.read(4, 10, 4)).toBeNull();
    expect(s.read(0, 10, 0)).toBeNull();
  });

  it('keeps one contiguous run: an insert that does not continue it starts the run again', () => {
    const c = new TailCache(1 << 20);
    const s = c.slice();
    s.append(0, 0, batch(10));
    s.append(1, 0, batch(10));
    s.append(5, 0, batch(10)); // a gap (say an append of another broker): 0-1 may no longer be the log
    expect(s.startOffset).toBe(5);
    expect(s.read(0, 10, 6)).toBeNull();
    expect(c.used).toBe(10);
  });

  it('evicts the broker-wide oldest batches past the budget, and never exceeds it', () => {
    const c = new TailCache(300);
    const a = c.slice();
    const b = c.slice();
    a.append(0, 0, batch(100));
    b.append(0, 0, batch(100));
    a.append(1, 0, batch(100));
    b.append(1, 0, batch(100)); // 400 > 300: a's offset 0 goes
    expect(c.used).toBe(300);
    expect(a.startOffset).toBe(1);
    expect(b.startOffset).toBe(0);
    a.append(2, 0, batch(150)); // b's 0 and a's 1 go
    expect(c.used).toBe(250);
    expect([a.startOffset, a.endOffset, b.startOffset, b.endOffset]).toEqual([2, 3, 1, 2]);
    expect(a.read(1, 10, 3)).toBeNull();
  });

  it('does not keep a batch bigger than the whole budget (and the run restarts after it)', () => {
    const c = new TailCache(100);
    const s = c.slice();
    s.append(0, 0, batch(50));
    s.append(1, 0, batch(200));
    expect(s.length).toBe(0);
    expect(c.used).toBe(0);
    s.append(2, 0, batch(50));
    expect(s.read(2, 10, 3)?.length).toBe(1);
  });

  it('with a budget of 0 keeps nothing and counts no lookups', () => {
    const c = new TailCache(0);
    const s = c.slice();
    s.append(0, 0, batch(10));
    expect(s.length).toBe(0);
    expect(s.read(0, 10, 1)).toBeNull();
    expect(c.hits + c.misses).toBe(0);
  });

  it('drops what the log start passed (retention, DeleteRecords) and what the cleaner compacted', () => {
    const c = new TailCache(1 << 20);
    const s = c.slice();
    s.append(0, 4, batch(10)); // 0-4
    s.append(5, 4, batch(10)); // 5-9
    s.append(10, 4, batch(10)); // 10-14
    s.dropEndingBefore(7); // log start 7: the batch containing it stays (Redis keeps it too)
    expect(s.startOffset).toBe(5);
    expect(s.read(4, 10, 15)).toBeNull();
    s.dropStartingBefore(7); // compacted below 7: the batch that starts before it goes as well
    expect(s.startOffset).toBe(10);
    expect(s.read(7, 10, 15)).toBeNull();
    expect(c.used).toBe(10);
  });

  it('clear() and close() give the bytes back; a closed slice takes nothing more', () => {
    const c = new TailCache(1 << 20);
    const s = c.slice();
    const other = c.slice();
    s.append(0, 0, batch(10));
    other.append(0, 0, batch(10));
    s.clear();
    expect(c.used).toBe(10);
    s.append(1, 0, batch(10));
    s.close();
    s.append(2, 0, batch(10));
    expect(s.length).toBe(0);
    expect(c.used).toBe(10);
    // the broker-wide order stays consistent after unlinking: the other slice's batch is still evicted first
    const third = c.slice();
    for (let i = 0; i < 5; i++) third.append(i, 0, batch(10));
    expect(c.used).toBe(60);
    expect(other.length).toBe(1);
  });

  it('keeps the bytes as given; a view into a larger buffer (a request frame) is copied', () => {
    const c = new TailCache(1 << 20);
    const s = c.slice();
    const frame = Buffer.alloc(10_000, 7);
    const view = frame.subarray(100, 200);
    s.append(0, 0, view);
    const own = Buffer.allocUnsafeSlow(100).fill(3);
    s.append(1, 0, own);
    const [a, b] = s.read(0, 10, 2)!;
    expect(a!.pieces[0]!.equals(view)).toBe(true);
    expect(a!.pieces[0]!.buffer).not.toBe(frame.buffer); // the 10 kB frame is not kept alive by 100 B
    expect(b!.pieces[0]).toBe(own);
    expect(a!.size).toBe(100);
  });

  it('stays correct over many inserts and evictions (the run is compacted now and then)', () => {
    const c = new TailCache(64 * 100);
    const s = c.slice();
    for (let i = 0; i < 5000; i++) s.append(i, 0, batch(100));
    expect(s.length).toBe(64);
    expect(s.startOffset).toBe(5000 - 64);
    expect(bases(s.read(4990, 3, 5000))).toEqual([4990, 4991, 4992]);
    expect(s.read(4935, 3, 5000)).toBeNull();
  });
});
