// A share group's membership (KIP-932), sans-IO: ShareGroupHeartbeat in,
// member epoch and assignment out. Members join with epoch 0 (the client
// chose its member id), heartbeat with their epoch and leave with -1. Every
// change of membership, subscriptions or the subscribed topics' partitions
// bumps the group epoch and recomputes the target assignment with the simple
// assignor; members of a share group own no partitions exclusively, so
// nothing is revoked first: a member moves to the new epoch and assignment on
// its next heartbeat.
import { ErrorCode } from '../../../../common/errors.js';
import type { TopicMeta } from '../consumer/assignors.js';
import { simpleAssign, type ShareAssignment } from './simple-assignor.js';

export interface ShareMember {
  memberId: string;
  memberEpoch: number;
  rackId: string | null;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: string[];
  assignment: ShareAssignment;
}

export interface ShareHeartbeatInput {
  memberId: string;
  memberEpoch: number;
  rackId: string | null;
  subscribedTopicNames: string[] | null;
  clientId: string;
  clientHost: string;
}

export interface ShareHeartbeatOutput {
  errorCode: number;
  errorMessage: string | null;
  memberId: string | null;
  memberEpoch: number;
  /** Set when the member's assignment is (re)sent: on join and whenever it changed. */
  assignment: ShareAssignment | null;
}

/** Kafka's checks of a ShareGroupHeartbeat: the message of an INVALID_REQUEST, or null. */
export function invalidShareHeartbeat(req: { groupId: string; memberId: string; memberEpoch: number; subscribedTopicNames: string[] | null }): string | null {
  if (req.groupId === '') return 'GroupId can\'t be empty.';
  if (req.memberId === '') return 'MemberId can\'t be empty.';
  if (req.memberEpoch === 0 && (req.subscribedTopicNames === null || req.subscribedTopicNames.length === 0)) return 'SubscribedTopicNames must be set in first request.';
  if (req.memberEpoch < -1) return `MemberEpoch is invalid: ${req.memberEpoch}.`;
  return null;
}

/** The stored form of a share group (assignments as [topicId, partitions] pairs). */
export interface StoredShareGroup {
  groupEpoch: number;
  assignmentEpoch: number;
  metadataKey: string;
  members: Array<Omit<ShareMember, 'assignment'> & { assignment: Array<[string, number[]]> }>;
  target: Array<[string, Array<[string, number[]]>]>;
}

const sameAssignment = (a: ShareAssignment, b: ShareAssignment): boolean =>
  a.size === b.size && [...a].every(([t, ps]) => { const o = b.get(t); return o !== undefined && o.length === ps.length && ps.every((p, i) => o[i] === p); });

export class ShareGroup {
  readonly members = new Map<string, ShareMember>();
  groupEpoch = 0;
  assignmentEpoch = 0;
  /** The subscribed topics' ids and partition counts the target was computed from. */
  private metadataKey = '';
  private target = new Map<string, ShareAssignment>();

  constructor(readonly groupId: string) {}

  toStored(): StoredShareGroup {
    return {
      groupEpoch: this.groupEpoch, assignmentEpoch: this.assignmentEpoch, metadataKey: this.metadataKey,
      members: [...this.members.values()].map((m) => ({ ...m, assignment: [...m.assignment] })),
      target: [...this.target].map(([id, a]) => [id, [...a]]),
    };
  }

  static fromStored(groupId: string, s: StoredShareGroup): ShareGroup {
    const g = new ShareGroup(groupId);
    g.groupEpoch = s.groupEpoch;
    g.assignmentEpoch = s.assignmentEpoch;
    g.metadataKey = s.metadataKey;
    for (const m of s.members) g.members.set(m.memberId, { ...m, assignment: new Map(m.assignment) });
    g.target = new Map(s.target.map(([id, a]) => [id, new Map(a)]));
    return g;
  }

  get state(): 'Empty' | 'Stable' {
    return this.members.size === 0 ? 'Empty' : 'Stable';
  }

  heartbeat(req: ShareHeartbeatInput, topics: Map<string, TopicMeta>, maxSize: number): ShareHeartbeatOutput {
    const fail = (errorCode: number, errorMessage: string | null = null): ShareHeartbeatOutput =>
      ({ errorCode, errorMessage, memberId: req.memberId, memberEpoch: -1, assignment: null });
    let m = this.members.get(req.memberId);
    if (req.memberEpoch === -1) {
      if (m) this.removeMember(req.memberId);
      return { errorCode: ErrorCode.NONE, errorMessage: null, memberId: req.memberId, memberEpoch: -1, assignment: null };
    }
    let bump = false;
    if (req.memberEpoch === 0) {
      if (!m) {
        if (this.members.size >= maxSize) return fail(ErrorCode.GROUP_MAX_SIZE_REACHED, `The share group has reached its maximum capacity of ${maxSize} members.`);
        m = { memberId: req.memberId, memberEpoch: 0, rackId: req.rackId, clientId: req.clientId, clientHost: req.clientHost, subscribedTopicNames: [], assignment: new Map() };
        this.members.set(m.memberId, m);
        bump = true;
      }
      m.memberEpoch = 0;
    } else {
      if (!m) return fail(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of share group ${this.groupId}.`);
      if (req.memberEpoch !== m.memberEpoch) return fail(ErrorCode.FENCED_MEMBER_EPOCH, `The share group member has a member epoch (${req.memberEpoch}) different from the one known by the group coordinator (${m.memberEpoch}).`);
    }
    if (req.rackId !== null) m.rackId = req.rackId;
    if (req.subscribedTopicNames !== null) {
      const subs = [...new Set(req.subscribedTopicNames)].sort();
      if (subs.join('\0') !== m.subscribedTopicNames.join('\0')) {
        m.subscribedTopicNames = subs;
        bump = true;
      }
    }
    const key = this.subscribedMetadata(topics);
    if (key !== this.metadataKey) bump = true;
    if (bump) this.recompute(topics);
    const joining = req.memberEpoch === 0;
    if (m.memberEpoch !== this.assignmentEpoch || joining) {
      const next = this.target.get(m.memberId) ?? new Map();
      const changed = joining || !sameAssignment(next, m.assignment);
      m.memberEpoch = this.assignmentEpoch;
      m.assignment = next;
      return { errorCode: ErrorCode.NONE, errorMessage: null, memberId: m.memberId, memberEpoch: m.memberEpoch, assignment: changed ? next : null };
    }
    return { errorCode: ErrorCode.NONE, errorMessage: null, memberId: m.memberId, memberEpoch: m.memberEpoch, assignment: null };
  }

  /** Removes a member (left, or its session expired); the others get a new epoch and assignment. */
  removeMember(memberId: string, topics?: Map<string, TopicMeta>): boolean {
    if (!this.members.delete(memberId)) return false;
    this.groupEpoch++;
    this.target = simpleAssign([...this.members.values()], topics ?? this.lastTopics);
    this.assignmentEpoch = this.groupEpoch;
    return true;
  }

  private lastTopics = new Map<string, TopicMeta>();

  private subscribedMetadata(topics: Map<string, TopicMeta>): string {
    const names = new Set<string>();
    for (const m of this.members.values()) for (const n of m.subscribedTopicNames) names.add(n);
    return [...names].sort().map((n) => { const t = topics.get(n); return t ? `${n}:${t.id}:${t.partitions}` : `${n}:-`; }).join(',');
  }

  private recompute(topics: Map<string, TopicMeta>): void {
    this.groupEpoch++;
    this.lastTopics = topics;
    this.metadataKey = this.subscribedMetadata(topics);
    this.target = simpleAssign([...this.members.values()], topics);
    this.assignmentEpoch = this.groupEpoch;
  }
}
