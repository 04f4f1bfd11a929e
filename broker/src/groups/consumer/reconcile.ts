// Moves one member of a consumer-protocol group towards its target
// assignment, as Kafka's CurrentAssignmentBuilder does (KIP-848):
//   - partitions the target no longer gives the member are revoked first: the
//     member keeps only the partitions it keeps, in UNREVOKED_PARTITIONS, at its
//     old epoch, until a heartbeat shows it no longer owns the revoked ones;
//   - then it moves to the target epoch and gets the new partitions that no
//     other member still owns; those another member still holds (assigned or
//     pending revocation) wait (UNRELEASED_PARTITIONS) until they are released;
//   - with nothing left to wait for it is STABLE at the target epoch.
import { copy, entries, intersects, isSubset, type Partitions } from './partitions.js';

export type MemberState = 'STABLE' | 'UNREVOKED_PARTITIONS' | 'UNRELEASED_PARTITIONS';

export interface Reconcilable {
  memberId: string;
  memberEpoch: number;
  previousMemberEpoch: number;
  state: MemberState;
  assigned: Partitions;
  pendingRevocation: Partitions;
}

/** Who currently owns a partition (assigned or pending revocation), other than this member. */
export type OwnerOf = (topicId: string, partition: number) => string | undefined;

/**
 * The member's next state. `owned` is what the member's heartbeat says it owns
 * (null: not sent, i.e. unchanged since the last heartbeat).
 */
export function reconcile(m: Reconcilable, targetEpoch: number, target: Partitions, owned: Partitions | null, ownerOf: OwnerOf): Reconcilable {
  switch (m.state) {
    case 'STABLE':
      return m.memberEpoch === targetEpoch ? m : next(m, targetEpoch, target, owned, ownerOf);
    case 'UNREVOKED_PARTITIONS':
      // Still owns partitions it must give up (or did not say): wait for it.
      if (owned === null || intersects(owned, m.pendingRevocation)) return m;
      return next({ ...m, pendingRevocation: new Map() }, targetEpoch, target, owned, ownerOf);
    case 'UNRELEASED_PARTITIONS':
      return next(m, targetEpoch, target, owned, ownerOf);
  }
}

function next(m: Reconcilable, targetEpoch: number, target: Partitions, owned: Partitions | null, ownerOf: OwnerOf): Reconcilable {
  const kept: Partitions = new Map();
  const revoke: Partitions = new Map();
  const assignable: Partitions = new Map();
  let unreleased = false;
  const put = (p: Partitions, t: string, x: number): void => {
    let s = p.get(t);
    if (!s) p.set(t, (s = new Set()));
    s.add(x);
  };
  for (const [t, x] of entries(m.assigned)) put(target.get(t)?.has(x) ? kept : revoke, t, x);
  for (const [t, x] of entries(target)) {
    if (m.assigned.get(t)?.has(x)) continue;
    const o = ownerOf(t, x);
    if (o === undefined || o === m.memberId) put(assignable, t, x);
    else unreleased = true;
  }
  // Revocation waits only for partitions the member may still own (Kafka: none to wait for when its heartbeat lists none of them, e.g. after a rejoin).
  if (revoke.size > 0 && (owned === null || intersects(owned, revoke))) {
    return { ...m, state: 'UNREVOKED_PARTITIONS', assigned: kept, pendingRevocation: revoke };
  }
  const assigned = copy(kept);
  for (const [t, x] of entries(assignable)) put(assigned, t, x);
  const epochMoved = m.memberEpoch !== targetEpoch;
  return {
    ...m,
    state: unreleased ? 'UNRELEASED_PARTITIONS' : 'STABLE',
    memberEpoch: targetEpoch,
    previousMemberEpoch: epochMoved ? m.memberEpoch : m.previousMemberEpoch,
    assigned,
    pendingRevocation: new Map(),
  };
}

/** Whether the member could have owned `owned` at its previous epoch (Kafka's check for a heartbeat one epoch behind). */
export function ownedAtPreviousEpoch(m: Reconcilable, owned: Partitions | null): boolean {
  return owned !== null && isSubset(owned, m.assigned);
}
