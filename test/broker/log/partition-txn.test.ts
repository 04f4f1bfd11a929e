// Partition with transactions, on the in-memory store: the LSO follows open
// transactions, markers reach the store with the aborted range, the state
// survives a reload, and read_committed reads stop at the LSO.
import { describe, expect, it } from 'vitest';
import { Partition } from '../../../broker/src/log/partition.js';
import { MemoryLogStore } from '../support/memory-log-store.js';
import { buildBatch } from '../../helpers/batches.js';
import { ErrorCode } from '../../../common/errors.js';

const tp = { topic: 't', partition: 0 };
const plain = () => buildBatch([{ key: null, value: Buffer.from('p') }]);
const txn = (pid: number, seq: number, n = 1) => buildBatch(Array.from({ length: n }, () => ({ key: null, value: Buffer.from('t') })), { producerId: pid, producerEpoch: 0, baseSequence: seq, transactional: true });
const opts = { logAppendTime: false };

describe('Partition with transactions', () => {
  it('holds the LSO at the oldest open transaction, moves it with markers and records aborted ranges', async () => {
    const store = new MemoryLogStore();
    const p = new Partition(tp, store);
    await p.append(plain(), opts); // 0
    await p.append(txn(1, 0, 2), opts); // 1-2
    await p.append(txn(2, 0), opts); // 3
    await p.append(plain(), opts); // 4
    expect(p.highWatermark).toBe(5);
    expect(p.lastStableOffset).toBe(1);
    expect((await p.read(0, 1 << 20, true)).map((b) => b.baseOffset)).toEqual([0]);
    expect((await p.read(0, 1 << 20)).map((b) => b.baseOffset)).toEqual([0, 1, 3, 4]);
    expect(await p.read(2, 1 << 20, true)).toEqual([]); // between LSO and high watermark: no data, no error

    expect(await p.appendMarker({ producerId: 1, producerEpoch: 0, commit: false, coordinatorEpoch: 0 })).toMatchObject({ errorCode: 0, baseOffset: 5 });
    expect(p.lastStableOffset).toBe(3);
    expect(await p.abortedTxns(0, 6)).toEqual([{ producerId: 1, firstOffset: 1, lastOffset: 5 }]);
    expect(await p.abortedTxns(6, 10)).toEqual([]);
    expect(await p.abortedTxns(0, 1)).toEqual([]); // the range starts at the upper bound: not overlapping
    expect(await p.appendMarker({ producerId: 2, producerEpoch: 0, commit: true, coordinatorEpoch: 0 })).toMatchObject({ errorCode: 0, baseOffset: 6 });
    expect(p.lastStableOffset).toBe(7);
    expect(p.highWatermark).toBe(7);

    // a reload (or a new leader) derives the same from the store
    await p.append(txn(2, 1), opts); // 7: producer 2's next transaction
    const again = new Partition(tp, store);
    await again.ensureLoaded();
    expect(again.lastStableOffset).toBe(7);
    expect(again.lastAbortedOffset).toBe(5);
    expect(await again.abortedTxns(2, 7)).toEqual([{ producerId: 1, firstOffset: 1, lastOffset: 5 }]);
    expect((await again.append(buildBatch([{ key: null, value: Buffer.from('x') }], { producerId: 2, producerEpoch: 0, baseSequence: 2 }), opts)).errorCode).toBe(ErrorCode.INVALID_TXN_STATE);
  });

  it('refuses a marker from an older producer epoch and writes nothing', async () => {
    const store = new MemoryLogStore();
    const p = new Partition(tp, store);
    await p.append(buildBatch([{ key: null, value: Buffer.from('t') }], { producerId: 1, producerEpoch: 3, baseSequence: 0, transactional: true }), opts);
    expect(await p.appendMarker({ producerId: 1, producerEpoch: 2, commit: true, coordinatorEpoch: 0 })).toMatchObject({ errorCode: ErrorCode.INVALID_PRODUCER_EPOCH });
    expect(p.nextOffset).toBe(1);
    expect(p.lastStableOffset).toBe(0);
  });
});
