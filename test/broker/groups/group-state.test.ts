// The classic group state table (Kafka's ClassicGroupState) and Group.transition, which asserts it.
import { describe, expect, it } from 'vitest';
import { GroupCoordinator } from '../../../broker/src/groups/coordinator.js';
import { Group } from '../../../broker/src/groups/group.js';
import {
  GROUP_STATES, IllegalGroupStateError, VALID_PREVIOUS_STATES, isValidTransition, type GroupState,
} from '../../../broker/src/groups/group-state.js';
import { ErrorCode } from '../../../common/errors.js';
import { FakeClock } from '../support/fake-clock.js';
import { MemoryGroupStore } from '../support/memory-group-store.js';

/** Kafka's ClassicGroupState static block, written out independently of the table under test. */
const KAFKA: Record<GroupState, GroupState[]> = {
  Empty: ['PreparingRebalance'],
  PreparingRebalance: ['Stable', 'CompletingRebalance', 'Empty'],
  CompletingRebalance: ['PreparingRebalance'],
  Stable: ['CompletingRebalance'],
  Dead: ['Stable', 'PreparingRebalance', 'CompletingRebalance', 'Empty', 'Dead'],
};

/** A group in state `s`, reached by valid transitions only (state is not writable from outside). */
function groupIn(s: GroupState): Group {
  if (s === 'Stable') return new Group('g', 0, 'Stable');
  const g = new Group('g', 0);
  const path: Record<GroupState, GroupState[]> = {
    Empty: [],
    PreparingRebalance: ['PreparingRebalance'],
    CompletingRebalance: ['PreparingRebalance', 'CompletingRebalance'],
    Stable: [],
    Dead: ['Dead'],
  };
  for (const step of path[s]) g.transition(step, 0);
  expect(g.state).toBe(s);
  return g;
}

const pairs = GROUP_STATES.flatMap((from) => GROUP_STATES.map((to) => [from, to] as const));
const valid = pairs.filter(([from, to]) => KAFKA[to].includes(from));
const invalid = pairs.filter(([from, to]) => !KAFKA[to].includes(from));

describe('group state table', () => {
  it("lists Kafka's five classic states with Kafka's valid previous states", () => {
    expect([...GROUP_STATES].sort()).toEqual(Object.keys(KAFKA).sort());
    for (const s of GROUP_STATES) expect([...VALID_PREVIOUS_STATES[s]].sort()).toEqual([...KAFKA[s]].sort());
  });

  it('isValidTransition agrees with the table on every pair', () => {
    for (const [from, to] of pairs) expect(isValidTransition(from, to), `${from} -> ${to}`).toBe(KAFKA[to].includes(from));
  });

  it.each(valid)('accepts %s -> %s', (from, to) => {
    const g = groupIn(from);
    g.transition(to, 42);
    expect(g.state).toBe(to);
    expect(g.stateTimestamp).toBe(42);
  });

  it.each(invalid)('refuses %s -> %s, leaving the group as it was', (from, to) => {
    const g = groupIn(from);
    expect(() => g.transition(to, 42)).toThrow(IllegalGroupStateError);
    expect(g.state).toBe(from);
    expect(g.stateTimestamp).toBe(0);
  });

  it("names the group, the allowed states, the target and the current state, as Kafka's IllegalStateException", () => {
    const g = groupIn('Dead');
    let err: unknown;
    try {
      g.transition('Stable', 1);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(IllegalGroupStateError);
    expect(err).toMatchObject({
      groupId: 'g', from: 'Dead', to: 'Stable',
      message: 'Group g should be in the CompletingRebalance states before moving to Stable state. Instead it is in Dead state',
    });
  });

  it('a new group starts Empty; a loaded one may start Stable without a transition', () => {
    expect(new Group('g', 7).state).toBe('Empty');
    const loaded = new Group('g', 7, 'Stable');
    expect(loaded.state).toBe('Stable');
    expect(loaded.stateTimestamp).toBe(7);
  });
});

describe('reviveAfterFailedDelete (Dead -> Empty, outside the table)', () => {
  it('brings a Dead group back to Empty with its former state timestamp', () => {
    const g = groupIn('Dead');
    g.reviveAfterFailedDelete(5);
    expect(g.state).toBe('Empty');
    expect(g.stateTimestamp).toBe(5);
  });

  it.each(GROUP_STATES.filter((s) => s !== 'Dead'))('refuses a group in %s', (s) => {
    const g = groupIn(s);
    expect(() => g.reviveAfterFailedDelete(5)).toThrow('Group g should be in the Dead states before moving to Empty state. Instead it is in ' + s + ' state');
    expect(g.state).toBe(s);
  });

  it('DeleteGroups whose store delete fails leaves the group Empty and deletable later', async () => {
    const store = new MemoryGroupStore();
    const c = new GroupCoordinator(store, new FakeClock());
    expect(await c.commitOffsets({ groupId: 'g', generationId: -1, memberId: '', groupInstanceId: null,
      offsets: [{ topic: 't', partition: 0, offset: 1, leaderEpoch: -1, metadata: null }] })).toEqual([ErrorCode.NONE]);
    const since = c.loadedGroup('g')!.stateTimestamp;
    store.failing = true;
    expect(await c.deleteGroup('g')).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect(c.loadedGroup('g')?.state).toBe('Empty');
    expect(c.loadedGroup('g')?.stateTimestamp).toBe(since);
    store.failing = false;
    expect(await c.deleteGroup('g')).toBe(ErrorCode.NONE);
    expect(c.loadedGroup('g')).toBeUndefined();
  });
});
