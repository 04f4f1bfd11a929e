// The group state machine with a fake clock and the in-memory store.
import { describe, expect, it } from 'vitest';
import { GroupCoordinator, type CoordinatorSettings, type JoinRequest } from '../../../broker/src/groups/coordinator.js';
import type { JoinResult, Protocol } from '../../../broker/src/groups/group.js';
import { ErrorCode } from '../../../common/errors.js';
import { FakeClock, flush } from '../support/fake-clock.js';
import { MemoryGroupStore } from '../support/memory-group-store.js';

const E = ErrorCode;

/** ConsumerProtocolSubscription v0: topics, null user data. */
function subscription(...topics: string[]): Buffer {
  const parts: Buffer[] = [Buffer.from([0, 0]), Buffer.alloc(4)];
  parts[1]!.writeInt32BE(topics.length);
  for (const t of topics) {
    const len = Buffer.alloc(2);
    len.writeInt16BE(Buffer.byteLength(t));
    parts.push(len, Buffer.from(t));
  }
  const nul = Buffer.alloc(4);
  nul.writeInt32BE(-1);
  parts.push(nul);
  return Buffer.concat(parts);
}

const range = (topics = ['t']): Protocol[] => [{ name: 'range', metadata: subscription(...topics) }];

function setup(settings: Partial<CoordinatorSettings> = {}, store = new MemoryGroupStore(), clock = new FakeClock()) {
  const c = new GroupCoordinator(store, clock, { settings: { initialRebalanceDelayMs: 0, ...settings } });
  return { c, store, clock };
}

function joinReq(o: Partial<JoinRequest> = {}): JoinRequest {
  return {
    groupId: 'g', memberId: '', groupInstanceId: null, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 30_000,
    protocolType: 'consumer', protocols: range(), clientId: 'client', clientHost: '/127.0.0.1',
    requireKnownMemberId: true, supportSkipAssignment: true, ...o,
  };
}

/** Tracks a pending promise's value without awaiting it. */
function track<T>(p: Promise<T>): { done: () => boolean; value: () => T } {
  let v: T | undefined;
  let settled = false;
  p.then((x) => { v = x; settled = true; });
  return { done: () => settled, value: () => { if (!settled) throw new Error('not settled'); return v!; } };
}

/** KIP-394 two-step join of a dynamic member; returns the pending JoinGroup. */
async function joinDynamic(c: GroupCoordinator, o: Partial<JoinRequest> = {}) {
  const first = await c.join(joinReq(o));
  expect(first.errorCode).toBe(E.MEMBER_ID_REQUIRED);
  expect(first.memberId).toMatch(new RegExp(`^${o.clientId ?? 'client'}-[0-9a-f-]{36}$`));
  return { memberId: first.memberId, pending: track(c.join(joinReq({ ...o, memberId: first.memberId }))) };
}

/** A one-member group, Stable at generation 1 with an assignment. */
async function stableSingle(c: GroupCoordinator, clock: FakeClock, o: Partial<JoinRequest> = {}) {
  const a = await joinDynamic(c, o);
  await clock.advance(0);
  const j = a.pending.value();
  expect(j).toMatchObject({ errorCode: E.NONE, generationId: 1, leader: a.memberId, protocolName: 'range' });
  const s = await c.sync({ groupId: o.groupId ?? 'g', generationId: 1, memberId: a.memberId, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [{ memberId: a.memberId, assignment: Buffer.from('A') }] });
  expect(s).toMatchObject({ errorCode: E.NONE, protocolName: 'range' });
  expect(s.assignment.toString()).toBe('A');
  return a.memberId;
}

describe('JoinGroup / SyncGroup', () => {
  it('KIP-394: a new member gets MEMBER_ID_REQUIRED, then joins; the leader sees all members and hands out assignments', async () => {
    const { c, clock, store } = setup();
    const a = await joinDynamic(c);
    await clock.advance(0);
    const ja = a.pending.value();
    expect(ja.errorCode).toBe(E.NONE);
    expect(ja.generationId).toBe(1);
    expect(ja.leader).toBe(a.memberId);
    expect(ja.members.map((m) => m.memberId)).toEqual([a.memberId]);
    expect(ja.members[0]!.metadata.equals(subscription('t'))).toBe(true);
    expect(c.loadedGroup('g')!.state).toBe('CompletingRebalance');
    await c.sync({ groupId: 'g', generationId: 1, memberId: a.memberId, groupInstanceId: null, protocolType: null, protocolName: null, assignments: [{ memberId: a.memberId, assignment: Buffer.from('x') }] });
    expect(c.loadedGroup('g')!.state).toBe('Stable');
    // Stored with the assignment.
    expect(store.groups.get('g')).toMatchObject({ generation: 1, leader: a.memberId, protocolName: 'range' });
    expect(store.groups.get('g')!.members[0]!.assignment.toString()).toBe('x');
  });

  it('joins without MEMBER_ID_REQUIRED before v4', async () => {
    const { c, clock } = setup();
    const p = track(c.join(joinReq({ requireKnownMemberId: false })));
    await clock.advance(0);
    expect(p.value()).toMatchObject({ errorCode: E.NONE, generationId: 1 });
    expect(p.value().memberId).toMatch(/^client-/);
  });

  it('group.initial.rebalance.delay.ms waits for more members, extending while they keep arriving', async () => {
    const { c, clock } = setup({ initialRebalanceDelayMs: 3000 });
    const a = await joinDynamic(c);
    await clock.advance(1000);
    const b = await joinDynamic(c);
    await clock.advance(1999); // t=2999: first delay not over
    expect(a.pending.done()).toBe(false);
    await clock.advance(1); // t=3000: a member was added, wait another delay
    expect(a.pending.done()).toBe(false);
    await clock.advance(3000);
    expect(a.pending.done() && b.pending.done()).toBe(true);
    expect(a.pending.value().generationId).toBe(1);
    expect(b.pending.value().generationId).toBe(1);
    const leader = a.pending.value().leader;
    const leaderJoin = leader === a.memberId ? a.pending.value() : b.pending.value();
    expect(leaderJoin.members).toHaveLength(2);
    const follower = leader === a.memberId ? b.pending.value() : a.pending.value();
    expect(follower.members).toEqual([]);
  });

  it('rejects bad session timeouts, empty group ids and inconsistent protocols', async () => {
    const { c, clock } = setup();
    expect((await c.join(joinReq({ sessionTimeoutMs: 5999 }))).errorCode).toBe(E.INVALID_SESSION_TIMEOUT);
    expect((await c.join(joinReq({ sessionTimeoutMs: 1_800_001 }))).errorCode).toBe(E.INVALID_SESSION_TIMEOUT);
    expect((await c.join(joinReq({ groupId: '' }))).errorCode).toBe(E.INVALID_GROUP_ID);
    expect((await c.join(joinReq({ protocolType: '' }))).errorCode).toBe(E.INCONSISTENT_GROUP_PROTOCOL);
    expect((await c.join(joinReq({ protocols: [] }))).errorCode).toBe(E.INCONSISTENT_GROUP_PROTOCOL);
    expect(c.loadedGroup('g')).toBeUndefined(); // failed joins leave no group behind
    await stableSingle(c, clock);
    expect((await c.join(joinReq({ protocolType: 'connect' }))).errorCode).toBe(E.INCONSISTENT_GROUP_PROTOCOL);
    expect((await c.join(joinReq({ protocols: [{ name: 'roundrobin', metadata: Buffer.alloc(0) }] }))).errorCode).toBe(E.INCONSISTENT_GROUP_PROTOCOL);
    expect((await c.join(joinReq({ memberId: 'nobody' }))).errorCode).toBe(E.UNKNOWN_MEMBER_ID);
    expect((await c.join(joinReq({ groupId: 'other', memberId: 'nobody' }))).errorCode).toBe(E.UNKNOWN_MEMBER_ID);
  });

  it('selects the protocol all members support, by the members\' preference votes', async () => {
    const { c, clock } = setup();
    const both = [{ name: 'cooperative-sticky', metadata: Buffer.from('c') }, { name: 'range', metadata: Buffer.from('r') }];
    const a = await joinDynamic(c, { protocols: both });
    const b = await joinDynamic(c, { protocols: [{ name: 'range', metadata: Buffer.from('r') }, { name: 'cooperative-sticky', metadata: Buffer.from('c') }] });
    await clock.advance(0);
    // Generation 1 may hold only `a`; wait for b's rebalance to finish too.
    await clock.advance(30_000);
    const ja = a.pending.value();
    expect(['range', 'cooperative-sticky']).toContain(ja.protocolName);
    expect(b.pending.done()).toBe(true);
  });

  it('a new member triggers a rebalance: heartbeats say REBALANCE_IN_PROGRESS, rejoin completes generation 2, followers wait for the leader', async () => {
    const { c, clock } = setup();
    const a = await stableSingle(c, clock);
    const b = await joinDynamic(c, { clientId: 'b' });
    expect(c.loadedGroup('g')!.state).toBe('PreparingRebalance');
    expect(await c.heartbeat('g', 1, a, null)).toBe(E.REBALANCE_IN_PROGRESS);
    // Commits of the old generation are still accepted while preparing (Kafka semantics).
    expect(await c.commitOffsets({ groupId: 'g', generationId: 1, memberId: a, groupInstanceId: null, offsets: [{ topic: 't', partition: 0, offset: 5, leaderEpoch: 0, metadata: null }] })).toEqual([E.NONE]);
    expect(b.pending.done()).toBe(false);
    const ra = track(c.join(joinReq({ memberId: a })));
    await flush();
    expect(ra.done() && b.pending.done()).toBe(true);
    expect(ra.value()).toMatchObject({ errorCode: E.NONE, generationId: 2, leader: a });
    expect(ra.value().members).toHaveLength(2);
    expect(b.pending.value()).toMatchObject({ errorCode: E.NONE, generationId: 2, leader: a, members: [] });
    // Old generation is fenced now.
    expect(await c.heartbeat('g', 1, a, null)).toBe(E.ILLEGAL_GENERATION);
    expect(await c.commitOffsets({ groupId: 'g', generationId: 1, memberId: a, groupInstanceId: null, offsets: [{ topic: 't', partition: 0, offset: 6, leaderEpoch: 0, metadata: null }] })).toEqual([E.ILLEGAL_GENERATION]);
    // CompletingRebalance: commits are refused with REBALANCE_IN_PROGRESS, heartbeats fine.
    expect(await c.commitOffsets({ groupId: 'g', generationId: 2, memberId: a, groupInstanceId: null, offsets: [{ topic: 't', partition: 0, offset: 6, leaderEpoch: 0, metadata: null }] })).toEqual([E.REBALANCE_IN_PROGRESS]);
    expect(await c.heartbeat('g', 2, b.memberId, null)).toBe(E.NONE);
    const sb = track(c.sync({ groupId: 'g', generationId: 2, memberId: b.memberId, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [] }));
    await flush();
    expect(sb.done()).toBe(false);
    const sa = await c.sync({ groupId: 'g', generationId: 2, memberId: a, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [{ memberId: a, assignment: Buffer.from('A') }, { memberId: b.memberId, assignment: Buffer.from('B') }] });
    await flush();
    expect(sa.assignment.toString()).toBe('A');
    expect(sb.value().assignment.toString()).toBe('B');
    expect(c.loadedGroup('g')!.state).toBe('Stable');
    // Sync with mismatching protocol / generation.
    expect((await c.sync({ groupId: 'g', generationId: 2, memberId: a, groupInstanceId: null, protocolType: 'connect', protocolName: null, assignments: [] })).errorCode).toBe(E.INCONSISTENT_GROUP_PROTOCOL);
    expect((await c.sync({ groupId: 'g', generationId: 3, memberId: a, groupInstanceId: null, protocolType: null, protocolName: null, assignments: [] })).errorCode).toBe(E.ILLEGAL_GENERATION);
    expect((await c.sync({ groupId: 'g', generationId: 2, memberId: 'x', groupInstanceId: null, protocolType: null, protocolName: null, assignments: [] })).errorCode).toBe(E.UNKNOWN_MEMBER_ID);
  });

  it('a member that misses the rebalance timeout is dropped from the new generation', async () => {
    const { c, clock } = setup();
    const a = await stableSingle(c, clock);
    const b = await joinDynamic(c, { clientId: 'b', rebalanceTimeoutMs: 20_000 });
    // a keeps heartbeating but never rejoins (its rebalance timeout is 30 s, the group's).
    for (let i = 0; i < 9; i++) {
      await clock.advance(3000);
      expect(await c.heartbeat('g', 1, a, null)).toBe(E.REBALANCE_IN_PROGRESS);
    }
    await clock.advance(2999); // t = 29.999 s
    expect(b.pending.done()).toBe(false);
    await clock.advance(1);
    expect(b.pending.value()).toMatchObject({ errorCode: E.NONE, generationId: 2, leader: b.memberId });
    expect(await c.heartbeat('g', 1, a, null)).toBe(E.UNKNOWN_MEMBER_ID);
  });

  it('session timeout removes a silent member and rebalances the rest; an empty group is stored Empty', async () => {
    const { c, clock, store } = setup();
    const a = await stableSingle(c, clock);
    await clock.advance(9_999);
    expect(await c.heartbeat('g', 1, a, null)).toBe(E.NONE);
    await clock.advance(9_999);
    expect(c.loadedGroup('g')!.size).toBe(1);
    await clock.advance(2);
    expect(c.loadedGroup('g')!.size).toBe(0);
    expect(c.loadedGroup('g')!.state).toBe('Empty');
    expect(c.loadedGroup('g')!.generation).toBe(2);
    expect(store.groups.get('g')).toMatchObject({ generation: 2, members: [] });
    expect(await c.heartbeat('g', 1, a, null)).toBe(E.UNKNOWN_MEMBER_ID);
  });

  it('a member that never sends SyncGroup is removed after the rebalance timeout', async () => {
    const { c, clock } = setup();
    const a = await stableSingle(c, clock);
    const b = await joinDynamic(c, { clientId: 'b' });
    const ra = track(c.join(joinReq({ memberId: a })));
    await flush();
    expect(ra.value().generationId).toBe(2);
    // Only the leader syncs; b keeps heartbeating but never syncs.
    const sa = track(c.sync({ groupId: 'g', generationId: 2, memberId: a, groupInstanceId: null, protocolType: null, protocolName: null, assignments: [] }));
    await flush();
    expect(sa.value().errorCode).toBe(E.NONE);
    for (let i = 0; i < 5; i++) {
      await clock.advance(5000);
      expect(await c.heartbeat('g', 2, a, null)).toBe(E.NONE);
      expect(await c.heartbeat('g', 2, b.memberId, null)).toBe(E.NONE);
    }
    expect(c.loadedGroup('g')!.members.has(b.memberId)).toBe(true);
    await clock.advance(5000);
    expect(c.loadedGroup('g')!.members.has(b.memberId)).toBe(false);
    expect(c.loadedGroup('g')!.state).toBe('PreparingRebalance');
  });

  it('a member waiting in JoinGroup stays alive beyond its session timeout', async () => {
    const { c, clock } = setup();
    const a = await stableSingle(c, clock, { sessionTimeoutMs: 6000 });
    const b = await joinDynamic(c, { clientId: 'b', sessionTimeoutMs: 6000 });
    const ra = track(c.join(joinReq({ memberId: a, sessionTimeoutMs: 6000, rebalanceTimeoutMs: 60_000 })));
    await flush();
    expect(ra.value().generationId).toBe(2);
    void b;
  });

  it('group.max.size refuses members beyond the limit', async () => {
    const { c, clock } = setup({ maxSize: 1 });
    await stableSingle(c, clock);
    const r = await c.join(joinReq({ requireKnownMemberId: false }));
    expect(r.errorCode).toBe(E.GROUP_MAX_SIZE_REACHED);
  });

  it('answers an earlier, still waiting JoinGroup of the same member when it joins again', async () => {
    const { c, clock } = setup({ initialRebalanceDelayMs: 3000 });
    const a = await joinDynamic(c);
    const again = track(c.join(joinReq({ memberId: a.memberId })));
    await flush();
    expect(a.pending.value().errorCode).toBe(E.REBALANCE_IN_PROGRESS);
    await clock.advance(3000);
    expect(again.value()).toMatchObject({ errorCode: E.NONE, generationId: 1 });
  });
});

describe('static membership (KIP-345)', () => {
  it('joins without MEMBER_ID_REQUIRED; a restart with the same instance id fences the old member id without a rebalance', async () => {
    const { c, clock } = setup();
    const p = track(c.join(joinReq({ groupInstanceId: 'i1' })));
    await clock.advance(0);
    const first = p.value();
    expect(first.errorCode).toBe(E.NONE);
    expect(first.memberId).toMatch(/^i1-/);
    await c.sync({ groupId: 'g', generationId: 1, memberId: first.memberId, groupInstanceId: 'i1', protocolType: null, protocolName: null, assignments: [{ memberId: first.memberId, assignment: Buffer.from('A') }] });
    expect(await c.commitOffsets({ groupId: 'g', generationId: 1, memberId: first.memberId, groupInstanceId: 'i1', offsets: [{ topic: 't', partition: 0, offset: 1, leaderEpoch: 0, metadata: null }] })).toEqual([E.NONE]);

    // Restart: unknown member id, same instance id, same metadata.
    const second = await c.join(joinReq({ groupInstanceId: 'i1' }));
    expect(second.errorCode).toBe(E.NONE);
    expect(second.memberId).not.toBe(first.memberId);
    expect(second.generationId).toBe(1); // no rebalance
    expect(second.skipAssignment).toBe(true); // it was the leader: KIP-814
    expect(c.loadedGroup('g')!.state).toBe('Stable');
    const s = await c.sync({ groupId: 'g', generationId: 1, memberId: second.memberId, groupInstanceId: 'i1', protocolType: null, protocolName: null, assignments: [] });
    expect(s.assignment.toString()).toBe('A'); // keeps its assignment

    // The old incarnation is fenced everywhere.
    expect(await c.heartbeat('g', 1, first.memberId, 'i1')).toBe(E.FENCED_INSTANCE_ID);
    expect(await c.commitOffsets({ groupId: 'g', generationId: 1, memberId: first.memberId, groupInstanceId: 'i1', offsets: [{ topic: 't', partition: 0, offset: 2, leaderEpoch: 0, metadata: null }] })).toEqual([E.FENCED_INSTANCE_ID]);
    expect((await c.join(joinReq({ memberId: first.memberId, groupInstanceId: 'i1' }))).errorCode).toBe(E.FENCED_INSTANCE_ID);
    expect((await c.sync({ groupId: 'g', generationId: 1, memberId: first.memberId, groupInstanceId: 'i1', protocolType: null, protocolName: null, assignments: [] })).errorCode).toBe(E.FENCED_INSTANCE_ID);
    expect((await c.leave('g', [{ memberId: first.memberId, groupInstanceId: 'i1' }])).members[0]!.errorCode).toBe(E.FENCED_INSTANCE_ID);
    expect(await c.heartbeat('g', 1, second.memberId, 'i1')).toBe(E.NONE);
    expect(await c.heartbeat('g', 1, second.memberId, 'i2')).toBe(E.UNKNOWN_MEMBER_ID);
  });

  it('a static member that does not rejoin keeps its place during a rebalance; removal by instance id', async () => {
    const { c, clock } = setup();
    const s1 = track(c.join(joinReq({ groupInstanceId: 's1' })));
    await clock.advance(0);
    const m1 = s1.value().memberId;
    await c.sync({ groupId: 'g', generationId: 1, memberId: m1, groupInstanceId: 's1', protocolType: null, protocolName: null, assignments: [] });
    const b = await joinDynamic(c, { clientId: 'b' });
    // s1 heartbeats (it is alive) but does not rejoin before the rebalance timeout.
    for (let i = 0; i < 10; i++) {
      await clock.advance(3000);
      await c.heartbeat('g', 1, m1, 's1');
    }
    expect(b.pending.value()).toMatchObject({ errorCode: E.NONE, generationId: 2, leader: b.memberId });
    expect(b.pending.value().members.map((m) => m.memberId).sort()).toEqual([m1, b.memberId].sort());
    // Administrative removal by group.instance.id (LeaveGroup v3+ with an empty member id).
    const r = await c.leave('g', [{ memberId: '', groupInstanceId: 's1' }, { memberId: '', groupInstanceId: 'nope' }]);
    expect(r.members.map((m) => m.errorCode)).toEqual([E.NONE, E.UNKNOWN_MEMBER_ID]);
    expect(c.loadedGroup('g')!.members.has(m1)).toBe(false);
  });
});

describe('LeaveGroup', () => {
  it('a leaving member triggers a rebalance; the last one leaves the group Empty', async () => {
    const { c, clock } = setup();
    const a = await stableSingle(c, clock);
    const r = await c.leave('g', [{ memberId: a, groupInstanceId: null }, { memberId: 'ghost', groupInstanceId: null }]);
    expect(r.errorCode).toBe(E.NONE);
    expect(r.members.map((m) => m.errorCode)).toEqual([E.NONE, E.UNKNOWN_MEMBER_ID]);
    expect(c.loadedGroup('g')!.state).toBe('Empty');
    expect(c.loadedGroup('g')!.generation).toBe(2);
    expect((await c.leave('nogroup', [{ memberId: 'x', groupInstanceId: null }])).members[0]!.errorCode).toBe(E.UNKNOWN_MEMBER_ID);
  });

  it('a pending (MEMBER_ID_REQUIRED) member may leave', async () => {
    const { c } = setup();
    const first = await c.join(joinReq());
    const r = await c.leave('g', [{ memberId: first.memberId, groupInstanceId: null }]);
    expect(r.members[0]!.errorCode).toBe(E.NONE);
  });
});

describe('offsets', () => {
  it('simple commits (generation -1) create a group; metadata and leader epoch come back exactly', async () => {
    const { c, store } = setup();
    const codes = await c.commitOffsets({
      groupId: 'simple', generationId: -1, memberId: '', groupInstanceId: null,
      offsets: [
        { topic: 't', partition: 0, offset: 42, leaderEpoch: 7, metadata: 'meta "data" ✓' },
        { topic: 't', partition: 1, offset: 0, leaderEpoch: -1, metadata: null },
        { topic: 't', partition: 2, offset: 1, leaderEpoch: 1, metadata: 'x'.repeat(4097) },
      ],
    });
    expect(codes).toEqual([E.NONE, E.NONE, E.OFFSET_METADATA_TOO_LARGE]);
    const f = await c.fetchOffsets('simple', [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }, { topic: 't', partition: 2 }, { topic: 'u', partition: 0 }]);
    expect(f).toEqual([
      { topic: 't', partition: 0, offset: 42, leaderEpoch: 7, metadata: 'meta "data" ✓', errorCode: 0 },
      { topic: 't', partition: 1, offset: 0, leaderEpoch: -1, metadata: '', errorCode: 0 },
      { topic: 't', partition: 2, offset: -1, leaderEpoch: -1, metadata: '', errorCode: 0 },
      { topic: 'u', partition: 0, offset: -1, leaderEpoch: -1, metadata: '', errorCode: 0 },
    ]);
    expect((await c.fetchOffsets('simple', null)).map((x) => `${x.topic}/${x.partition}`).sort()).toEqual(['t/0', 't/1']);
    expect(await c.fetchOffsets('unknown', null)).toEqual([]);
    expect(store.offsets.get('simple')!.get('t/0')).toMatchObject({ offset: 42, leaderEpoch: 7 });
    const listed = await c.listGroups();
    expect(listed).toEqual([{ groupId: 'simple', protocolType: '', state: 'Empty', type: 'classic' }]);
  });

  it('commit validation follows Kafka: unknown group with a generation, non-members, members of a live group', async () => {
    const { c, clock } = setup();
    const one = [{ topic: 't', partition: 0, offset: 1, leaderEpoch: 0, metadata: null }];
    expect(await c.commitOffsets({ groupId: 'nope', generationId: 3, memberId: 'm', groupInstanceId: null, offsets: one })).toEqual([E.ILLEGAL_GENERATION]);
    const a = await stableSingle(c, clock);
    expect(await c.commitOffsets({ groupId: 'g', generationId: -1, memberId: '', groupInstanceId: null, offsets: one })).toEqual([E.UNKNOWN_MEMBER_ID]);
    expect(await c.commitOffsets({ groupId: 'g', generationId: 1, memberId: 'stranger', groupInstanceId: null, offsets: one })).toEqual([E.UNKNOWN_MEMBER_ID]);
    expect(await c.commitOffsets({ groupId: 'g', generationId: 0, memberId: a, groupInstanceId: null, offsets: one })).toEqual([E.ILLEGAL_GENERATION]);
    expect(await c.commitOffsets({ groupId: 'g', generationId: 1, memberId: a, groupInstanceId: null, offsets: one })).toEqual([E.NONE]);
    // Once empty, tools may reset offsets without membership.
    await c.leave('g', [{ memberId: a, groupInstanceId: null }]);
    expect(await c.commitOffsets({ groupId: 'g', generationId: -1, memberId: '', groupInstanceId: null, offsets: one })).toEqual([E.NONE]);
  });

  it('storage failures are COORDINATOR_NOT_AVAILABLE and leave no trace', async () => {
    const { c, store } = setup();
    store.failing = true;
    expect(await c.commitOffsets({ groupId: 's', generationId: -1, memberId: '', groupInstanceId: null, offsets: [{ topic: 't', partition: 0, offset: 1, leaderEpoch: 0, metadata: null }] })).toEqual([E.COORDINATOR_NOT_AVAILABLE]);
    expect((await c.join(joinReq())).errorCode).toBe(E.COORDINATOR_NOT_AVAILABLE);
    store.failing = false;
    expect(await c.fetchOffsets('s', [{ topic: 't', partition: 0 }])).toEqual([{ topic: 't', partition: 0, offset: -1, leaderEpoch: -1, metadata: '', errorCode: 0 }]);
  });

  it('offsets.retention: an empty group\'s offsets expire retention after it became empty, then the group goes', async () => {
    const { c, clock, store } = setup({ offsetsRetentionMs: 60_000 });
    const a = await stableSingle(c, clock);
    await c.commitOffsets({ groupId: 'g', generationId: 1, memberId: a, groupInstanceId: null, offsets: [{ topic: 't', partition: 0, offset: 9, leaderEpoch: 0, metadata: null }] });
    await clock.advance(120_000 - 1); // members keep it alive... but a stops heartbeating: session expiry at 10 s
    // Group became Empty at ~10 s; retention 60 s => expired at ~70 s already.
    expect(await c.expireOffsets()).toBe(1);
    expect(store.groups.has('g')).toBe(false);
    expect(c.loadedGroup('g')).toBeUndefined();
    expect((await c.listGroups()).length).toBe(0);
  });

  it('offsets of a stable group do not expire, except for topics it no longer subscribes to', async () => {
    const { c, clock } = setup({ offsetsRetentionMs: 60_000 });
    const a = await stableSingle(c, clock, { sessionTimeoutMs: 100_000 });
    await c.commitOffsets({ groupId: 'g', generationId: 1, memberId: a, groupInstanceId: null, offsets: [{ topic: 't', partition: 0, offset: 9, leaderEpoch: 0, metadata: null }, { topic: 'old', partition: 0, offset: 3, leaderEpoch: 0, metadata: null }] });
    await clock.advance(61_000);
    expect(await c.heartbeat('g', 1, a, null)).toBe(E.NONE);
    expect(await c.expireOffsets()).toBe(1);
    expect((await c.fetchOffsets('g', null)).map((x) => x.topic)).toEqual(['t']);
  });

  it('simple groups expire offsets by commit time', async () => {
    const { c, clock } = setup({ offsetsRetentionMs: 60_000 });
    await c.commitOffsets({ groupId: 's', generationId: -1, memberId: '', groupInstanceId: null, offsets: [{ topic: 't', partition: 0, offset: 1, leaderEpoch: 0, metadata: null }] });
    await clock.advance(30_000);
    await c.commitOffsets({ groupId: 's', generationId: -1, memberId: '', groupInstanceId: null, offsets: [{ topic: 't', partition: 1, offset: 1, leaderEpoch: 0, metadata: null }] });
    await clock.advance(30_000);
    expect(await c.expireOffsets()).toBe(1);
    expect((await c.fetchOffsets('s', null)).map((x) => x.partition)).toEqual([1]);
  });

  it('OffsetDelete: refused for subscribed topics of a live consumer group, allowed otherwise', async () => {
    const { c, clock } = setup();
    const a = await stableSingle(c, clock, { sessionTimeoutMs: 100_000 });
    await c.commitOffsets({ groupId: 'g', generationId: 1, memberId: a, groupInstanceId: null, offsets: [{ topic: 't', partition: 0, offset: 9, leaderEpoch: 0, metadata: null }, { topic: 'other', partition: 0, offset: 3, leaderEpoch: 0, metadata: null }] });
    const r = await c.deleteOffsets('g', [{ topic: 't', partition: 0 }, { topic: 'other', partition: 0 }]);
    expect(r).toEqual({ errorCode: E.NONE, partitions: [E.GROUP_SUBSCRIBED_TO_TOPIC, E.NONE] });
    expect((await c.fetchOffsets('g', null)).map((x) => x.topic)).toEqual(['t']);
    expect((await c.deleteOffsets('nope', [{ topic: 't', partition: 0 }])).errorCode).toBe(E.GROUP_ID_NOT_FOUND);
  });
});

describe('admin and failover', () => {
  it('DeleteGroups: only empty groups, offsets included', async () => {
    const { c, clock, store } = setup();
    const a = await stableSingle(c, clock);
    await c.commitOffsets({ groupId: 'g', generationId: 1, memberId: a, groupInstanceId: null, offsets: [{ topic: 't', partition: 0, offset: 9, leaderEpoch: 0, metadata: null }] });
    expect(await c.deleteGroup('g')).toBe(E.NON_EMPTY_GROUP);
    expect(await c.deleteGroup('missing')).toBe(E.GROUP_ID_NOT_FOUND);
    await c.leave('g', [{ memberId: a, groupInstanceId: null }]);
    expect(await c.deleteGroup('g')).toBe(E.NONE);
    expect(store.index.has('g')).toBe(false);
    expect(store.offsets.has('g')).toBe(false);
    expect(await c.fetchOffsets('g', [{ topic: 't', partition: 0 }])).toEqual([{ topic: 't', partition: 0, offset: -1, leaderEpoch: -1, metadata: '', errorCode: 0 }]);
    expect((await c.describeGroup('g')).state).toBe('Dead');
  });

  it('ListGroups filters by state (case-insensitive); DescribeGroups shows members and assignments when stable', async () => {
    const { c, clock } = setup();
    const a = await stableSingle(c, clock, { sessionTimeoutMs: 100_000 });
    await c.commitOffsets({ groupId: 'e', generationId: -1, memberId: '', groupInstanceId: null, offsets: [{ topic: 't', partition: 0, offset: 1, leaderEpoch: 0, metadata: null }] });
    expect((await c.listGroups()).map((g) => `${g.groupId}:${g.state}`)).toEqual(['e:Empty', 'g:Stable']);
    expect((await c.listGroups(['stable'])).map((g) => g.groupId)).toEqual(['g']);
    expect((await c.listGroups(['Empty', 'Dead'])).map((g) => g.groupId)).toEqual(['e']);
    const d = await c.describeGroup('g');
    expect(d).toMatchObject({ state: 'Stable', protocolType: 'consumer', protocolData: 'range' });
    expect(d.members).toHaveLength(1);
    expect(d.members[0]).toMatchObject({ memberId: a, clientId: 'client', clientHost: '/127.0.0.1' });
    expect(d.members[0]!.assignment.toString()).toBe('A');
  });

  it('another coordinator on the same store takes the group over with its generation, members and offsets', async () => {
    const store = new MemoryGroupStore();
    const clock = new FakeClock();
    const one = setup({}, store, clock);
    const a = await stableSingle(one.c, clock, { sessionTimeoutMs: 30_000 });
    await one.c.commitOffsets({ groupId: 'g', generationId: 1, memberId: a, groupInstanceId: null, offsets: [{ topic: 't', partition: 3, offset: 77, leaderEpoch: 4, metadata: 'm' }] });
    one.c.unload('g'); // the slot moved away

    const two = setup({}, store, clock).c;
    expect(await two.heartbeat('g', 1, a, null)).toBe(E.NONE);
    const s = await two.sync({ groupId: 'g', generationId: 1, memberId: a, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [] });
    expect(s).toMatchObject({ errorCode: E.NONE, protocolName: 'range' });
    expect(s.assignment.toString()).toBe('A');
    expect(await two.fetchOffsets('g', [{ topic: 't', partition: 3 }])).toEqual([{ topic: 't', partition: 3, offset: 77, leaderEpoch: 4, metadata: 'm', errorCode: 0 }]);
    expect(await two.commitOffsets({ groupId: 'g', generationId: 0, memberId: a, groupInstanceId: null, offsets: [{ topic: 't', partition: 3, offset: 78, leaderEpoch: 4, metadata: null }] })).toEqual([E.ILLEGAL_GENERATION]);
    // A rejoin continues the generation count.
    const j = track(two.join(joinReq({ memberId: a, sessionTimeoutMs: 30_000 })));
    await flush();
    expect(j.value()).toMatchObject({ errorCode: E.NONE, generationId: 2, leader: a });
    // The loaded member still expires if it goes silent.
    await clock.advance(31_000);
    await flush();
    expect(two.loadedGroup('g')!.state).toBe('Empty');
  });

  it('stop() answers waiting JoinGroup requests with NOT_COORDINATOR and leaves no timers', async () => {
    const { c, clock } = setup({ initialRebalanceDelayMs: 3000 });
    const a = await joinDynamic(c);
    c.stop();
    await flush();
    expect(a.pending.value().errorCode).toBe(E.NOT_COORDINATOR);
    expect(clock.pending).toBe(0);
  });
});

// Keep the JoinResult type import used for readers of the helpers above.
export type { JoinResult };
