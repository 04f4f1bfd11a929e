import { describe, expect, it, vi } from 'vitest';
import { Partition } from '../../../broker/src/log/partition.js';
import { ReadAhead, ReadAheadBudget, SLOTS_PER_PARTITION } from '../../../broker/src/log/read-ahead.js';
import { MemoryLogStore } from '../support/memory-log-store.js';
import { buildBatch } from '../../helpers/batches.js';

const tp = { topic: 't', partition: 0 };
const batchOf = (fill: number) => buildBatch([{ key: null, value: Buffer.alloc(1000, fill) }]);
const bytesOf = (bs: Array<{ pieces: Buffer[] }>) => Buffer.concat(bs.flatMap((b) => b.pieces));

/** A partition with `n` single-record batches of 1,000 B values, and a count of the store's reads. */
async function filled(n: number) {
  const store = new MemoryLogStore();
  const p = new Partition(tp, store);
  for (let i = 0; i < n; i++) await p.append(batchOf(i % 250), { logAppendTime: false });
  const reads: number[] = [];
  const read = store.read.bind(store);
  store.read = (t, offset, count) => { reads.push(offset); return read(t, offset, count); };
  return { store, p, reads };
}

/** What the Fetch handler does for one partition: read, then start the read where the answer ends. */
async function answer(p: Partition, offset: number, maxBytes: number, committed = false) {
  const out = await p.readForFetch(offset, maxBytes, committed);
  const last = out[out.length - 1];
  if (last) p.readAhead(last.baseOffset + last.lastOffsetDelta + 1, maxBytes, committed);
  return out;
}

describe('read-ahead (sequential fetches)', () => {
  it('starts the read where an answer ended, and serves the next fetch from it with the same bytes', async () => {
    const { store, p, reads } = await filled(40);
    const first = await answer(p, 0, 5000);
    expect(first.map((b) => b.baseOffset)).toEqual([0, 1, 2, 3]);
    expect(reads).toEqual([0, 4]); // the answer's read, then the read ahead at 4
    const second = await answer(p, 4, 5000);
    expect(reads).toEqual([0, 4, 8]); // served from the read ahead; the next one started
    expect(p.ahead.taken).toBe(1);
    const fresh = new Partition(tp, store);
    expect(bytesOf(second)).toEqual(bytesOf(await fresh.readForFetch(4, 5000)));
  });

  it('reads afresh at any other offset, and drops what it read ahead on a reload', async () => {
    const { store, p, reads } = await filled(40);
    await answer(p, 0, 5000);
    await answer(p, 20, 5000); // not where the last answer ended: a read of its own
    expect(reads).toEqual([0, 4, 20, 24]);
    expect(p.ahead.taken).toBe(0);
    // A Redis failover replaced what was read ahead at 24: the reload must not serve the old bytes.
    const part = store.parts.get('t/0')!;
    const replaced = batchOf(251);
    part.batches = part.batches.map((b) => (b.baseOffset >= 24 ? { baseOffset: b.baseOffset, bytes: Buffer.from(replaced) } : b));
    p.invalidate();
    expect(p.ahead.size).toBe(0);
    const after = await p.readForFetch(24, 5000);
    expect(p.ahead.taken).toBe(0);
    expect(after[0]!.pieces[0]!.subarray(61)).toEqual(replaced.subarray(61));
  });

  it('does not read ahead at the tail, nor past the last stable offset', async () => {
    const { p, reads } = await filled(4);
    await answer(p, 0, 100_000); // everything: the next fetch waits for appends
    expect(reads).toEqual([0]);
    // An open transaction holds the last stable offset at 4: read_committed does not read ahead past it.
    await p.append(buildBatch([{ key: null, value: Buffer.from('t') }], { producerId: 9, producerEpoch: 0, baseSequence: 0, transactional: true }), { logAppendTime: false });
    expect([p.highWatermark, p.lastStableOffset]).toEqual([5, 4]);
    expect((await answer(p, 3, 2000, true)).map((x) => x.baseOffset)).toEqual([3]);
    expect(p.ahead.size).toBe(0);
    expect((await answer(p, 3, 2000, false)).map((x) => x.baseOffset)).toEqual([3]);
    expect(p.ahead.size).toBe(1);
  });

  it('cuts what it read ahead at the high watermark of the fetch that takes it', async () => {
    const { p } = await filled(40);
    // Two more batches are stored but not yet visible (acks=all, WAIT pending).
    const a = await p.append(batchOf(1), { logAppendTime: false, deferVisibility: true });
    const b = await p.append(batchOf(2), { logAppendTime: false, deferVisibility: true });
    expect([p.nextOffset, p.highWatermark]).toEqual([42, 40]);
    const first = await answer(p, 30, 7000);
    expect(first.map((x) => x.baseOffset)).toEqual([30, 31, 32, 33, 34, 35]); // the read ahead at 36 reads 36..41
    const out = await p.readForFetch(36, 7000);
    expect(p.ahead.taken).toBe(1);
    expect(out.map((x) => x.baseOffset)).toEqual([36, 37, 38, 39]);
    p.settle(a.pending!);
    p.settle(b.pending!);
  });

  it('keeps within its slots and its byte budget, and frees both', async () => {
    const budget = new ReadAheadBudget(3000);
    const ra = new ReadAhead<number>(budget, 60_000);
    let started = 0;
    const read = async () => { started++; return [1]; };
    ra.start(10, 1, 's', 1000, read);
    ra.start(10, 1, 's', 1000, read); // the same offset once
    ra.start(20, 1, 's', 1000, read);
    ra.start(30, 1, 's', 1000, read);
    ra.start(40, 1, 's', 1000, read); // over the budget
    expect([started, ra.size, budget.used]).toEqual([3, 3, 3000]);
    expect(ra.take(20, 1, 'other')).toBeNull(); // a stale stamp is a miss ...
    expect(ra.size).toBe(2); // ... and frees its slot
    expect(ra.take(30, 2, 's')).toBeNull(); // fewer batches than now wanted: a miss
    expect(await ra.take(10, 1, 's')).toEqual([1]);
    expect([ra.size, budget.used]).toEqual([0, 0]);
    for (let i = 0; i <= SLOTS_PER_PARTITION; i++) ra.start(100 + i, 1, 's', 1, read);
    expect(ra.size).toBe(SLOTS_PER_PARTITION);
    ra.clear();
    expect(budget.used).toBe(0);
  });

  it('drops a slot nobody took after its time to live, and treats a failed read as a miss', async () => {
    vi.useFakeTimers();
    try {
      const budget = new ReadAheadBudget(10_000);
      const ra = new ReadAhead<number>(budget, 1000);
      ra.start(1, 1, 's', 500, async () => [1]);
      vi.advanceTimersByTime(1001);
      expect([ra.size, budget.used]).toEqual([0, 0]);
      ra.start(2, 1, 's', 500, async () => { throw new Error('redis went away'); });
      expect(await ra.take(2, 1, 's')).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });
});
