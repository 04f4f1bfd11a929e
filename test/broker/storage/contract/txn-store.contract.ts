// The TxnStore contract (transactions/txn-store.ts): transaction state per
// transactional id round-trips, ids are indexed by coordinator slot, producer
// ids are fresh, and loads and writes are fenced by coordinator epoch.
import { describe, expect, it } from 'vitest';
import { TxnCoordinatorFencedError, type TxnStore } from '../../../../broker/src/transactions/txn-store.js';
import type { TxnMetadata } from '../../../../broker/src/transactions/txn-metadata.js';
import { perTest, type Factory } from './harness.js';

const meta = (transactionalId: string, producerEpoch: number, o: Partial<TxnMetadata> = {}): TxnMetadata => ({
  transactionalId, producerId: 4000, producerEpoch, lastProducerId: -1, lastProducerEpoch: -1, timeoutMs: 60_000, state: 'Ongoing',
  partitions: ['t/0', 'a/b/3'], groups: ['g'], txnStartMs: 1_700_000_000_000, lastUpdateMs: 1_700_000_000_500, txnVersion: 0, nextProducerId: -1, ...o,
});

export function txnStoreContract(open: Factory<TxnStore>): void {
  const store = perTest(open);

  describe('transaction store', () => {
    it('state round-trips and is replaced by each save; ids are indexed by slot', async () => {
      const s = store();
      expect(await s.load('app {1}', 1)).toBeNull();
      await s.save(meta('app {1}', 0), 7, 1);
      expect(await s.load('app {1}', 1)).toEqual(meta('app {1}', 0));
      const done = meta('app {1}', 1, { state: 'CompleteCommit', partitions: [], groups: [], txnStartMs: -1, lastProducerId: 4000, lastProducerEpoch: 0 });
      await s.save(done, 7, 1);
      await s.save(meta('other', 0), 7, 1);
      await s.save(meta('elsewhere', 0), 8, 1);
      expect(await s.load('app {1}', 1)).toEqual(done);
      expect((await s.idsOfSlot(7)).sort()).toEqual(['app {1}', 'other']);
      expect(await s.idsOfSlot(9)).toEqual([]);
    });

    it('keeps the transactions v2 fields (client transaction version, the producer id an exhausted epoch moves to)', async () => {
      const s = store();
      const v2 = meta('v2', 32767, { state: 'PrepareCommit', txnVersion: 2, nextProducerId: 4001, lastProducerId: 4000, lastProducerEpoch: 32766 });
      await s.save(v2, 3, 1);
      expect(await s.load('v2', 1)).toEqual(v2);
    });

    it('a newer coordinator\'s load fences an older coordinator\'s loads and saves', async () => {
      const s = store();
      await s.save(meta('x', 0), 1, 2);
      await s.load('x', 5);
      for (const p of [s.load('x', 2), s.save(meta('x', 9), 1, 2)]) {
        const e = await p.then(() => null, (x: unknown) => x);
        expect(e).toBeInstanceOf(TxnCoordinatorFencedError);
        expect(e).toMatchObject({ transactionalId: 'x', epoch: 2, storedEpoch: 5 });
      }
      expect(await s.load('x', 5)).toEqual(meta('x', 0));
      // Loading an id that was never saved claims nothing.
      await s.load('fresh', 9);
      await s.save(meta('fresh', 0), 1, 3);
      expect(await s.load('fresh', 3)).toEqual(meta('fresh', 0));
    });

    it('producer ids are fresh', async () => {
      const s = store();
      const ids = [await s.nextProducerId(), await s.nextProducerId(), await s.nextProducerId()];
      expect(new Set(ids).size).toBe(3);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    });
  });
}
