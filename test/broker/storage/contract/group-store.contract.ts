// The GroupStore contract (broker/src/groups/group-store.ts): group metadata
// and committed offsets round-trip, OffsetCommit replaces per partition,
// OffsetDelete and DeleteGroups remove, ListGroups sees every group with
// metadata or offsets, and every load and write is fenced by coordinator epoch.
import { describe, expect, it } from 'vitest';
import { CoordinatorFencedError, offsetKey, type CommittedOffset, type GroupStore, type StoredGroup } from '../../../../broker/src/groups/group-store.js';
import { perTest, type Factory } from './harness.js';

const group = (groupId: string, generation: number): StoredGroup => ({
  groupId, protocolType: 'consumer', protocolName: 'range', generation, leader: 'm-1', stateTimestamp: 1_700_000_000_123,
  members: [
    { memberId: 'm-1', groupInstanceId: null, clientId: 'c1', clientHost: '/127.0.0.1', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 30_000, metadata: Buffer.from([0, 1, 2, 255]), assignment: Buffer.from('a1') },
    { memberId: 'm-2', groupInstanceId: 'static-2', clientId: 'c2', clientHost: '/127.0.0.2', sessionTimeoutMs: 45_000, rebalanceTimeoutMs: 60_000, metadata: Buffer.alloc(0), assignment: Buffer.from([9]) },
  ],
});

const committed = (offset: number, metadata = ''): CommittedOffset => ({ offset, leaderEpoch: 3, metadata, commitTimestamp: 1_700_000_000_000 + offset });

export function groupStoreContract(open: Factory<GroupStore>): void {
  const store = perTest(open);

  describe('group store', () => {
    it('a group never written loads empty and is not listed', async () => {
      const s = store();
      expect(await s.load('nobody', 1)).toEqual({ group: null, offsets: new Map() });
      expect(await s.listGroupIds()).toEqual([]);
    });

    it('metadata round-trips (members, binary metadata and assignments, null fields) and a save replaces it', async () => {
      const s = store();
      const g = group('g {1} %', 4);
      await s.saveGroup(g, 1);
      expect((await s.load(g.groupId, 1)).group).toEqual(g);
      const empty: StoredGroup = { groupId: g.groupId, protocolType: 'consumer', protocolName: null, generation: 5, leader: null, stateTimestamp: 7, members: [] };
      await s.saveGroup(empty, 1);
      expect((await s.load(g.groupId, 1)).group).toEqual(empty);
      expect(await s.listGroupIds()).toEqual([g.groupId]);
    });

    it('a consumer-protocol group (KIP-848) round-trips with its epochs, members and assignments; a classic save drops it', async () => {
      const s = store();
      const g: StoredGroup = {
        groupId: 'cg', protocolType: null, protocolName: null, generation: 7, leader: null, stateTimestamp: 9, members: [],
        consumer: {
          groupEpoch: 7, assignmentEpoch: 7, assignorName: 'range', subscriptionMetadata: 't:id-t:4',
          members: [{
            memberId: 'm', instanceId: 'i', rackId: null, clientId: 'c', clientHost: '/h', rebalanceTimeoutMs: 30_000,
            subscribedTopicNames: ['t'], subscribedTopicRegex: 'x.*', serverAssignor: null, memberEpoch: 6, previousMemberEpoch: 5,
            state: 'UNREVOKED_PARTITIONS', assigned: [{ topicId: 'id-t', partitions: [0, 1] }], pendingRevocation: [{ topicId: 'id-t', partitions: [2] }],
            target: [{ topicId: 'id-t', partitions: [0, 1] }],
          }],
        },
      };
      await s.saveGroup(g, 1);
      expect((await s.load('cg', 1)).group).toEqual(g);
      const classic: StoredGroup = { ...g, consumer: undefined, protocolType: 'consumer' };
      delete classic.consumer;
      await s.saveGroup(classic, 1);
      expect((await s.load('cg', 1)).group).toEqual(classic);
    });

    it('offset commits replace per partition; deleteOffsets removes only the named partitions; deleteGroup removes everything', async () => {
      const s = store();
      await s.commitOffsets('simple', new Map([[offsetKey('t', 0), committed(10, 'm0')], [offsetKey('t', 1), committed(20)], [offsetKey('a/b.c', 2), committed(30)]]), 1);
      await s.commitOffsets('simple', new Map([[offsetKey('t', 1), committed(21, 'again')]]), 1);
      const expected = new Map([[offsetKey('t', 0), committed(10, 'm0')], [offsetKey('t', 1), committed(21, 'again')], [offsetKey('a/b.c', 2), committed(30)]]);
      expect(await s.load('simple', 1)).toEqual({ group: null, offsets: expected });
      expect(await s.listGroupIds()).toEqual(['simple']); // offsets alone make a group listed

      await s.deleteOffsets('simple', [offsetKey('t', 0), offsetKey('never', 9)], 1);
      expected.delete(offsetKey('t', 0));
      expect((await s.load('simple', 1)).offsets).toEqual(expected);

      await s.saveGroup(group('simple', 1), 1);
      await s.deleteGroup('simple', 1);
      expect(await s.load('simple', 1)).toEqual({ group: null, offsets: new Map() });
      expect(await s.listGroupIds()).toEqual([]);
    });

    it('an empty commit or delete changes nothing and does not list the group', async () => {
      const s = store();
      await s.commitOffsets('idle', new Map(), 1);
      await s.deleteOffsets('idle', [], 1);
      expect(await s.listGroupIds()).toEqual([]);
      // ... nor claims the group for that epoch: an older coordinator may still write it.
      await s.commitOffsets('idle', new Map([[offsetKey('t', 0), committed(1)]]), 0);
      expect((await s.load('idle', 0)).offsets.get(offsetKey('t', 0))).toEqual(committed(1));
    });

    it('a newer coordinator\'s load of an existing group fences every load and write of an older one', async () => {
      const s = store();
      const g = group('fenced', 2);
      await s.saveGroup(g, 3);
      await s.commitOffsets(g.groupId, new Map([[offsetKey('t', 0), committed(5)]]), 3);
      await s.load(g.groupId, 7); // the newer coordinator takes the group over
      const refused = async (p: Promise<unknown>) => {
        const e = await p.then(() => null, (x: unknown) => x);
        expect(e).toBeInstanceOf(CoordinatorFencedError);
        expect(e).toMatchObject({ groupId: g.groupId, epoch: 3, storedEpoch: 7 });
      };
      await refused(s.load(g.groupId, 3));
      await refused(s.saveGroup({ ...g, generation: 99 }, 3));
      await refused(s.commitOffsets(g.groupId, new Map([[offsetKey('t', 0), committed(1)]]), 3));
      await refused(s.deleteOffsets(g.groupId, [offsetKey('t', 0)], 3));
      await refused(s.deleteGroup(g.groupId, 3));
      expect(await s.load(g.groupId, 7)).toEqual({ group: g, offsets: new Map([[offsetKey('t', 0), committed(5)]]) });
    });

    it('loading a group that does not exist claims nothing: an older coordinator may still create it', async () => {
      const s = store();
      await s.load('new', 9);
      await s.saveGroup(group('new', 1), 2);
      expect((await s.load('new', 2)).group).toEqual(group('new', 1));
      // Once deleted, the group is free for any coordinator again.
      await s.deleteGroup('new', 2);
      await s.saveGroup(group('new', 3), 1);
      expect((await s.load('new', 1)).group).toEqual(group('new', 3));
    });
  });
}
