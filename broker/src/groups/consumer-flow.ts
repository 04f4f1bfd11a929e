// ConsumerGroupHeartbeat and ConsumerGroupDescribe (KIP-848) on the
// coordinator's groups: loads or creates the group, runs the sans-IO state
// machine (consumer/consumer-group.ts) with the current topics, keeps each
// member's session (consumer.session.timeout.ms of the group's configs, else
// group.consumer.session.timeout.ms) and revocation
// (its rebalance timeout) timers, and stores the group, fenced by the
// coordinator epoch, before answering. A consumer-protocol group shares the
// group id space and the committed offsets with classic groups: an empty
// classic group becomes a consumer group when a consumer-protocol member
// joins (and an empty consumer group a classic one when a classic member
// joins, join.ts); a classic group with members converts online when a
// consumer-protocol member joins, its classic members carrying on through
// classic-bridge.ts (group.consumer.migration.policy upgrade/bidirectional).
import { randomUUID } from 'node:crypto';
import { ErrorCode } from '../../../common/errors.js';
import type { Group } from './group.js';
import type { GroupRegistry } from './group-registry.js';
import { storeErrorCode } from './replies.js';
import { ConsumerGroup, LEAVE_EPOCH, type HeartbeatInput, type HeartbeatOutput } from './consumer/consumer-group.js';
import type { TopicMeta } from './consumer/assignors.js';
import { toWire, type Partitions } from './consumer/partitions.js';
import { ClassicBridge, type BridgeHost } from './classic-bridge.js';

export interface ConsumerHeartbeatResult extends HeartbeatOutput { heartbeatIntervalMs: number }

export interface DescribedConsumerGroup {
  groupId: string;
  errorCode: number;
  errorMessage: string | null;
  state: string;
  groupEpoch: number;
  assignmentEpoch: number;
  assignorName: string;
  members: Array<{
    memberId: string; instanceId: string | null; rackId: string | null; memberEpoch: number; clientId: string; clientHost: string;
    subscribedTopicNames: string[]; subscribedTopicRegex: string | null;
    /** 0 a classic member (JoinGroup/SyncGroup) of the converted group, 1 a consumer-protocol member (ConsumerGroupDescribe v1's MemberType). */
    memberType: 0 | 1;
    assignment: Array<{ topicId: string; topicName: string; partitions: number[] }>;
    targetAssignment: Array<{ topicId: string; topicName: string; partitions: number[] }>;
  }>;
}

const CATALOG_TTL_MS = 1000;

/** Member ids the coordinator generates (ConsumerGroupHeartbeat v0; from v1 the client generates them, KIP-1082): a base64url UUID like Kafka's Uuid. */
const newMemberId = (): string => Buffer.from(randomUUID().replaceAll('-', ''), 'hex').toString('base64url');

export class ConsumerGroupFlow implements BridgeHost {
  /** Classic members of consumer groups (online upgrade). */
  readonly classic: ClassicBridge;

  constructor(private readonly reg: GroupRegistry, private readonly topics: () => Promise<TopicMeta[]>) {
    this.classic = new ClassicBridge(reg, this);
  }

  settings() {
    const s = this.reg.settings;
    return { assignors: s.consumerAssignors, maxSize: s.consumerMaxSize };
  }

  private cached: { at: number; topics: Promise<Map<string, TopicMeta>> } | null = null;

  /**
   * Every topic by name, listed at most once per CATALOG_TTL_MS (heartbeats of
   * all groups share it): a topic created or grown reaches the groups within
   * that time, as Kafka's coordinator sees metadata changes as they are published.
   */
  catalog(): Promise<Map<string, TopicMeta>> {
    const now = this.reg.clock.now();
    if (this.cached && now - this.cached.at < CATALOG_TTL_MS) return this.cached.topics;
    const topics = this.topics().then((all) => new Map(all.map((t) => [t.name, t])));
    this.cached = { at: now, topics };
    topics.catch(() => { if (this.cached?.topics === topics) this.cached = null; });
    return topics;
  }

  async heartbeat(groupId: string, req: HeartbeatInput): Promise<ConsumerHeartbeatResult> {
    const err = (errorCode: number, errorMessage: string | null = null): ConsumerHeartbeatResult =>
      ({ errorCode, errorMessage, memberId: null, memberEpoch: -1, assignment: null, changed: false, heartbeatIntervalMs: 0 });
    let g: Group | null;
    let topics: Map<string, TopicMeta>;
    let timings: { sessionTimeoutMs: number; heartbeatIntervalMs: number };
    try {
      timings = await this.reg.consumerTimings(groupId);
      g = await this.reg.getGroup(groupId);
      if (!g) {
        // Kafka: only a join (epoch 0) creates the group.
        if (req.memberEpoch !== 0) return err(ErrorCode.GROUP_ID_NOT_FOUND, `Consumer group ${groupId} not found.`);
        g = await this.reg.getOrCreate(groupId);
      }
      topics = await this.catalog();
    } catch (e) {
      return err(storeErrorCode(e));
    }
    if (!this.reg.alive(g)) return err(ErrorCode.NOT_COORDINATOR);
    if (g.is('Dead')) return err(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    const converted = !g.modern;
    if (!g.modern) {
      // A classic group with members converts online (group.consumer.migration.policy upgrade or bidirectional).
      if (!g.is('Empty') || g.size > 0) {
        if (req.memberEpoch !== 0 || !this.classic.upgrade(g, topics)) return err(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a consumer group.`);
      } else g.modern = new ConsumerGroup(groupId);
    }
    const cg = g.modern;
    if (!cg) return err(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a consumer group.`);
    const out = cg.heartbeat(req, topics, this.settings(), newMemberId);
    if (out.errorCode !== ErrorCode.NONE && converted && cg.groupEpoch === 0) {
      // A refused first join leaves nothing behind (Kafka writes no records for it).
      g.modern = null;
      this.reg.dropIfUnused(g);
    }
    if (out.errorCode !== ErrorCode.NONE) {
      // A fenced member is removed: it rejoins with epoch 0 (Kafka fences the member out of the group).
      if (out.errorCode === ErrorCode.FENCED_MEMBER_EPOCH && out.memberId !== null && cg.removeMember(out.memberId)) {
        this.cancel(g, out.memberId);
        this.reg.persistInBackground(g);
        this.downgradeInBackground(g);
      }
      return { ...out, heartbeatIntervalMs: 0 };
    }
    const memberId = out.memberId!;
    const m = cg.members.get(memberId);
    if (m && m.memberEpoch >= 0) {
      this.scheduleSession(g, memberId, timings.sessionTimeoutMs);
      this.scheduleRevocation(g, memberId);
    } else if (!m) {
      this.cancel(g, memberId);
    }
    if (out.changed) {
      try {
        await this.reg.saveGroup(g, this.reg.snapshot(g));
      } catch (e) {
        return err(storeErrorCode(e));
      }
    }
    // The last consumer-protocol member left a group of classic members: it becomes classic again.
    if (!m && out.memberEpoch === LEAVE_EPOCH) await this.classic.downgrade(g);
    return { ...out, heartbeatIntervalMs: m && m.memberEpoch >= 0 ? timings.heartbeatIntervalMs : 0 };
  }

  /**
   * Starts the session timers of a group loaded from the store (Kafka schedules
   * them on load too), with the broker's session timeout: each member's next
   * heartbeat restarts its timer with the group's own.
   */
  resumeSessions(g: Group): void {
    if (!g.modern) return;
    for (const [id, m] of g.modern.members) this.scheduleSession(g, id, m.classic?.sessionTimeoutMs ?? this.reg.settings.consumerSessionTimeoutMs);
  }

  cancel(g: Group, memberId: string): void {
    for (const k of [memberId, `${memberId}#revoke`, `${memberId}#join`, `${memberId}#sync`]) {
      g.modernTimers.get(k)?.();
      g.modernTimers.delete(k);
    }
  }

  private expire(g: Group, memberId: string, why: string): void {
    if (!this.reg.alive(g) || !g.modern?.members.has(memberId)) return;
    this.cancel(g, memberId);
    g.modern.removeMember(memberId);
    this.reg.logger?.info('consumer group member removed', { group: g.groupId, member: memberId, reason: why, groupEpoch: g.modern.groupEpoch });
    this.reg.persistInBackground(g);
    this.downgradeInBackground(g);
  }

  /** After a member was removed outside a request: the group may go back to classic (classic-bridge.ts). */
  private downgradeInBackground(g: Group): void {
    this.classic.downgrade(g).catch((e) => this.reg.logger?.warn('downgrading the group failed', { group: g.groupId, err: String(e) }));
  }

  scheduleSession(g: Group, memberId: string, sessionTimeoutMs: number): void {
    g.modernTimers.get(memberId)?.();
    g.modernTimers.set(memberId, this.reg.clock.schedule(sessionTimeoutMs, () => {
      g.modernTimers.delete(memberId);
      this.expire(g, memberId, 'session timeout');
    }));
  }

  /**
   * A classic member's deadline (`what`: join or sync): removed unless it
   * rejoins (after REBALANCE_IN_PROGRESS) or syncs (after its JoinGroup)
   * within `ms` (Kafka's consumer-group join and sync timeouts). `restart`:
   * replace a running one, else keep it.
   */
  classicDeadline(g: Group, memberId: string, what: 'join' | 'sync', ms: number | null, restart = false): void {
    const key = `${memberId}#${what}`;
    if (ms === null) {
      g.modernTimers.get(key)?.();
      g.modernTimers.delete(key);
      return;
    }
    if (g.modernTimers.has(key) && !restart) return;
    g.modernTimers.get(key)?.();
    g.modernTimers.set(key, this.reg.clock.schedule(Math.max(0, ms), () => {
      g.modernTimers.delete(key);
      this.expire(g, memberId, `${what} timeout`);
    }));
  }

  /** A member that does not revoke within its rebalance timeout is removed from the group (Kafka: revocation timeout). */
  private scheduleRevocation(g: Group, memberId: string): void {
    const key = `${memberId}#revoke`;
    const m = g.modern!.members.get(memberId)!;
    if (m.state !== 'UNREVOKED_PARTITIONS') {
      g.modernTimers.get(key)?.();
      g.modernTimers.delete(key);
      return;
    }
    if (g.modernTimers.has(key)) return;
    g.modernTimers.set(key, this.reg.clock.schedule(Math.max(0, m.rebalanceTimeoutMs), () => {
      g.modernTimers.delete(key);
      if (g.modern?.members.get(memberId)?.state === 'UNREVOKED_PARTITIONS') this.expire(g, memberId, 'revocation timeout');
    }));
  }

  async describe(groupId: string): Promise<DescribedConsumerGroup> {
    const base = { groupId, state: 'Dead', groupEpoch: -1, assignmentEpoch: -1, assignorName: '', members: [] };
    let g: Group | null;
    let topics: Map<string, TopicMeta>;
    try {
      g = await this.reg.getGroup(groupId);
      topics = await this.catalog();
    } catch (e) {
      return { ...base, errorCode: storeErrorCode(e), errorMessage: null };
    }
    if (!g || g.is('Dead')) return { ...base, errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${groupId} not found.` };
    if (!g.modern) return { ...base, errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${groupId} is not a consumer group.` };
    const cg = g.modern;
    const names = new Map([...topics.values()].map((t) => [t.id, t.name]));
    const named = (p: Partitions) => toWire(p).map((t) => ({ ...t, topicName: names.get(t.topicId) ?? '' }));
    return {
      groupId, errorCode: ErrorCode.NONE, errorMessage: null, state: cg.state, groupEpoch: cg.groupEpoch, assignmentEpoch: cg.assignmentEpoch,
      assignorName: cg.assignorName || (this.reg.settings.consumerAssignors[0] ?? 'uniform'),
      members: [...cg.members.values()].map((m) => ({
        memberId: m.memberId, instanceId: m.instanceId, rackId: m.rackId, memberEpoch: m.memberEpoch, clientId: m.clientId, clientHost: m.clientHost,
        subscribedTopicNames: m.subscribedTopicNames, subscribedTopicRegex: m.subscribedTopicRegex, memberType: m.classic ? 0 : 1,
        assignment: named(m.assigned), targetAssignment: named(cg.target.get(m.memberId) ?? new Map()),
      })),
    };
  }

  /**
   * OffsetCommit/TxnOffsetCommit/OffsetFetch against a consumer-protocol group
   * (Kafka's ConsumerGroup.validateOffsetCommit/validateOffsetFetch): null when
   * allowed, else the error. A member epoch below 0 with no members is an
   * admin or simple commit; otherwise the member must exist, and commit with
   * its current epoch (or the one before, whose partitions it may still be
   * committing); OffsetCommit needs v9+ (the member epoch).
   */
  static validate(cg: ConsumerGroup, memberId: string, memberEpoch: number, apiVersion: number | null): number | null {
    if (memberEpoch < 0 && cg.members.size === 0) return null;
    const m = cg.members.get(memberId);
    if (!m) return ErrorCode.UNKNOWN_MEMBER_ID;
    // A classic member commits with its generation, which is its member epoch (Kafka: ILLEGAL_GENERATION otherwise).
    if (m.classic) return memberEpoch === m.memberEpoch ? null : ErrorCode.ILLEGAL_GENERATION;
    if (apiVersion !== null && apiVersion < 9) return ErrorCode.UNSUPPORTED_VERSION;
    if (memberEpoch !== m.memberEpoch && memberEpoch !== m.previousMemberEpoch) return ErrorCode.STALE_MEMBER_EPOCH;
    return null;
  }
}
