// Kafka's online upgrade and downgrade between classic and consumer-protocol
// groups (group.consumer.migration.policy), through the GroupCoordinator with
// a fake clock: a ConsumerGroupHeartbeat converts a Stable classic group
// with members; its classic members keep their partitions, are told to rejoin
// (REBALANCE_IN_PROGRESS), rejoin through JoinGroup/SyncGroup into the consumer
// group's reconciliation, commit offsets with their generation; the state is
// stored (a new coordinator loads the classic members); when the last
// consumer-protocol member leaves, the group is classic again and rebalances.
import { describe, expect, it } from 'vitest';
import { GroupCoordinator, type CoordinatorSettings, type JoinRequest } from '../../../broker/src/groups/coordinator.js';
import type { HeartbeatInput } from '../../../broker/src/groups/consumer/consumer-group.js';
import { encodeAssignment, encodeSubscription, decodeAssignment } from '../../../cli/kafka/consumer-protocol.js';
import { ErrorCode } from '../../../common/errors.js';
import { FakeClock } from '../support/fake-clock.js';
import { MemoryGroupStore } from '../support/memory-group-store.js';

const E = ErrorCode;
const TOPICS = [{ name: 't', id: 'id-t', partitions: 4 }];

function setup(settings: Partial<CoordinatorSettings> = {}, store = new MemoryGroupStore(), clock = new FakeClock()) {
  const c = new GroupCoordinator(store, clock, { settings: { initialRebalanceDelayMs: 0, ...settings }, topics: async () => TOPICS });
  return { c, store, clock };
}

const joinReq = (memberId: string, o: Partial<JoinRequest> = {}): JoinRequest => ({
  groupId: 'g', memberId, groupInstanceId: null, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 30_000, protocolType: 'consumer',
  protocols: [{ name: 'range', metadata: encodeSubscription(['t']) }], clientId: 'classic', clientHost: '/h',
  requireKnownMemberId: false, supportSkipAssignment: false, ...o,
});
const cgJoin = (memberId: string): HeartbeatInput => ({
  memberId, memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['t'],
  subscribedTopicRegex: null, serverAssignor: null, ownedPartitions: [], clientId: 'modern', clientHost: '/h',
});
const syncReq = (memberId: string, generationId: number, assignments: Array<{ memberId: string; assignment: Buffer }> = []) => ({
  groupId: 'g', memberId, groupInstanceId: null, generationId, protocolType: 'consumer', protocolName: 'range', assignments,
});

/** A classic group, Stable at generation 1: members a (partitions 0, 1) and b (2, 3). */
async function stableClassic(c: GroupCoordinator, clock: FakeClock) {
  const joins = Promise.all([c.join(joinReq('')), c.join(joinReq(''))]);
  await clock.advance(0); // group.initial.rebalance.delay.ms = 0
  const [ja, jb] = await joins;
  expect([ja!.errorCode, jb!.errorCode]).toEqual([E.NONE, E.NONE]);
  const leader = ja!.leader === ja!.memberId ? ja! : jb!;
  const follower = leader === ja ? jb! : ja!;
  const assignments = [
    { memberId: leader.memberId, assignment: encodeAssignment(new Map([['t', [0, 1]]])) },
    { memberId: follower.memberId, assignment: encodeAssignment(new Map([['t', [2, 3]]])) },
  ];
  const [sl, sf] = await Promise.all([c.sync(syncReq(leader.memberId, 1, assignments)), c.sync(syncReq(follower.memberId, 1))]);
  expect([sl.errorCode, sf.errorCode]).toEqual([E.NONE, E.NONE]);
  return { a: leader.memberId, b: follower.memberId };
}

describe('online upgrade of a classic group (group.consumer.migration.policy)', () => {
  it('a ConsumerGroupHeartbeat converts it; classic members rejoin and reconcile; offsets take their generation', async () => {
    const { c, clock } = setup();
    const { a, b } = await stableClassic(c, clock);
    const m = await c.consumerGroupHeartbeat('g', cgJoin('m'));
    expect(m).toMatchObject({ errorCode: E.NONE, memberEpoch: 2 });
    // a and b still own all four partitions: m waits for them.
    expect(m.assignment).toEqual([]);
    const cg = c.loadedGroup('g')!.modern!;
    expect([...cg.members.keys()].sort()).toEqual([a, b, 'm'].sort());
    expect(cg.members.get(a)).toMatchObject({ memberEpoch: 1, classic: { sessionTimeoutMs: 10_000 } });
    expect((await c.listGroups())[0]).toMatchObject({ groupId: 'g', type: 'consumer' });
    // ConsumerGroupDescribe v1 tells the members' types apart (KIP-1099): 0 classic, 1 consumer protocol.
    const types = new Map((await c.describeConsumerGroup('g')).members.map((x) => [x.memberId, x.memberType]));
    expect(Object.fromEntries(types)).toEqual({ [a]: 0, [b]: 0, m: 1 });

    // The classic members' generation 1 is still good for offsets; a wrong one is ILLEGAL_GENERATION.
    const commit = (memberId: string, generationId: number) => c.commitOffsets({
      groupId: 'g', generationId, memberId, groupInstanceId: null, apiVersion: 8, offsets: [{ topic: 't', partition: 0, offset: 7, leaderEpoch: -1, metadata: '' }],
    });
    expect(await commit(a, 1)).toEqual([E.NONE]);
    expect(await commit(a, 5)).toEqual([E.ILLEGAL_GENERATION]);

    // Heartbeats tell them to rejoin; an eager member rejoins owning nothing and gets its share at the new epoch.
    expect(await c.heartbeat('g', 1, a, null)).toBe(E.REBALANCE_IN_PROGRESS);
    expect(await c.heartbeat('g', 7, a, null)).toBe(E.ILLEGAL_GENERATION);
    const ra = await c.join(joinReq(a));
    expect(ra).toMatchObject({ errorCode: E.NONE, memberId: a, generationId: 2, protocolType: 'consumer', protocolName: 'range', leader: '', members: [] });
    const sa = await c.sync(syncReq(a, 2));
    expect(sa.errorCode).toBe(E.NONE);
    const aParts = decodeAssignment(sa.assignment).get('t') ?? [];
    expect(await c.sync(syncReq(a, 1))).toMatchObject({ errorCode: E.ILLEGAL_GENERATION });
    const rb = await c.join(joinReq(b));
    const sb = await c.sync(syncReq(b, rb.generationId));
    const bParts = decodeAssignment(sb.assignment).get('t') ?? [];
    // m gets what the classic members released.
    const m2 = await c.consumerGroupHeartbeat('g', { ...cgJoin('m'), memberEpoch: m.memberEpoch, ownedPartitions: [] });
    const mParts = m2.assignment?.[0]?.partitions ?? [];
    expect([...aParts, ...bParts, ...mParts].sort()).toEqual([0, 1, 2, 3]);
    expect(mParts.length).toBeGreaterThan(0);
    expect(await c.heartbeat('g', 2, a, null)).toBe(E.NONE);
  });

  it('a classic member told to rejoin that does not, or that joins and does not sync, is removed after its rebalance timeout', async () => {
    const { c, clock } = setup();
    const { a, b } = await stableClassic(c, clock);
    await c.consumerGroupHeartbeat('g', cgJoin('m'));
    expect(await c.heartbeat('g', 1, a, null)).toBe(E.REBALANCE_IN_PROGRESS);
    const jb = await c.join(joinReq(b)); // b joins but never syncs
    expect(jb.errorCode).toBe(E.NONE);
    // Both keep their sessions (10 s) alive with heartbeats; the deadlines are the 30 s rebalance timeout.
    for (let t = 0; t < 3; t++) {
      await clock.advance(9000);
      await c.heartbeat('g', 1, a, null);
      await c.heartbeat('g', jb.generationId, b, null);
    }
    const cg = c.loadedGroup('g')!.modern!;
    expect(cg.members.has(a) && cg.members.has(b)).toBe(true);
    await clock.advance(3001);
    expect(cg.members.has(a)).toBe(false);
    expect(cg.members.has(b)).toBe(false);
    expect([...cg.members.keys()]).toEqual(['m']);
  });

  it('the policy decides: disabled or downgrade refuse the consumer-protocol member; the group stays classic', async () => {
    for (const policy of ['disabled', 'downgrade'] as const) {
      const { c, clock } = setup({ consumerMigrationPolicy: policy });
      const { a } = await stableClassic(c, clock);
      expect(await c.consumerGroupHeartbeat('g', cgJoin('m'))).toMatchObject({ errorCode: E.GROUP_ID_NOT_FOUND, errorMessage: 'Group g is not a consumer group.' });
      expect(c.loadedGroup('g')!.modern).toBeNull();
      expect(await c.heartbeat('g', 1, a, null)).toBe(E.NONE);
    }
  });

  it('is stored: a new coordinator loads the classic members with their protocols and sessions', async () => {
    const { c, store, clock } = setup();
    const { a } = await stableClassic(c, clock);
    await c.consumerGroupHeartbeat('g', cgJoin('m'));
    const { c: next } = setup({}, store);
    expect(await next.heartbeat('g', 1, a, null)).toBe(E.REBALANCE_IN_PROGRESS);
    expect((await next.join(joinReq(a))).errorCode).toBe(E.NONE);
    expect(next.loadedGroup('g')!.modern!.members.get(a)!.classic!.protocols[0]!.name).toBe('range');
  });

  it('when the last consumer-protocol member leaves, the group is classic again and its members rejoin classically', async () => {
    const { c, clock } = setup();
    const { a, b } = await stableClassic(c, clock);
    const m = await c.consumerGroupHeartbeat('g', cgJoin('m'));
    // a and b reconcile to m's join (epoch 2).
    for (const id of [a, b]) expect((await c.join(joinReq(id))).generationId).toBe(m.memberEpoch);
    expect((await c.consumerGroupHeartbeat('g', { ...cgJoin('m'), memberEpoch: -1, rebalanceTimeoutMs: -1, subscribedTopicNames: null, ownedPartitions: null })).memberEpoch).toBe(-1);
    const g = c.loadedGroup('g')!;
    expect(g.modern).toBeNull();
    expect(g.state).toBe('PreparingRebalance');
    // The members' epoch (they reconciled to m's join): their heartbeats are told to rejoin, not ILLEGAL_GENERATION.
    expect(g.generation).toBe(m.memberEpoch);
    expect((await c.listGroups())[0]).toMatchObject({ groupId: 'g', type: 'classic' });
    expect(await c.heartbeat('g', g.generation, a, null)).toBe(E.REBALANCE_IN_PROGRESS);
    const [ja, jb] = await Promise.all([c.join(joinReq(a)), c.join(joinReq(b))]);
    await clock.advance(0);
    expect([ja.errorCode, jb.errorCode]).toEqual([E.NONE, E.NONE]);
    expect(ja.generationId).toBe(m.memberEpoch + 1);
  });
});
