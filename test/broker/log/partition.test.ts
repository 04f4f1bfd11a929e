import { describe, expect, it } from 'vitest';
import { Partition } from '../../../broker/src/log/partition.js';
import { MemoryLogStore } from '../support/memory-log-store.js';
import { buildBatch } from '../../helpers/batches.js';

const tp = { topic: 't', partition: 0 };
const batch = (pid: number, seq: number) => buildBatch([{ key: null, value: Buffer.alloc(1000, 1) }], { producerId: pid, producerEpoch: 0, baseSequence: seq });

describe('Partition', () => {
  it('rebuilds producer state from a bounded tail scan and still detects recent duplicates', async () => {
    const store = new MemoryLogStore();
    const writer = new Partition(tp, store, { entries: 2000, bytes: 1 << 30 });
    for (let seq = 0; seq < 100; seq++) expect((await writer.append(batch(7, seq), { logAppendTime: false })).baseOffset).toBe(seq);

    let bytesRead = 0;
    const counting = Object.create(store) as MemoryLogStore;
    counting.readBackwards = async (...args) => {
      const page = await store.readBackwards(...args);
      for (const b of page) bytesRead += b.bytes.length;
      return page;
    };
    const reloaded = new Partition(tp, counting, { entries: 2000, bytes: 10_000 });
    await reloaded.ensureLoaded();
    expect(reloaded.nextOffset).toBe(100);
    expect(bytesRead).toBeLessThan(10_000 + 2 * 1100);
    // a retry of the newest batch is answered with its original offset, not appended again
    const dup = await reloaded.append(batch(7, 99), { logAppendTime: false });
    expect(dup).toMatchObject({ errorCode: 0, baseOffset: 99 });
    expect(reloaded.nextOffset).toBe(100);
    // the next sequence continues
    expect((await reloaded.append(batch(7, 100), { logAppendTime: false })).baseOffset).toBe(100);
  });

  it('reports the end offset of earlier leader epochs from the epoch history', () => {
    const p = new Partition(tp, new MemoryLogStore(), { entries: 10, bytes: 1000 });
    p.leaderEpoch = 5;
    p.highWatermark = 300;
    p.epochStarts = new Map([[1, 0], [3, 120], [5, 250]]);
    expect(p.endOffsetForEpoch(5)).toEqual({ epoch: 5, endOffset: 300 });
    expect(p.endOffsetForEpoch(4)).toEqual({ epoch: 3, endOffset: 250 });
    expect(p.endOffsetForEpoch(2)).toEqual({ epoch: 1, endOffset: 120 });
    expect(p.endOffsetForEpoch(0)).toEqual({ epoch: -1, endOffset: -1 });
    expect(p.endOffsetForEpoch(6)).toEqual({ epoch: -1, endOffset: -1 });
  });
});
