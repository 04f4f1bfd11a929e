// Coordinator fencing by coordinator epoch: a coordinator that lost its slot
// to a newer one (higher epoch) can no longer write the group; its write is
// answered NOT_COORDINATOR and the group is unloaded.
import { describe, expect, it } from 'vitest';
import { GroupCoordinator, type CommitRequest } from '../../../broker/src/groups/coordinator.js';
import { ErrorCode } from '../../../common/errors.js';
import { FakeClock, flush } from '../support/fake-clock.js';
import { MemoryGroupStore } from '../support/memory-group-store.js';

const E = ErrorCode;
const subscription = Buffer.from([0, 0, 0, 0, 0, 1, 0, 1, 0x74, 0xff, 0xff, 0xff, 0xff]); // v0, topics ['t'], null user data

function coordinator(store: MemoryGroupStore, clock: FakeClock, epoch: () => number | null) {
  return new GroupCoordinator(store, clock, { settings: { initialRebalanceDelayMs: 0 }, coordinatorEpoch: () => epoch() });
}

const commit = (offset: number, o: Partial<CommitRequest> = {}): CommitRequest => ({
  groupId: 'g', generationId: -1, memberId: '', groupInstanceId: null, offsets: [{ topic: 't', partition: 0, offset, leaderEpoch: 0, metadata: null }], ...o,
});

describe('coordinator fencing', () => {
  it('a stale coordinator cannot roll committed offsets back once a newer one loaded the group', async () => {
    const store = new MemoryGroupStore();
    const clock = new FakeClock();
    const stale = coordinator(store, clock, () => 1);
    expect(await stale.commitOffsets(commit(10))).toEqual([E.NONE]);
    expect(stale.loadedGroup('g')).toBeDefined();

    const fresh = coordinator(store, clock, () => 2); // took the slot over
    expect((await fresh.fetchOffsets('g', [{ topic: 't', partition: 0 }]))[0]!.offset).toBe(10);
    expect(await fresh.commitOffsets(commit(20))).toEqual([E.NONE]);

    // The stale one still has the group loaded and believes it coordinates it.
    expect(await stale.commitOffsets(commit(11))).toEqual([E.NOT_COORDINATOR]);
    expect(store.offsets.get('g')!.get('t/0')!.offset).toBe(20);
    expect(stale.loadedGroup('g')).toBeUndefined(); // unloaded: a later request reloads (and is fenced again)
    expect(await stale.commitOffsets(commit(12))).toEqual([E.NOT_COORDINATOR]);
    expect(store.offsets.get('g')!.get('t/0')!.offset).toBe(20);
    expect(await fresh.commitOffsets(commit(21))).toEqual([E.NONE]);
  });

  it('a stale leader\'s SyncGroup is refused: members hear NOT_COORDINATOR and the newer group state stays', async () => {
    const store = new MemoryGroupStore();
    const clock = new FakeClock();
    const stale = coordinator(store, clock, () => 1);
    const join = { groupId: 'g', memberId: '', groupInstanceId: null, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 30_000, protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: subscription }], clientId: 'c', clientHost: '/h', requireKnownMemberId: false, supportSkipAssignment: false };
    const joined = stale.join(join);
    await clock.advance(0);
    const j = await joined;
    expect(j).toMatchObject({ errorCode: E.NONE, generationId: 1 });

    // A newer coordinator writes the group first (e.g. an offset commit outside the generation path).
    const fresh = coordinator(store, clock, () => 2);
    expect(await fresh.commitOffsets(commit(5))).toEqual([E.NONE]);

    const sync = await stale.sync({ groupId: 'g', generationId: 1, memberId: j.memberId, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range',
      assignments: [{ memberId: j.memberId, assignment: Buffer.from('A') }] });
    await flush();
    expect(sync.errorCode).toBe(E.NOT_COORDINATOR);
    expect(store.groups.has('g')).toBe(false); // the stale generation was never stored
    expect(stale.loadedGroup('g')).toBeUndefined();
    expect(clock.pending).toBe(0);
  });

  it('a stale coordinator can neither delete the group nor its offsets', async () => {
    const store = new MemoryGroupStore();
    const clock = new FakeClock();
    const stale = coordinator(store, clock, () => 3);
    expect(await stale.commitOffsets(commit(1))).toEqual([E.NONE]);
    const fresh = coordinator(store, clock, () => 4);
    expect(await fresh.commitOffsets(commit(2))).toEqual([E.NONE]);
    expect((await stale.deleteOffsets('g', [{ topic: 't', partition: 0 }])).errorCode).toBe(E.NOT_COORDINATOR);
    expect(store.offsets.get('g')!.get('t/0')!.offset).toBe(2);
    expect(await stale.deleteGroup('g')).toBe(E.NOT_COORDINATOR);
    expect(store.index.has('g')).toBe(true);
    // The newer coordinator can.
    expect(await fresh.deleteGroup('g')).toBe(E.NONE);
    expect(store.index.has('g')).toBe(false);
  });

  it('the offset-expiry pass skips a fenced group and goes on with the others', async () => {
    const store = new MemoryGroupStore();
    const clock = new FakeClock();
    const stale = coordinator(store, clock, () => 1);
    expect(await stale.commitOffsets(commit(1, { groupId: 'a' }))).toEqual([E.NONE]);
    expect(await stale.commitOffsets(commit(1, { groupId: 'b' }))).toEqual([E.NONE]);
    expect(await coordinator(store, clock, () => 2).commitOffsets(commit(9, { groupId: 'a' }))).toEqual([E.NONE]);
    await clock.advance(8 * 24 * 3600_000); // past offsets.retention.minutes
    expect(await stale.expireOffsets()).toBe(1); // b's offset; a is fenced
    expect(store.offsets.get('a')!.get('t/0')!.offset).toBe(9);
    expect(store.index.has('b')).toBe(false);
  });

  it('a broker that no longer coordinates the slot (no epoch) answers NOT_COORDINATOR without touching the store', async () => {
    const store = new MemoryGroupStore();
    const clock = new FakeClock();
    const gone = coordinator(store, clock, () => null);
    expect(await gone.commitOffsets(commit(1))).toEqual([E.NOT_COORDINATOR]);
    expect(store.index.size).toBe(0);
  });
});
