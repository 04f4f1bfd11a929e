// The SharePartitionStore contract (broker/src/groups/share/share-store.ts):
// share-partition state round-trips, loads and writes are fenced by the
// partition's leader epoch, a write names the version it loaded and is
// refused after an administrative change, and the group and partition
// indexes follow writes and removals.
import { describe, expect, it } from 'vitest';
import { FencedStateEpochError, ShareCoordinatorFencedError, StaleShareStateError, type ShareGroupStore, type SharePartitionStore } from '../../../../broker/src/groups/share/share-store.js';
import { ShareGroup } from '../../../../broker/src/groups/share/share-group.js';
import type { StoredSharePartition } from '../../../../broker/src/groups/share/share-partition.js';
import { perTest, type Factory } from './harness.js';

const key = { groupId: 'sg{1}%', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partition: 3 };
const state = (start: number): StoredSharePartition => ({ startOffset: start, endOffset: start + 3, runs: [[start, start + 1, 1, 2, 1_700_000_030_000, 'm-1'], [start + 2, start + 2, 4, 5, 0, '']] });

export function shareStoreContract(open: Factory<SharePartitionStore & ShareGroupStore>): void {
  const store = perTest(open);

  describe('share-partition store', () => {
    it('a share-partition never written loads as none, at version 0', async () => {
      expect(await store().load(key, 0)).toEqual({ state: null, version: 0 });
      expect(await store().listGroupIds()).toEqual([]);
    });

    it('a write round-trips and moves the version; the group and partition are indexed', async () => {
      const s = store();
      const v = await s.save(key, 2, state(10), 0);
      expect(v).toBe(1);
      expect(await s.load(key, 2)).toEqual({ state: state(10), version: 1 });
      expect(await s.save(key, 2, state(11), 1)).toBe(2);
      expect(await s.read(key)).toEqual(state(11));
      expect(await s.listGroupIds()).toEqual(['sg{1}%']);
      expect(await s.listPartitions('sg{1}%')).toEqual([{ topicId: key.topicId, partition: 3 }]);
    });

    it('a newer leader\'s load fences the older leader\'s writes and loads', async () => {
      const s = store();
      await s.save(key, 1, state(10), 0);
      await s.load(key, 2);
      await expect(s.save(key, 1, state(99), 1)).rejects.toBeInstanceOf(FencedStateEpochError);
      await expect(s.load(key, 1)).rejects.toBeInstanceOf(FencedStateEpochError);
      expect(await s.read(key)).toEqual(state(10));
    });

    it('an administrative change makes the leader\'s next write stale', async () => {
      const s = store();
      const v = await s.save(key, 1, state(10), 0);
      await s.overwrite(key, { startOffset: 0, endOffset: 0, runs: [] });
      await expect(s.save(key, 1, state(12), v)).rejects.toBeInstanceOf(StaleShareStateError);
      const again = await s.load(key, 1);
      expect(again.state).toEqual({ startOffset: 0, endOffset: 0, runs: [] });
      expect(await s.save(key, 1, state(1), again.version)).toBe(again.version + 1);
    });

    it('removal drops the state and the partition from the index; the group is forgotten on request', async () => {
      const s = store();
      await s.save(key, 1, state(10), 0);
      await s.overwrite(key, null);
      expect(await s.read(key)).toBeNull();
      expect(await s.listPartitions('sg{1}%')).toEqual([]);
      await s.forgetGroup('sg{1}%');
      expect(await s.listGroupIds()).toEqual([]);
    });

    it('a share group\'s membership round-trips, fenced by the coordinator epoch, and is indexed', async () => {
      const s = store();
      expect(await s.loadGroup('sg{1}%', 1)).toBeNull();
      const g = new ShareGroup('sg{1}%');
      g.heartbeat({ memberId: 'm-1', memberEpoch: 0, rackId: 'r1', subscribedTopicNames: ['t'], clientId: 'c', clientHost: '/h' }, new Map([['t', { name: 't', id: 'T', partitions: 2 }]]), 10);
      await s.saveGroup('sg{1}%', 1, g.toStored());
      expect(await s.loadGroup('sg{1}%', 1)).toEqual(g.toStored());
      expect(ShareGroup.fromStored('sg{1}%', (await s.loadGroup('sg{1}%', 1))!).toStored()).toEqual(g.toStored());
      expect(await s.listGroupIds()).toEqual(['sg{1}%']);
      await s.loadGroup('sg{1}%', 2);
      await expect(s.saveGroup('sg{1}%', 1, null)).rejects.toBeInstanceOf(ShareCoordinatorFencedError);
      await expect(s.loadGroup('sg{1}%', 1)).rejects.toBeInstanceOf(ShareCoordinatorFencedError);
      await s.saveGroup('sg{1}%', 2, null);
      expect(await s.loadGroup('sg{1}%', 2)).toBeNull();
    });
  });
}
