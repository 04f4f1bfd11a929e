// Classic members in a consumer-protocol group (Kafka's online upgrade,
// group.consumer.migration.policy upgrade/bidirectional): when a
// ConsumerGroupHeartbeat joins a classic group that has members, the group
// becomes a consumer group at once (upgrade()); its classic members keep
// their partitions at a member epoch equal to the classic generation and go on
// speaking JoinGroup/SyncGroup/Heartbeat/LeaveGroup, which are answered here
// from the consumer group's state, as Kafka's GroupMetadataManager does:
//   - JoinGroup is the member's heartbeat: its subscription and owned
//     partitions (ConsumerProtocolSubscription) go through the same
//     reconciliation as a consumer-protocol member's; the answer is at once,
//     with generation = the member epoch, no leader and no member list;
//   - SyncGroup returns its assigned partitions (ConsumerProtocolAssignment);
//   - Heartbeat answers REBALANCE_IN_PROGRESS when the member must rejoin: the
//     group epoch moved past its epoch, it has partitions to revoke, or the
//     partitions it waits for are free now;
//   - LeaveGroup removes it; its session timeout is its classic one, and it
//     is removed if it does not rejoin within its rebalance timeout after
//     being told to, or send SyncGroup within it after joining.
// When the last consumer-protocol member leaves (or is fenced or expires)
// and classic members remain, the group becomes a classic group again
// (downgrade(), policy downgrade/bidirectional) at generation = its members'
// epoch, its members keeping their partitions, and a rebalance starts, so
// they rejoin through the classic protocol.
import { randomUUID } from 'node:crypto';
import { ErrorCode } from '../../../common/errors.js';
import { Member, type Group, type JoinResult, type SyncResult } from './group.js';
import type { Rebalancer } from './rebalance.js';
import type { GroupRegistry } from './group-registry.js';
import type { JoinRequest, MemberRef, SyncRequest } from './requests.js';
import { invokeJoin, invokeSync, joinError, storeErrorCode, syncError } from './replies.js';
import { ConsumerGroup, type ConsumerMember } from './consumer/consumer-group.js';
import type { TopicMeta } from './consumer/assignors.js';
import { copy, entries, type Partitions } from './consumer/partitions.js';
import { assignedPartitions, decodeSubscription, encodeAssignment } from './consumer-protocol.js';

/** What the bridge needs from the consumer-group flow: the topic catalog, member timers and persistence. */
export interface BridgeHost {
  catalog(): Promise<Map<string, TopicMeta>>;
  scheduleSession(g: Group, memberId: string, sessionTimeoutMs: number): void;
  cancel(g: Group, memberId: string): void;
  /** Starts (ms) or stops (null) a classic member's join or sync deadline. */
  classicDeadline(g: Group, memberId: string, what: 'join' | 'sync', ms: number | null, restart?: boolean): void;
  settings(): { assignors: string[]; maxSize: number };
}

/** Partitions by topic name -> by topic id (topics unknown to `topics` are dropped). */
function byId(parts: Array<{ topic: string; partitions: number[] }>, topics: Map<string, TopicMeta>): Partitions {
  const out: Partitions = new Map();
  for (const t of parts) {
    const meta = topics.get(t.topic);
    if (!meta) continue;
    const s = out.get(meta.id) ?? new Set<number>();
    for (const p of t.partitions) s.add(p);
    out.set(meta.id, s);
  }
  return out;
}

function byName(parts: Partitions, topics: Map<string, TopicMeta>): Array<{ topic: string; partitions: number[] }> {
  const names = new Map([...topics.values()].map((t) => [t.id, t.name]));
  const out: Array<{ topic: string; partitions: number[] }> = [];
  for (const [id, ps] of parts) {
    const name = names.get(id);
    if (name !== undefined) out.push({ topic: name, partitions: [...ps].sort((a, b) => a - b) });
  }
  return out;
}

const b64 = (b: Buffer): string => b.toString('base64');

export class ClassicBridge {
  /** The classic rebalance flow, for downgrades (set by the coordinator). */
  rebalancer: Rebalancer | null = null;

  constructor(private readonly reg: GroupRegistry, private readonly host: BridgeHost) {}

  /**
   * After a consumer-protocol member left: when only classic members remain
   * (and the policy allows), the group becomes classic again (Kafka's
   * convertToClassicGroup) and prepares a rebalance. True when it did.
   */
  async downgrade(g: Group): Promise<boolean> {
    const cg = g.modern;
    const policy = this.reg.settings.consumerMigrationPolicy;
    // A consumer group's classic state is Empty (its members live in g.modern).
    if (!cg || !this.rebalancer || !g.is('Empty') || (policy !== 'downgrade' && policy !== 'bidirectional')) return false;
    if (cg.members.size === 0 || cg.members.size > this.reg.settings.maxSize || [...cg.members.values()].some((m) => !m.classic)) return false;
    let topics: Map<string, TopicMeta>;
    try {
      topics = await this.host.catalog();
    } catch {
      return false;
    }
    if (!this.reg.alive(g) || g.modern !== cg || !g.is('Empty') || cg.members.size === 0 || [...cg.members.values()].some((m) => !m.classic)) return false;
    const now = this.reg.clock.now();
    for (const id of cg.members.keys()) this.host.cancel(g, id);
    g.modern = null;
    g.protocolType = 'consumer';
    // Kafka's classic group takes the epoch the group had before the member left, which the
    // remaining members (when reconciled) share: their heartbeats are then told to rejoin, not ILLEGAL_GENERATION.
    g.generation = Math.max(...[...cg.members.values()].map((m) => m.memberEpoch));
    for (const cm of cg.members.values()) {
      const c = cm.classic!;
      const protocols = c.protocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata, 'base64') }));
      const m = new Member(cm.memberId, cm.instanceId, cm.clientId, cm.clientHost, c.sessionTimeoutMs, cm.rebalanceTimeoutMs, 'consumer', protocols);
      m.assignment = encodeAssignment(protocols[0]?.metadata.readInt16BE(0) ?? 0, byName(cm.assigned, topics));
      g.add(m);
    }
    g.protocolName = g.selectProtocol();
    // Kafka builds the classic group Stable and then prepares a rebalance (not the initial, delayed one).
    g.transition('PreparingRebalance', now);
    g.transition('CompletingRebalance', now);
    g.transition('Stable', now);
    for (const m of g.members.values()) this.rebalancer.scheduleSession(g, m, m.sessionTimeoutMs);
    this.rebalancer.prepareRebalance(g, `downgrade of group ${g.groupId} from consumer to classic`);
    this.reg.logger?.info('consumer group downgraded to a classic group', { group: g.groupId, members: g.size, generation: g.generation });
    try {
      await this.reg.saveGroup(g, this.reg.snapshot(g));
    } catch (e) {
      this.reg.logger?.warn('storing the downgraded group failed', { group: g.groupId, err: String(e) });
    }
    return true;
  }

  /**
   * Converts a classic group with members into a consumer group (Kafka's
   * convertToConsumerGroup): false when the policy, the embedded protocol or
   * the group's size does not allow it. Pending JoinGroup/SyncGroup requests
   * are answered REBALANCE_IN_PROGRESS; the members' sessions carry over.
   */
  upgrade(g: Group, topics: Map<string, TopicMeta>): boolean {
    const policy = this.reg.settings.consumerMigrationPolicy;
    if (policy !== 'upgrade' && policy !== 'bidirectional') return false;
    if (g.protocolType !== 'consumer' || g.size > this.reg.settings.consumerMaxSize) return false;
    const cg = new ConsumerGroup(g.groupId);
    cg.groupEpoch = g.generation;
    cg.assignmentEpoch = g.generation;
    for (const m of g.members.values()) {
      const sub = decodeSubscription(m.metadataFor(g.protocolName));
      const assigned = assignedPartitions(m.assignment);
      if (sub === null || assigned === null) return false;
      const member: ConsumerMember = {
        memberId: m.memberId, instanceId: m.groupInstanceId, rackId: sub.rackId, clientId: m.clientId, clientHost: m.clientHost,
        rebalanceTimeoutMs: m.rebalanceTimeoutMs, subscribedTopicNames: [...sub.topics].sort(), subscribedTopicRegex: null, serverAssignor: null,
        memberEpoch: g.generation, previousMemberEpoch: -1, state: 'STABLE', assigned: byId(assigned, topics), pendingRevocation: new Map(),
        classic: { sessionTimeoutMs: m.sessionTimeoutMs, protocols: m.protocols.map((p) => ({ name: p.name, metadata: b64(p.metadata) })) },
      };
      cg.members.set(m.memberId, member);
      cg.target.set(m.memberId, copy(member.assigned));
    }
    const now = this.reg.clock.now();
    for (const m of [...g.members.values()]) {
      invokeJoin(m, joinError(m.memberId, ErrorCode.REBALANCE_IN_PROGRESS));
      invokeSync(m, syncError(ErrorCode.REBALANCE_IN_PROGRESS));
      m.sessionTimer?.();
      m.sessionTimer = null;
      g.remove(m.memberId);
    }
    g.joinTimer?.();
    g.joinTimer = null;
    g.syncTimer?.();
    g.syncTimer = null;
    g.initialJoin = null;
    for (const c of g.pendingMembers.values()) c();
    g.pendingMembers.clear();
    if (!g.is('PreparingRebalance') && !g.is('Empty')) g.transition('PreparingRebalance', now);
    if (!g.is('Empty')) g.transition('Empty', now);
    g.leader = null;
    g.protocolName = null;
    g.modern = cg;
    for (const m of cg.members.values()) this.host.scheduleSession(g, m.memberId, m.classic!.sessionTimeoutMs);
    this.reg.logger?.info('classic group upgraded to a consumer group', { group: g.groupId, members: cg.members.size, epoch: cg.groupEpoch });
    return true;
  }

  /** JoinGroup of a classic member into a consumer group (Kafka's classicGroupJoinToConsumerGroup). */
  async join(g: Group, req: JoinRequest): Promise<JoinResult> {
    const cg = g.modern!;
    const first = req.protocols[0];
    if (req.protocolType !== 'consumer' || !first) return joinError(req.memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    const sub = decodeSubscription(first.metadata);
    if (sub === null) return joinError(req.memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    let memberId = req.memberId;
    if (memberId === '') {
      memberId = randomUUID();
      if (req.requireKnownMemberId && req.groupInstanceId === null) return joinError(memberId, ErrorCode.MEMBER_ID_REQUIRED);
    }
    const existing = cg.members.get(memberId);
    if (existing && !existing.classic) return joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID);
    let topics: Map<string, TopicMeta>;
    try {
      topics = await this.host.catalog();
    } catch (e) {
      return joinError(memberId, storeErrorCode(e));
    }
    if (g.modern !== cg) return joinError(memberId, ErrorCode.REBALANCE_IN_PROGRESS);
    const owned = [...byId(sub.owned, topics)].map(([topicId, ps]) => ({ topicId, partitions: [...ps] }));
    const out = cg.heartbeat({
      memberId, memberEpoch: existing ? existing.memberEpoch : 0, instanceId: req.groupInstanceId, rackId: sub.rackId,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs, subscribedTopicNames: sub.topics, subscribedTopicRegex: null, serverAssignor: null,
      ownedPartitions: owned, clientId: req.clientId, clientHost: req.clientHost,
    }, topics, this.host.settings(), () => memberId);
    if (out.errorCode !== ErrorCode.NONE) return joinError(memberId, out.errorCode === ErrorCode.FENCED_MEMBER_EPOCH ? ErrorCode.ILLEGAL_GENERATION : out.errorCode);
    const m = cg.members.get(memberId)!;
    m.classic = { sessionTimeoutMs: req.sessionTimeoutMs, protocols: req.protocols.map((p) => ({ name: p.name, metadata: b64(p.metadata) })) };
    try {
      await this.reg.saveGroup(g, this.reg.snapshot(g));
    } catch (e) {
      return joinError(memberId, storeErrorCode(e));
    }
    this.host.scheduleSession(g, memberId, req.sessionTimeoutMs);
    // Joined: no more join deadline; the SyncGroup must follow within the rebalance timeout.
    this.host.classicDeadline(g, memberId, 'join', null);
    this.host.classicDeadline(g, memberId, 'sync', req.rebalanceTimeoutMs, true);
    return {
      errorCode: ErrorCode.NONE, generationId: m.memberEpoch, protocolType: 'consumer', protocolName: first.name,
      leader: '', skipAssignment: false, memberId, members: [],
    };
  }

  /** The classic member of `cg` named by the request, or the error to answer. */
  private member(cg: ConsumerGroup, memberId: string, instanceId: string | null): ConsumerMember | number {
    const m = instanceId !== null ? cg.memberByInstance(instanceId) : cg.members.get(memberId);
    if (!m) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (instanceId !== null && m.memberId !== memberId) return ErrorCode.FENCED_INSTANCE_ID;
    if (!m.classic) return ErrorCode.UNKNOWN_MEMBER_ID;
    return m;
  }

  /** SyncGroup of a classic member: its assigned partitions (Kafka's classicGroupSyncToConsumerGroup). */
  async sync(g: Group, req: SyncRequest): Promise<SyncResult> {
    const cg = g.modern!;
    const m = this.member(cg, req.memberId, req.groupInstanceId);
    if (typeof m === 'number') return syncError(m);
    if (req.generationId !== m.memberEpoch) return syncError(ErrorCode.ILLEGAL_GENERATION);
    const protocol = m.classic!.protocols[0]!;
    if ((req.protocolType !== null && req.protocolType !== 'consumer') || (req.protocolName !== null && req.protocolName !== protocol.name)) {
      return syncError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    }
    if (cg.groupEpoch > m.memberEpoch && m.state !== 'UNREVOKED_PARTITIONS') return syncError(ErrorCode.REBALANCE_IN_PROGRESS);
    let topics: Map<string, TopicMeta>;
    try {
      topics = await this.host.catalog();
    } catch (e) {
      return syncError(storeErrorCode(e));
    }
    this.host.scheduleSession(g, m.memberId, m.classic!.sessionTimeoutMs);
    this.host.classicDeadline(g, m.memberId, 'sync', null);
    const version = Buffer.from(protocol.metadata, 'base64').readInt16BE(0);
    return { errorCode: ErrorCode.NONE, protocolType: 'consumer', protocolName: protocol.name, assignment: encodeAssignment(version, byName(m.assigned, topics)) };
  }

  /** Heartbeat of a classic member (Kafka's classicGroupHeartbeatToConsumerGroup). */
  heartbeat(g: Group, generationId: number, memberId: string, instanceId: string | null): number {
    const cg = g.modern!;
    const m = this.member(cg, memberId, instanceId);
    if (typeof m === 'number') return m;
    if (generationId !== m.memberEpoch) return ErrorCode.ILLEGAL_GENERATION;
    this.host.scheduleSession(g, m.memberId, m.classic!.sessionTimeoutMs);
    const waiting = (): boolean => {
      for (const [t, p] of entries(cg.target.get(m.memberId) ?? new Map())) {
        if (!m.assigned.get(t)?.has(p) && cg.ownerOf(t, p, m.memberId) !== undefined) return true;
      }
      return false;
    };
    if (m.memberEpoch < cg.groupEpoch || m.state === 'UNREVOKED_PARTITIONS' || (m.state === 'UNRELEASED_PARTITIONS' && !waiting())) {
      // It must rejoin within its rebalance timeout (Kafka's join timeout).
      this.host.classicDeadline(g, m.memberId, 'join', m.rebalanceTimeoutMs);
      return ErrorCode.REBALANCE_IN_PROGRESS;
    }
    return ErrorCode.NONE;
  }

  /** LeaveGroup of classic members (Kafka's classicGroupLeaveToConsumerGroup). */
  leave(g: Group, members: MemberRef[]): Array<MemberRef & { errorCode: number }> {
    const cg = g.modern!;
    let changed = false;
    const out = members.map((x) => {
      const m = x.memberId === '' && x.groupInstanceId !== null ? cg.memberByInstance(x.groupInstanceId) : this.member(cg, x.memberId, x.groupInstanceId);
      if (m === undefined) return { ...x, errorCode: ErrorCode.UNKNOWN_MEMBER_ID };
      if (typeof m === 'number') return { ...x, errorCode: m };
      if (!m.classic) return { ...x, errorCode: ErrorCode.UNKNOWN_MEMBER_ID };
      this.host.cancel(g, m.memberId);
      cg.removeMember(m.memberId);
      changed = true;
      return { ...x, errorCode: ErrorCode.NONE };
    });
    if (changed) this.reg.persistInBackground(g);
    return out;
  }
}
