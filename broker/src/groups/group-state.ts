// The states of a classic group and the transitions between them, as Kafka's
// ClassicGroupState defines them: each state lists the states a group may
// leave to enter it. Group.transition asserts this table; a transition it does
// not list is a coordinator bug and throws, as Kafka's IllegalStateException.
//
// A group loaded from the store starts in Empty or Stable (by whether it has
// members) without a transition, as in Kafka's loadGroup.

export type GroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead';

export const GROUP_STATES: GroupState[] = ['Empty', 'PreparingRebalance', 'CompletingRebalance', 'Stable', 'Dead'];

/** For each state, the states a group must be in to move to it (Kafka's validPreviousStates). */
export const VALID_PREVIOUS_STATES: Readonly<Record<GroupState, readonly GroupState[]>> = {
  // A rebalance completed its join phase with no members left.
  Empty: ['PreparingRebalance'],
  // A member joined, rejoined with new metadata, left or failed.
  PreparingRebalance: ['Stable', 'CompletingRebalance', 'Empty'],
  // The join phase completed: members wait for the leader's assignment.
  CompletingRebalance: ['PreparingRebalance'],
  // The leader's assignment is stored and handed out.
  Stable: ['CompletingRebalance'],
  // The group is deleted (DeleteGroups, offset expiry); final.
  Dead: ['Stable', 'PreparingRebalance', 'CompletingRebalance', 'Empty', 'Dead'],
};

/** A state change the table forbids: an internal error of the coordinator, never answered as a Kafka error code. */
export class IllegalGroupStateError extends Error {
  constructor(readonly groupId: string, readonly from: GroupState, readonly to: GroupState, allowed: readonly GroupState[] = VALID_PREVIOUS_STATES[to]) {
    super(`Group ${groupId} should be in the ${allowed.join(',')} states before moving to ${to} state. Instead it is in ${from} state`);
    this.name = 'IllegalGroupStateError';
  }
}

export function isValidTransition(from: GroupState, to: GroupState): boolean {
  return VALID_PREVIOUS_STATES[to].includes(from);
}

/** Throws IllegalGroupStateError unless the table allows `from` -> `to`. */
export function assertValidTransition(groupId: string, from: GroupState, to: GroupState): void {
  if (!isValidTransition(from, to)) throw new IllegalGroupStateError(groupId, from, to);
}
