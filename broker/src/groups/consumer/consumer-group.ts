// The in-memory model of one consumer-protocol group (KIP-848), sans-IO: a
// heartbeat and the topics it may subscribe to in, the answer out; time and
// persistence belong to the caller (consumer-flow.ts). As in Kafka's
// GroupMetadataManager and ConsumerGroup:
//   - the group epoch goes up whenever membership, a subscription or the
//     metadata of a subscribed topic changes;
//   - the target assignment is recomputed by the group's assignor when the
//     group epoch is ahead of the assignment epoch, and then carries it;
//   - each member reconciles towards its target at its own pace, revocation
//     before assignment (reconcile.ts), with its own member epoch;
//   - a heartbeat with a member epoch the member does not have is fenced
//     (FENCED_MEMBER_EPOCH), one from an unknown member is UNKNOWN_MEMBER_ID;
//   - member epoch 0 joins, -1 leaves, -2 is a static member leaving for now
//     (it keeps its assignment until its session expires or it rejoins with the
//     same group.instance.id).
import { ErrorCode } from '../../../../common/errors.js';
import { ASSIGNORS, type TopicMeta } from './assignors.js';
import { copy, entries, equal, fromWire, toWire, type Partitions } from './partitions.js';
import { ownedAtPreviousEpoch, reconcile, type MemberState } from './reconcile.js';

export const LEAVE_EPOCH = -1;
export const STATIC_LEAVE_EPOCH = -2;

export interface ConsumerMember {
  memberId: string;
  instanceId: string | null;
  rackId: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeoutMs: number;
  subscribedTopicNames: string[];
  subscribedTopicRegex: string | null;
  serverAssignor: string | null;
  memberEpoch: number;
  previousMemberEpoch: number;
  state: MemberState;
  assigned: Partitions;
  pendingRevocation: Partitions;
  /** Set for a member that speaks the classic protocol (JoinGroup/SyncGroup) in this group (Kafka's ClassicMemberMetadata, classic-bridge.ts). */
  classic?: ClassicMemberMetadata;
}

/** A classic member's session timeout and its JoinGroup protocols (metadata in base64). */
export interface ClassicMemberMetadata {
  sessionTimeoutMs: number;
  protocols: Array<{ name: string; metadata: string }>;
}

export interface HeartbeatInput {
  memberId: string;
  memberEpoch: number;
  instanceId: string | null;
  rackId: string | null;
  rebalanceTimeoutMs: number;
  subscribedTopicNames: string[] | null;
  subscribedTopicRegex: string | null;
  serverAssignor: string | null;
  ownedPartitions: Array<{ topicId: string; partitions: number[] }> | null;
  clientId: string;
  clientHost: string;
}

export interface HeartbeatOutput {
  errorCode: number;
  errorMessage: string | null;
  memberId: string | null;
  memberEpoch: number;
  /** Sent on a full request or when the member's assignment changed; null otherwise. */
  assignment: Array<{ topicId: string; partitions: number[] }> | null;
  /** Whether the group's stored state changed (the caller persists it). */
  changed: boolean;
}

export interface ConsumerGroupSettings {
  /** group.consumer.assignors; the first is the default. */
  assignors: string[];
  /** group.consumer.max.size */
  maxSize: number;
}

export type ConsumerGroupState = 'Empty' | 'Assigning' | 'Reconciling' | 'Stable';

/** A compiled subscription regex (RE2J in Kafka; JavaScript's syntax here), matched against whole topic names. */
export function compileRegex(re: string): RegExp | null {
  try {
    return new RegExp(`^(?:${re})$`);
  } catch {
    return null;
  }
}

const fail = (errorCode: number, errorMessage: string, memberId: string | null = null): HeartbeatOutput =>
  ({ errorCode, errorMessage, memberId, memberEpoch: -1, assignment: null, changed: false });

export class ConsumerGroup {
  groupEpoch = 0;
  assignmentEpoch = 0;
  readonly members = new Map<string, ConsumerMember>();
  /** member id -> target assignment at assignmentEpoch */
  readonly target = new Map<string, Partitions>();
  /** The resolved subscribed topics the target was computed for (name:id:partitions, sorted). */
  subscriptionMetadata = '';
  /** Name of the assignor that computed the target. */
  assignorName = '';

  constructor(readonly groupId: string) {}

  get state(): ConsumerGroupState {
    if (this.members.size === 0) return 'Empty';
    if (this.groupEpoch > this.assignmentEpoch) return 'Assigning';
    for (const m of this.members.values()) if (m.state !== 'STABLE' || m.memberEpoch !== this.assignmentEpoch) return 'Reconciling';
    return 'Stable';
  }

  memberByInstance(instanceId: string): ConsumerMember | undefined {
    for (const m of this.members.values()) if (m.instanceId === instanceId) return m;
    return undefined;
  }

  /** Owner of a partition (assigned or pending revocation) other than `except`. */
  ownerOf(topicId: string, partition: number, except: string): string | undefined {
    for (const m of this.members.values()) {
      if (m.memberId === except) continue;
      if (m.assigned.get(topicId)?.has(partition) || m.pendingRevocation.get(topicId)?.has(partition)) return m.memberId;
    }
    return undefined;
  }

  /** The topics (ids) a member's subscription resolves to among `topics` (by name). */
  resolve(m: Pick<ConsumerMember, 'subscribedTopicNames' | 'subscribedTopicRegex'>, topics: Map<string, TopicMeta>): Set<string> {
    const out = new Set<string>();
    for (const n of m.subscribedTopicNames) {
      const t = topics.get(n);
      if (t) out.add(t.id);
    }
    const re = m.subscribedTopicRegex !== null ? compileRegex(m.subscribedTopicRegex) : null;
    // Kafka's coordinator matches every topic, internal ones included (franz-go's Test848RegexBrokerResolves checks this against Kafka)
    if (re) for (const t of topics.values()) if (re.test(t.name)) out.add(t.id);
    return out;
  }

  private metadataOf(topics: Map<string, TopicMeta>): { ids: Map<string, TopicMeta>; signature: string } {
    const byId = new Map([...topics.values()].map((t) => [t.id, t]));
    const ids = new Map<string, TopicMeta>();
    for (const m of this.members.values()) for (const id of this.resolve(m, topics)) ids.set(id, byId.get(id)!);
    const signature = [...ids.values()].map((t) => `${t.name}:${t.id}:${t.partitions}`).sort().join(',');
    return { ids, signature };
  }

  /** The assignor most members ask for, else the default (Kafka's preferred server assignor). */
  private chooseAssignor(settings: ConsumerGroupSettings): string {
    const votes = new Map<string, number>();
    for (const m of this.members.values()) if (m.serverAssignor !== null) votes.set(m.serverAssignor, (votes.get(m.serverAssignor) ?? 0) + 1);
    let best = settings.assignors[0] ?? 'uniform';
    let n = 0;
    for (const [a, c] of votes) if (c > n) [best, n] = [a, c];
    return best;
  }

  /** Whether a member subscribes to `topic` (by name or regex): OffsetDelete refuses its offsets then. */
  isSubscribedTo(topic: string): boolean {
    for (const m of this.members.values()) {
      if (m.subscribedTopicNames.includes(topic)) return true;
      if (m.subscribedTopicRegex !== null && compileRegex(m.subscribedTopicRegex)?.test(topic)) return true;
    }
    return false;
  }

  /** Removes a member (left, fenced or expired); the next heartbeat computes the new target. */
  removeMember(memberId: string): boolean {
    if (!this.members.delete(memberId)) return false;
    this.target.delete(memberId);
    this.groupEpoch++;
    return true;
  }

  /** One ConsumerGroupHeartbeat; `topics` holds every topic by name. */
  heartbeat(req: HeartbeatInput, topics: Map<string, TopicMeta>, settings: ConsumerGroupSettings, newMemberId: () => string): HeartbeatOutput {
    if (req.serverAssignor !== null && !ASSIGNORS.has(req.serverAssignor)) {
      return fail(ErrorCode.UNSUPPORTED_ASSIGNOR, `ServerAssignor ${req.serverAssignor} is not supported. Supported assignors: ${settings.assignors.join(', ')}.`);
    }
    if (req.subscribedTopicRegex !== null && compileRegex(req.subscribedTopicRegex) === null) {
      return fail(ErrorCode.INVALID_REGULAR_EXPRESSION, `SubscribedTopicRegex ${req.subscribedTopicRegex} is not a valid regular expression.`);
    }
    if (req.memberEpoch === LEAVE_EPOCH || req.memberEpoch === STATIC_LEAVE_EPOCH) return this.leave(req);

    let changed = false;
    // Whatever changed in this heartbeat (a new member, a subscription, topic metadata) bumps the group epoch once, as in Kafka.
    let bump = false;
    let member: ConsumerMember | undefined;
    const owned = req.ownedPartitions !== null ? fromWire(req.ownedPartitions) : null;
    if (req.memberEpoch === 0) {
      const memberId = req.memberId !== '' ? req.memberId : newMemberId();
      member = this.members.get(memberId);
      if (!member && req.instanceId !== null) {
        // A static member comes back under a new member id: it takes the place (epoch, assignment) of the one that left with -2.
        const old = this.memberByInstance(req.instanceId);
        if (old) {
          if (old.memberEpoch !== STATIC_LEAVE_EPOCH) {
            return fail(ErrorCode.UNRELEASED_INSTANCE_ID, `Static member ${old.memberId} with instance id ${req.instanceId} is not released.`, memberId);
          }
          this.members.delete(old.memberId);
          const tgt = this.target.get(old.memberId);
          this.target.delete(old.memberId);
          member = { ...old, memberId, memberEpoch: old.previousMemberEpoch };
          this.members.set(memberId, member);
          if (tgt) this.target.set(memberId, tgt);
          changed = true;
        }
      }
      if (!member) {
        if (this.members.size >= settings.maxSize) return fail(ErrorCode.GROUP_MAX_SIZE_REACHED, `The consumer group has reached its maximum capacity of ${settings.maxSize} members.`, memberId);
        member = {
          memberId, instanceId: req.instanceId, rackId: req.rackId, clientId: req.clientId, clientHost: req.clientHost,
          rebalanceTimeoutMs: req.rebalanceTimeoutMs, subscribedTopicNames: [], subscribedTopicRegex: null, serverAssignor: null,
          memberEpoch: 0, previousMemberEpoch: -1, state: 'STABLE', assigned: new Map(), pendingRevocation: new Map(),
        };
        this.members.set(memberId, member);
        bump = true;
      }
    } else {
      member = this.members.get(req.memberId);
      if (!member) return fail(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of group ${this.groupId}.`, req.memberId);
      if (req.memberEpoch > member.memberEpoch
        || (req.memberEpoch < member.memberEpoch && !(req.memberEpoch === member.previousMemberEpoch && ownedAtPreviousEpoch(member, owned)))) {
        return fail(ErrorCode.FENCED_MEMBER_EPOCH, `The member epoch ${req.memberEpoch} of member ${member.memberId} is fenced; its epoch is ${member.memberEpoch}.`, member.memberId);
      }
    }

    // Subscription changes (null: unchanged) bump the group epoch.
    const before = JSON.stringify([member.subscribedTopicNames, member.subscribedTopicRegex, member.serverAssignor]);
    if (req.subscribedTopicNames !== null) member.subscribedTopicNames = [...req.subscribedTopicNames].sort();
    if (req.subscribedTopicRegex !== null) member.subscribedTopicRegex = req.subscribedTopicRegex === '' ? null : req.subscribedTopicRegex;
    if (req.serverAssignor !== null) member.serverAssignor = req.serverAssignor;
    if (JSON.stringify([member.subscribedTopicNames, member.subscribedTopicRegex, member.serverAssignor]) !== before) bump = true;
    if (req.rackId !== null && req.rackId !== member.rackId) [member.rackId, changed] = [req.rackId, true];
    if (req.rebalanceTimeoutMs !== -1 && req.rebalanceTimeoutMs !== member.rebalanceTimeoutMs) [member.rebalanceTimeoutMs, changed] = [req.rebalanceTimeoutMs, true];
    member.clientId = req.clientId;
    member.clientHost = req.clientHost;

    // Topics created, deleted or grown under the group's subscriptions bump the group epoch too.
    const meta = this.metadataOf(topics);
    if (meta.signature !== this.subscriptionMetadata) {
      this.subscriptionMetadata = meta.signature;
      bump = true;
    }
    if (bump) {
      this.groupEpoch++;
      changed = true;
    }
    if (this.groupEpoch > this.assignmentEpoch) {
      this.computeTarget(meta.ids, settings);
      changed = true;
    }

    const m = member;
    const r = reconcile(m, this.assignmentEpoch, this.target.get(m.memberId) ?? new Map(), owned, (t, p) => this.ownerOf(t, p, m.memberId));
    const assignmentChanged = !equal(r.assigned, m.assigned);
    if (r !== m) {
      if (r.memberEpoch !== m.memberEpoch || r.state !== m.state || assignmentChanged || !equal(r.pendingRevocation, m.pendingRevocation)) changed = true;
      Object.assign(m, { memberEpoch: r.memberEpoch, previousMemberEpoch: r.previousMemberEpoch, state: r.state, assigned: r.assigned, pendingRevocation: r.pendingRevocation });
    }
    // Kafka: the assignment is sent on a full request (joining, or every field set after an error) or when it changed.
    const full = req.memberEpoch === 0 || (req.rebalanceTimeoutMs !== -1 && req.subscribedTopicNames !== null && req.ownedPartitions !== null);
    return {
      errorCode: ErrorCode.NONE, errorMessage: null, memberId: m.memberId, memberEpoch: m.memberEpoch,
      assignment: full || assignmentChanged ? toWire(m.assigned) : null, changed,
    };
  }

  private leave(req: HeartbeatInput): HeartbeatOutput {
    const m = this.members.get(req.memberId) ?? (req.instanceId !== null ? this.memberByInstance(req.instanceId) : undefined);
    if (!m) return fail(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of group ${this.groupId}.`, req.memberId);
    if (req.memberEpoch === STATIC_LEAVE_EPOCH && m.instanceId !== null) {
      // Kept with its assignment; its partitions stay owned until it returns or its session expires.
      if (m.memberEpoch !== STATIC_LEAVE_EPOCH) m.previousMemberEpoch = m.memberEpoch;
      m.memberEpoch = STATIC_LEAVE_EPOCH;
      return { errorCode: ErrorCode.NONE, errorMessage: null, memberId: m.memberId, memberEpoch: STATIC_LEAVE_EPOCH, assignment: null, changed: true };
    }
    this.removeMember(m.memberId);
    return { errorCode: ErrorCode.NONE, errorMessage: null, memberId: m.memberId, memberEpoch: LEAVE_EPOCH, assignment: null, changed: true };
  }

  /** The target assignment of every member over the subscribed topics `ids` (id -> topic), by the group's assignor. */
  private computeTarget(ids: Map<string, TopicMeta>, settings: ConsumerGroupSettings): void {
    const assignor = ASSIGNORS.get(this.chooseAssignor(settings)) ?? ASSIGNORS.get('uniform')!;
    const byName = new Map([...ids.values()].map((t) => [t.name, t]));
    const members = [...this.members.values()].map((m) => ({
      memberId: m.memberId,
      topics: this.resolve(m, byName),
      current: this.target.get(m.memberId) ?? new Map(),
    }));
    const result = assignor.assign(members, ids);
    this.target.clear();
    for (const [id, p] of result) this.target.set(id, p);
    this.assignorName = assignor.name;
    this.assignmentEpoch = this.groupEpoch;
  }

  /** Every partition currently owned (assigned or pending revocation), for tests and describe. */
  ownedPartitions(memberId: string): Partitions {
    const m = this.members.get(memberId);
    if (!m) return new Map();
    const out = copy(m.assigned);
    for (const [t, p] of entries(m.pendingRevocation)) {
      const s = out.get(t) ?? new Set<number>();
      s.add(p);
      out.set(t, s);
    }
    return out;
  }
}
