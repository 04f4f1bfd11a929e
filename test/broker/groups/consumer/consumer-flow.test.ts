// Consumer-protocol groups (KIP-848) through the GroupCoordinator: session
// expiry, storage with the coordinator epoch (a new coordinator loads the
// group as stored; an old one is fenced), offsets committed with member
// epochs, and how ListGroups, DescribeGroups and JoinGroup see the group type.
import { describe, expect, it } from 'vitest';
import { GroupCoordinator, type CoordinatorSettings } from '../../../../broker/src/groups/coordinator.js';
import type { HeartbeatInput } from '../../../../broker/src/groups/consumer/consumer-group.js';
import { ErrorCode } from '../../../../common/errors.js';
import { FakeClock } from '../../support/fake-clock.js';
import { MemoryGroupStore } from '../../support/memory-group-store.js';

const TOPICS = [{ name: 't', id: 'id-t', partitions: 4 }];

function setup(settings: Partial<CoordinatorSettings> = {}, store = new MemoryGroupStore(), clock = new FakeClock(), epoch = 0) {
  const c = new GroupCoordinator(store, clock, { settings, topics: async () => TOPICS, coordinatorEpoch: () => epoch });
  return { c, store, clock };
}

const join = (memberId: string, over: Partial<HeartbeatInput> = {}): HeartbeatInput => ({
  memberId, memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['t'],
  subscribedTopicRegex: null, serverAssignor: null, ownedPartitions: [], clientId: 'c', clientHost: '/h', ...over,
});
const beat = (memberId: string, memberEpoch: number): HeartbeatInput => ({ ...join(memberId), memberEpoch, rebalanceTimeoutMs: -1, subscribedTopicNames: null, ownedPartitions: null });
const commit = (memberId: string, epoch: number, apiVersion = 9) => ({
  groupId: 'g', generationId: epoch, memberId, groupInstanceId: null, apiVersion,
  offsets: [{ topic: 't', partition: 0, offset: 5, leaderEpoch: -1, metadata: '' }],
});

describe('consumer-protocol groups in the coordinator', () => {
  it('answers with the heartbeat interval; a member is removed when its session expires', async () => {
    const { c, clock } = setup({ consumerSessionTimeoutMs: 45_000, consumerHeartbeatIntervalMs: 5000 });
    const a = await c.consumerGroupHeartbeat('g', join('a'));
    expect(a).toMatchObject({ errorCode: ErrorCode.NONE, memberEpoch: 1, heartbeatIntervalMs: 5000 });
    await c.consumerGroupHeartbeat('g', join('b'));
    // a keeps heartbeating (reporting what it owns, so it revokes in time), b goes silent: after 45 s b is gone.
    let epoch = a.memberEpoch;
    let owned = a.assignment!;
    for (let i = 0; i < 10; i++) {
      await clock.advance(5000);
      const r = await c.consumerGroupHeartbeat('g', { ...beat('a', epoch), ownedPartitions: owned });
      expect(r.errorCode).toBe(ErrorCode.NONE);
      epoch = r.memberEpoch;
      owned = r.assignment ?? owned;
    }
    const cg = c.loadedGroup('g')!.modern!;
    expect([...cg.members.keys()]).toEqual(['a']);
    expect((await c.consumerGroupHeartbeat('g', beat('b', 2))).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(owned).toEqual([{ topicId: 'id-t', partitions: [0, 1, 2, 3] }]);
  });

  it('a member that does not revoke within its rebalance timeout is removed', async () => {
    const { c, clock } = setup();
    const a = await c.consumerGroupHeartbeat('g', join('a', { rebalanceTimeoutMs: 10_000 }));
    await c.consumerGroupHeartbeat('g', join('b'));
    // a is asked to give up two partitions but keeps reporting all four.
    const r = await c.consumerGroupHeartbeat('g', { ...beat('a', a.memberEpoch), ownedPartitions: a.assignment });
    expect(r.assignment![0]!.partitions.length).toBe(2);
    expect(c.loadedGroup('g')!.modern!.members.get('a')!.state).toBe('UNREVOKED_PARTITIONS');
    await clock.advance(10_000);
    expect([...c.loadedGroup('g')!.modern!.members.keys()]).toEqual(['b']);
  });

  it('a new coordinator (higher epoch) loads the group as stored and fences the old one', async () => {
    const store = new MemoryGroupStore();
    const clock = new FakeClock();
    const old = setup({}, store, clock, 1).c;
    const a = await old.consumerGroupHeartbeat('g', join('a'));
    expect(store.groups.get('g')!.consumer!.members.map((m) => m.memberId)).toEqual(['a']);
    const next = setup({}, store, clock, 2).c;
    const d = await next.describeConsumerGroup('g');
    expect(d).toMatchObject({ errorCode: ErrorCode.NONE, state: 'Stable', groupEpoch: 1, assignmentEpoch: 1, assignorName: 'uniform' });
    expect(d.members[0]).toMatchObject({ memberId: 'a', memberEpoch: a.memberEpoch, subscribedTopicNames: ['t'] });
    expect(d.members[0]!.assignment).toEqual([{ topicId: 'id-t', topicName: 't', partitions: [0, 1, 2, 3] }]);
    // The member carries on with the new coordinator at the same epoch.
    expect((await next.consumerGroupHeartbeat('g', beat('a', a.memberEpoch))).errorCode).toBe(ErrorCode.NONE);
    // The old coordinator's next write is refused: NOT_COORDINATOR.
    expect((await old.consumerGroupHeartbeat('g', join('b'))).errorCode).toBe(ErrorCode.NOT_COORDINATOR);
  });

  it('OffsetCommit checks the member epoch (v9+); an older version is UNSUPPORTED_VERSION', async () => {
    const { c } = setup();
    const a = await c.consumerGroupHeartbeat('g', join('a'));
    expect(await c.commitOffsets(commit('a', a.memberEpoch))).toEqual([ErrorCode.NONE]);
    expect(await c.commitOffsets(commit('a', a.memberEpoch + 1))).toEqual([ErrorCode.STALE_MEMBER_EPOCH]);
    expect(await c.commitOffsets(commit('nobody', a.memberEpoch))).toEqual([ErrorCode.UNKNOWN_MEMBER_ID]);
    expect(await c.commitOffsets(commit('a', a.memberEpoch, 8))).toEqual([ErrorCode.UNSUPPORTED_VERSION]);
    // Outside group management (epoch -1) only while the group has no members.
    expect(await c.commitOffsets(commit('', -1))).toEqual([ErrorCode.UNKNOWN_MEMBER_ID]);
    expect(await c.validateOffsetFetch('g', 'a', a.memberEpoch)).toBeNull();
    expect(await c.validateOffsetFetch('g', 'a', a.memberEpoch + 1)).toBe(ErrorCode.STALE_MEMBER_EPOCH);
    expect((await c.fetchOffsets('g', [{ topic: 't', partition: 0 }]))[0]!.offset).toBe(5);
  });

  it('ListGroups reports the type; DescribeGroups and a classic member whose subscription does not parse refuse a consumer group; an empty one can be deleted', async () => {
    const { c } = setup();
    await c.consumerGroupHeartbeat('g', join('a'));
    expect(await c.listGroups()).toEqual([{ groupId: 'g', protocolType: 'consumer', state: 'Stable', type: 'consumer' }]);
    // As Kafka 4.4 answers DescribeGroups v0-v5: no error, Dead, no members.
    expect(await c.describeGroup('g')).toEqual({ groupId: 'g', state: 'Dead', protocolType: '', protocolData: '', members: [] });
    const classic = await c.join({
      groupId: 'g', memberId: '', groupInstanceId: null, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.alloc(0) }], clientId: 'c', clientHost: '/h', requireKnownMemberId: false, supportSkipAssignment: false,
    });
    expect(classic.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect(await c.deleteGroup('g')).toBe(ErrorCode.NON_EMPTY_GROUP);
    expect((await c.consumerGroupHeartbeat('g', { ...beat('a', -1), memberEpoch: -1 })).memberEpoch).toBe(-1);
    expect(await c.listGroups()).toEqual([{ groupId: 'g', protocolType: 'consumer', state: 'Empty', type: 'consumer' }]);
    expect(await c.deleteGroup('g')).toBe(ErrorCode.NONE);
  });

  it('an empty classic group becomes a consumer group (offsets kept) and back; one whose members\' subscriptions do not parse is not converted', async () => {
    const { c, clock } = setup();
    const classicJoin = () => c.join({
      groupId: 'g', memberId: '', groupInstanceId: null, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.alloc(0) }], clientId: 'c', clientHost: '/h', requireKnownMemberId: false, supportSkipAssignment: false,
    });
    // Offsets committed outside group management: an empty classic group.
    await c.commitOffsets({ ...commit('', -1), groupId: 'g' });
    const a = await c.consumerGroupHeartbeat('g', join('a'));
    expect(a.errorCode).toBe(ErrorCode.NONE);
    expect((await c.fetchOffsets('g', [{ topic: 't', partition: 0 }]))[0]!.offset).toBe(5);
    await c.consumerGroupHeartbeat('g', { ...beat('a', a.memberEpoch), memberEpoch: -1 });
    // Empty again: a classic member may take it back.
    const joined = classicJoin();
    await clock.advance(5000); // group.initial.rebalance.delay.ms
    expect((await joined).errorCode).toBe(ErrorCode.NONE);
    expect((await c.listGroups())[0]).toMatchObject({ groupId: 'g', type: 'classic' });
    // A classic group with a member whose metadata is no ConsumerProtocolSubscription is not converted (Kafka: GROUP_ID_NOT_FOUND); classic-bridge.test.ts converts well-formed ones.
    const refused = await c.consumerGroupHeartbeat('g', join('b'));
    expect(refused).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Group g is not a consumer group.' });
  });

  it('a refused first join (unknown assignor) leaves no group behind; a heartbeat to a missing group is GROUP_ID_NOT_FOUND', async () => {
    const { c, store } = setup();
    expect(await c.consumerGroupHeartbeat('g', beat('a', 3))).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Consumer group g not found.' });
    expect((await c.consumerGroupHeartbeat('g', join('a', { serverAssignor: 'sticky' }))).errorCode).toBe(ErrorCode.UNSUPPORTED_ASSIGNOR);
    expect(await c.listGroups()).toEqual([]);
    expect(store.groups.size).toBe(0);
  });

  it('ConsumerGroupDescribe of a classic or unknown group is GROUP_ID_NOT_FOUND', async () => {
    const { c } = setup();
    expect((await c.describeConsumerGroup('nope')).errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    await c.commitOffsets({ groupId: 'simple', generationId: -1, memberId: '', groupInstanceId: null, offsets: commit('', -1).offsets });
    expect(await c.describeConsumerGroup('simple')).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Group simple is not a consumer group.' });
  });
});
