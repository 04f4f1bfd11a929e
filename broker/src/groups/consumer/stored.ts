// A consumer-protocol group as the GroupStore keeps it: plain JSON (the Redis
// store writes it into the group's `:meta` hash, field `consumer`).
import { fromWire, toWire } from './partitions.js';
import { ConsumerGroup } from './consumer-group.js';
import type { MemberState } from './reconcile.js';
import type { ClassicMemberMetadata } from './consumer-group.js';

type Wire = Array<{ topicId: string; partitions: number[] }>;

export interface StoredConsumerGroup {
  groupEpoch: number;
  assignmentEpoch: number;
  assignorName: string;
  subscriptionMetadata: string;
  members: Array<{
    memberId: string; instanceId: string | null; rackId: string | null; clientId: string; clientHost: string;
    rebalanceTimeoutMs: number; subscribedTopicNames: string[]; subscribedTopicRegex: string | null; serverAssignor: string | null;
    memberEpoch: number; previousMemberEpoch: number; state: MemberState; assigned: Wire; pendingRevocation: Wire; target: Wire;
    /** Only for a classic member (online upgrade). */
    classic?: ClassicMemberMetadata;
  }>;
}

export function storeConsumerGroup(g: ConsumerGroup): StoredConsumerGroup {
  return {
    groupEpoch: g.groupEpoch,
    assignmentEpoch: g.assignmentEpoch,
    assignorName: g.assignorName,
    subscriptionMetadata: g.subscriptionMetadata,
    members: [...g.members.values()].map((m) => ({
      ...m, subscribedTopicNames: [...m.subscribedTopicNames],
      assigned: toWire(m.assigned), pendingRevocation: toWire(m.pendingRevocation), target: toWire(g.target.get(m.memberId) ?? new Map()),
    })),
  };
}

export function loadConsumerGroup(groupId: string, s: StoredConsumerGroup): ConsumerGroup {
  const g = new ConsumerGroup(groupId);
  g.groupEpoch = s.groupEpoch;
  g.assignmentEpoch = s.assignmentEpoch;
  g.assignorName = s.assignorName;
  g.subscriptionMetadata = s.subscriptionMetadata;
  for (const m of s.members) {
    const { target, assigned, pendingRevocation, ...rest } = m;
    g.members.set(m.memberId, { ...rest, assigned: fromWire(assigned), pendingRevocation: fromWire(pendingRevocation) });
    g.target.set(m.memberId, fromWire(target));
  }
  return g;
}
