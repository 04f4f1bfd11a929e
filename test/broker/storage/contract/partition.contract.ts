// What Produce and Fetch rely on, through the real Partition over a store:
// offsets and the high watermark, reads with a byte budget (KIP-74: at least
// one whole batch), idempotent-producer sequences (duplicate, out of order,
// producer epoch fencing) that survive a reload from the store, leader-epoch
// fencing, and the log start that DeleteRecords moves (LogManager.advanceLogStart).
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../../common/errors.js';
import { Partition } from '../../../../broker/src/log/partition.js';
import { LogManager } from '../../../../broker/src/log/log-manager.js';
import { loadBrokerConfig } from '../../../../broker/src/config/config.js';
import type { LogStore } from '../../../../broker/src/storage/log-store.js';
import { buildBatch, type BatchOptions } from '../../../helpers/batches.js';
import { perTest, type Factory } from './harness.js';
import { topicRecord } from './log-store.contract.js';

const batch = (n: number, tag: string, o: BatchOptions = {}): Buffer =>
  buildBatch(Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`${tag}-${i}`) })), o);

const opts = { logAppendTime: false };

export function partitionContract(open: Factory<LogStore>): void {
  const store = perTest(open);
  const tp = { topic: 'p', partition: 0 };

  async function fresh(s: LogStore): Promise<Partition> {
    await s.createTopic(topicRecord('p'));
    return new Partition(tp, s);
  }

  describe('partition over the store', () => {
    it('assigns consecutive offsets, moves the high watermark, and reads whole batches within a byte budget', async () => {
      const s = store();
      const p = await fresh(s);
      const counts = [3, 2, 4];
      const sent = counts.map((n, i) => batch(n, `b${i}`));
      const sizes = sent.map((b) => b.length);
      let expectBase = 0;
      for (const [i, b] of sent.entries()) {
        const out = await p.append(b, opts);
        expect(out.errorCode).toBe(ErrorCode.NONE);
        expect(out.baseOffset).toBe(expectBase);
        expectBase += counts[i]!;
      }
      expect(p.highWatermark).toBe(expectBase);
      expect(p.nextOffset).toBe(expectBase);

      const read = async (offset: number, max: number) => (await p.read(offset, max)).map((b) => b.baseOffset);
      expect(await read(0, 1 << 20)).toEqual([0, 3, 5]);
      // A budget is never exceeded past the first batch. The partition sizes its
      // store read by an average batch size, so it may return fewer batches than
      // fit: a non-empty prefix of what fits, in order.
      const within = async (offset: number, max: number, fits: number[]) => {
        const got = await read(offset, max);
        expect(got.length).toBeGreaterThan(0);
        expect(got).toEqual(fits.slice(0, got.length));
      };
      await within(0, sizes[0]! + sizes[1]!, [0, 3]);
      expect(await read(0, sizes[0]! + sizes[1]! - 1)).toEqual([0]);
      expect(await read(0, 1)).toEqual([0]); // at least one batch, whatever the budget
      await within(4, sizes[1]! + sizes[2]!, [3, 5]); // from the batch containing offset 4
      expect(await read(expectBase, 1 << 20)).toEqual([]);
      await expect(p.read(expectBase + 1, 1 << 20)).rejects.toMatchObject({ code: ErrorCode.OFFSET_OUT_OF_RANGE });

      // A partition loaded from the store sees the same log end and batches.
      const again = new Partition(tp, s);
      expect((await again.read(0, 1 << 20)).map((b) => b.baseOffset)).toEqual([0, 3, 5]);
      expect(again.highWatermark).toBe(expectBase);
    });

    it('idempotent producer: a duplicate answers its first offset, a sequence gap or an older producer epoch is refused, also after a reload', async () => {
      const s = store();
      const p = await fresh(s);
      const producerId = await s.nextProducerId();
      const first = await p.append(batch(3, 'a', { producerId, producerEpoch: 0, baseSequence: 0 }), opts);
      expect(first).toMatchObject({ errorCode: ErrorCode.NONE, baseOffset: 0 });
      const second = await p.append(batch(2, 'b', { producerId, producerEpoch: 0, baseSequence: 3 }), opts);
      expect(second).toMatchObject({ errorCode: ErrorCode.NONE, baseOffset: 3 });
      // The retry of the second batch is a duplicate: nothing is written.
      expect(await p.append(batch(2, 'b', { producerId, producerEpoch: 0, baseSequence: 3 }), opts)).toMatchObject({ errorCode: ErrorCode.NONE, baseOffset: 3 });
      expect((await s.tail(tp)).nextOffset).toBe(5);
      expect((await p.append(batch(1, 'gap', { producerId, producerEpoch: 0, baseSequence: 7 }), opts)).errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);

      // The producer states come back from the store.
      const reloaded = new Partition(tp, s);
      expect(await reloaded.append(batch(2, 'b', { producerId, producerEpoch: 0, baseSequence: 3 }), opts)).toMatchObject({ errorCode: ErrorCode.NONE, baseOffset: 3 });
      expect((await reloaded.append(batch(1, 'gap', { producerId, producerEpoch: 0, baseSequence: 6 }), opts)).errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
      // A bumped producer epoch starts again at sequence 0 and fences the older epoch.
      expect(await reloaded.append(batch(1, 'c', { producerId, producerEpoch: 1, baseSequence: 0 }), opts)).toMatchObject({ errorCode: ErrorCode.NONE, baseOffset: 5 });
      expect((await reloaded.append(batch(1, 'old', { producerId, producerEpoch: 0, baseSequence: 5 }), opts)).errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
      expect((await s.tail(tp)).nextOffset).toBe(6);
    });

    it('a leader whose epoch the store moved on is fenced: NOT_LEADER_OR_FOLLOWER and nothing stored', async () => {
      const s = store();
      const p = await fresh(s);
      expect((await p.append(batch(1, 'a'), opts)).errorCode).toBe(ErrorCode.NONE);
      await s.restoreLeaderEpoch(tp, p.leaderEpoch + 1); // another broker took the partition over
      expect((await p.append(batch(1, 'stale'), opts)).errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
      expect((await s.read(tp, 0, 10)).map((b) => b.baseOffset)).toEqual([0]);
      expect((await s.tail(tp)).nextOffset).toBe(1);
    });

    it('DeleteRecords: the log start moves, whole batches below it go, the one containing it stays, reads below it are out of range', async () => {
      const s = store();
      const log = new LogManager(s, loadBrokerConfig([], {}));
      await log.createTopic('p', 1, {});
      const p = await log.partition('p', 0);
      for (const n of [2, 2, 2]) expect((await p.append(batch(n, 'x'), opts)).errorCode).toBe(ErrorCode.NONE); // bases 0, 2, 4
      await log.advanceLogStart(p, 3);
      expect((await s.tail(tp)).logStartOffset).toBe(3);
      expect((await s.read(tp, 0, 10)).map((b) => b.baseOffset)).toEqual([2, 4]);
      await expect(p.read(1, 1 << 20)).rejects.toMatchObject({ code: ErrorCode.OFFSET_OUT_OF_RANGE });
      expect((await p.read(3, 1 << 20)).map((b) => b.baseOffset)).toEqual([2, 4]);
      // Everything deleted: the newest batch is kept (the log end stays derivable), the start is the end.
      await log.advanceLogStart(p, 6);
      expect((await s.read(tp, 0, 10)).map((b) => b.baseOffset)).toEqual([4]);
      expect(await new Partition(tp, s).read(6, 1 << 20)).toEqual([]);
    });
  });
}
