// The ClusterStore contract (broker/src/storage/cluster-store.ts): broker
// registrations by instance, leadership leases that expire after their TTL
// unless renewed by their holder, coordinator epochs bumped with each
// coordinator lease taken, partition leader epochs and their history.
import { describe, expect, it } from 'vitest';
import type { BrokerInfo, ClusterStore, LeaseUnit } from '../../../../broker/src/storage/cluster-store.js';
import { sleep } from '../../../helpers/procs.js';
import { perTestOpened, type Factory } from './harness.js';

const broker = (nodeId: number): BrokerInfo => ({ nodeId, host: `h${nodeId}`, port: 9000 + nodeId, rack: nodeId % 2 ? 'r1' : null, endpoints: [{ listener: 'PLAINTEXT', host: `h${nodeId}`, port: 9000 + nodeId }] });

const part: LeaseUnit = { kind: 'partition', topic: 't', partition: 3 };
const slot: LeaseUnit = { kind: 'coordinator', slot: 5 };
/** Short enough to wait out in a test, long enough that a renew in between lands. */
const TTL_MS = 400;

export function clusterStoreContract(open: Factory<ClusterStore>): void {
  const opened = perTestOpened(open);
  const store = () => opened().store;
  const wait = (ms: number) => (opened().wait ?? sleep)(ms);

  describe('cluster store', () => {
    it('registrations: live until they expire (by the caller\'s clock), refused to another instance meanwhile, ordered by node id', async () => {
      const s = store();
      const now = 1_000_000;
      expect(await s.registerBroker(broker(2), '2:a', now + 100, now)).toEqual({ ok: true });
      expect(await s.registerBroker(broker(1), '1:a', now + 50, now)).toEqual({ ok: true });
      expect(await s.liveBrokers(now)).toEqual([broker(1), broker(2)]);
      expect(await s.registerBroker(broker(2), '2:b', now + 500, now + 10)).toEqual({ ok: false, holder: '2:a', expiresAt: now + 100 });
      // The holder refreshes; once it lapses another instance may take the node id.
      expect(await s.registerBroker(broker(2), '2:a', now + 200, now + 20)).toEqual({ ok: true });
      expect(await s.liveBrokers(now + 150)).toEqual([broker(2)]);
      expect(await s.registerBroker(broker(2), '2:b', now + 900, now + 201)).toEqual({ ok: true });
      // Only the holding instance unregisters.
      await s.unregisterBroker(2, '2:a');
      expect(await s.liveBrokers(now + 300)).toEqual([broker(2)]);
      await s.unregisterBroker(2, '2:b');
      expect(await s.liveBrokers(now + 300)).toEqual([]);
    });

    it('a lease has one holder; only the holder renews or releases it; it expires after its TTL unless renewed', async () => {
      const s = store();
      expect(await s.leaseHolders([part, slot])).toEqual([{ holder: null, instance: null, epoch: 0 }, { holder: null, instance: null, epoch: 0 }]);
      expect(await s.acquireLease(part, '1:a', TTL_MS)).toEqual({ epoch: 0 });
      expect(await s.acquireLease(part, '2:a', TTL_MS)).toBeNull();
      expect(await s.renewLeases([part], '2:a', TTL_MS)).toEqual([false]);
      await s.releaseLease(part, '2:a');
      expect((await s.leaseHolders([part]))[0]).toMatchObject({ holder: 1, instance: '1:a' });

      // Renewed before it lapses, it is still held past its first TTL (by
      // TTL/4 either side of the first and the renewed expiry, whatever the
      // delays before the renew).
      await wait(TTL_MS / 2);
      expect(await s.renewLeases([part], '1:a', TTL_MS)).toEqual([true]);
      await wait(TTL_MS * 0.75);
      expect((await s.leaseHolders([part]))[0]).toMatchObject({ holder: 1, instance: '1:a' });
      // Not renewed: it lapses, the holder can no longer renew it, and another instance takes it.
      await wait(TTL_MS + TTL_MS / 4);
      expect(await s.leaseHolders([part])).toEqual([{ holder: null, instance: null, epoch: 0 }]);
      expect(await s.renewLeases([part], '1:a', TTL_MS)).toEqual([false]);
      expect(await s.acquireLease(part, '2:a', TTL_MS)).toEqual({ epoch: 0 });
      await s.releaseLease(part, '2:a');
      expect((await s.leaseHolders([part]))[0]!.instance).toBeNull();
    });

    it('renewLeases renews, in one call, exactly the given leases the instance holds, answering in order', async () => {
      const s = store();
      const parts: LeaseUnit[] = Array.from({ length: 300 }, (_, i) => ({ kind: 'partition', topic: 'renew-many', partition: i }));
      for (const [i, u] of parts.entries()) if (i % 3 !== 2) expect(await s.acquireLease(u, i % 3 === 0 ? '1:a' : '2:a', 1_000)).not.toBeNull();
      expect(await s.acquireLease(slot, '1:a', 1_000)).not.toBeNull();
      const all = [...parts, slot];
      const expected = all.map((_, i) => i === parts.length || i % 3 === 0);
      expect(await s.renewLeases(all, '1:a', 60_000)).toEqual(expected);
      expect(await s.renewLeases([], '1:a', 60_000)).toEqual([]);
      // past the first TTL only the renewed leases are still held, by their holder
      await wait(1_300);
      // read in one go (batched per call and per slot), with each partition's leader epoch
      await s.bumpLeaderEpoch('renew-many', 3);
      await s.bumpLeaderEpoch('renew-many', 3);
      await s.bumpLeaderEpoch('renew-many', 299);
      const holders = await s.leaseHolders(all);
      expect(holders.map((h) => h.instance)).toEqual(expected.map((ok) => (ok ? '1:a' : null)));
      expect(holders.map((h) => h.holder)).toEqual(expected.map((ok) => (ok ? 1 : null)));
      expect(holders.map((h) => h.epoch)).toEqual(all.map((u) => (u.kind === 'partition' ? ({ 3: 2, 299: 1 } as Record<number, number>)[u.partition] ?? 0 : 0)));
      for (const u of all) await s.releaseLease(u, '1:a');
    });

    it('every coordinator lease taken bumps the slot\'s coordinator epoch', async () => {
      const s = store();
      expect(await s.acquireLease(slot, '1:a', 10_000)).toEqual({ epoch: 1 });
      expect(await s.acquireLease(slot, '2:a', 10_000)).toBeNull();
      await s.releaseLease(slot, '1:a');
      expect(await s.acquireLease(slot, '2:a', 10_000)).toEqual({ epoch: 2 });
      expect((await s.leaseHolders([slot]))[0]).toEqual({ holder: 2, instance: '2:a', epoch: 0 });
    });

    it('leader epochs: bumped one at a time, reported with the lease holder; their start offsets are kept', async () => {
      const s = store();
      expect(await s.bumpLeaderEpoch('t', 3)).toBe(1);
      expect(await s.bumpLeaderEpoch('t', 3)).toBe(2);
      expect(await s.bumpLeaderEpoch('t', 4)).toBe(1);
      await s.acquireLease(part, '7:x', 10_000);
      expect(await s.leaseHolders([part, { kind: 'partition', topic: 't', partition: 4 }])).toEqual([
        { holder: 7, instance: '7:x', epoch: 2 }, { holder: null, instance: null, epoch: 1 },
      ]);
      await s.recordEpochStart('t', 3, 1, 0);
      await s.recordEpochStart('t', 3, 2, 40);
      expect(await s.epochHistory('t', 3)).toEqual(new Map([[1, 0], [2, 40]]));
      expect(await s.epochHistory('t', 4)).toEqual(new Map());
    });
  });
}
