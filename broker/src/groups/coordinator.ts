// The classic-protocol group coordinator, sans-IO: requests in, results out,
// time from an injectable Clock, state in a GroupStore. It follows Apache
// Kafka's GroupCoordinator (states Empty, PreparingRebalance,
// CompletingRebalance, Stable, Dead) including its error semantics:
// KIP-394 member ids, KIP-345 static membership, KIP-814 skip assignment,
// pending-sync expiry, initial rebalance delay, offset expiry (KIP-211).
// Assignors run in the clients; this only relays protocols and assignments.
import { randomUUID } from 'node:crypto';
import { ErrorCode, KafkaError, RunnelError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Clock, Cancel } from './clock.js';
import { subscribedTopics } from './consumer-protocol.js';
import { EMPTY, Group, Member, type GroupState, type JoinResult, type Protocol, type SyncResult } from './group.js';
import { offsetKey, parseOffsetKey, type CommittedOffset, type GroupStore, type OffsetKey, type StoredGroup } from './group-store.js';

export interface CoordinatorSettings {
  /** group.initial.rebalance.delay.ms */
  initialRebalanceDelayMs: number;
  /** group.min.session.timeout.ms / group.max.session.timeout.ms */
  minSessionTimeoutMs: number;
  maxSessionTimeoutMs: number;
  /** group.max.size */
  maxSize: number;
  /** offsets.retention.minutes, in ms */
  offsetsRetentionMs: number;
  /** offsets.retention.check.interval.ms */
  offsetsRetentionCheckIntervalMs: number;
  /** offset.metadata.max.bytes */
  offsetMetadataMaxBytes: number;
}

export const DEFAULT_SETTINGS: CoordinatorSettings = {
  initialRebalanceDelayMs: 3000,
  minSessionTimeoutMs: 6000,
  maxSessionTimeoutMs: 1_800_000,
  maxSize: 2_147_483_647,
  offsetsRetentionMs: 10080 * 60_000,
  offsetsRetentionCheckIntervalMs: 600_000,
  offsetMetadataMaxBytes: 4096,
};

/** How long a new member may wait in a rebalance before it is dropped (Kafka's NewMemberJoinTimeoutMs). */
export const NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60_000;

export interface JoinRequest {
  groupId: string;
  memberId: string;
  groupInstanceId: string | null;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  protocolType: string;
  protocols: Protocol[];
  clientId: string;
  clientHost: string;
  /** JoinGroup v4+: new dynamic members first get MEMBER_ID_REQUIRED (KIP-394). */
  requireKnownMemberId: boolean;
  /** JoinGroup v9+: a rejoining static leader may skip the assignment (KIP-814). */
  supportSkipAssignment: boolean;
}

export interface SyncRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  protocolType: string | null;
  protocolName: string | null;
  assignments: Array<{ memberId: string; assignment: Buffer }>;
}

export interface MemberRef { memberId: string; groupInstanceId: string | null }

export interface CommitPartition {
  topic: string;
  partition: number;
  offset: number;
  leaderEpoch: number;
  metadata: string | null;
  /** Explicit commit timestamp (OffsetCommit v1), else now. */
  commitTimestamp?: number;
}

export interface CommitRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  offsets: CommitPartition[];
}

export interface FetchedOffset {
  topic: string;
  partition: number;
  offset: number;
  leaderEpoch: number;
  metadata: string;
  errorCode: number;
}

export interface GroupDescription {
  groupId: string;
  state: GroupState;
  protocolType: string;
  protocolData: string;
  members: Array<{ memberId: string; groupInstanceId: string | null; clientId: string; clientHost: string; metadata: Buffer; assignment: Buffer }>;
}

export interface CoordinatorOptions {
  settings?: Partial<CoordinatorSettings>;
  logger?: Logger;
  /** Whether this broker coordinates the group; the expiry pass skips other groups. */
  isLocal?: (groupId: string) => boolean;
}

const joinError = (memberId: string, errorCode: number): JoinResult => ({
  errorCode, generationId: -1, protocolType: null, protocolName: null, leader: '', skipAssignment: false, memberId, members: [],
});

const syncError = (errorCode: number): SyncResult => ({ errorCode, protocolType: null, protocolName: null, assignment: EMPTY });

/** Storage failures surface as COORDINATOR_NOT_AVAILABLE: clients rediscover the coordinator and retry. */
function storeErrorCode(e: unknown): number {
  if (e instanceof KafkaError) return e.code;
  if (e instanceof RunnelError) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  throw e;
}

export class GroupCoordinator {
  readonly settings: CoordinatorSettings;
  private readonly groups = new Map<string, Group>();
  private readonly loading = new Map<string, Promise<Group | null>>();
  private readonly logger: Logger | undefined;
  private readonly isLocal: (groupId: string) => boolean;
  private expiryTimer: Cancel | null = null;
  private stopped = false;

  constructor(private readonly store: GroupStore, private readonly clock: Clock, opts: CoordinatorOptions = {}) {
    this.settings = { ...DEFAULT_SETTINGS, ...opts.settings };
    this.logger = opts.logger;
    this.isLocal = opts.isLocal ?? (() => true);
  }

  /** Starts the periodic offset-expiry pass. */
  start(): void {
    const tick = (): void => {
      this.expiryTimer = this.clock.schedule(this.settings.offsetsRetentionCheckIntervalMs, () => {
        this.expireOffsets().catch((e) => this.logger?.warn('offset expiry pass failed', { err: String(e) })).finally(() => { if (!this.stopped) tick(); });
      });
    };
    tick();
  }

  /** Stops timers and answers waiting JoinGroup/SyncGroup requests with NOT_COORDINATOR. */
  stop(): void {
    this.stopped = true;
    this.expiryTimer?.();
    for (const id of [...this.groups.keys()]) this.unload(id);
  }

  /** Forgets a group (its coordinator moved elsewhere); a later request loads it again from the store. */
  unload(groupId: string): void {
    const g = this.groups.get(groupId);
    if (!g) return;
    this.groups.delete(groupId);
    this.cancelTimers(g);
    for (const m of g.members.values()) {
      this.invokeJoin(m, joinError(m.memberId, ErrorCode.NOT_COORDINATOR));
      this.invokeSync(m, syncError(ErrorCode.NOT_COORDINATOR));
    }
  }

  /** Forgets every loaded group matching `pred` (e.g. all groups of a coordinator slot this broker lost). */
  unloadWhere(pred: (groupId: string) => boolean): void {
    for (const id of [...this.groups.keys()]) if (pred(id)) this.unload(id);
  }

  /** Loaded groups (for tests and metrics). */
  loadedGroup(groupId: string): Group | undefined {
    return this.groups.get(groupId);
  }

  // ------------------------------------------------------------ JoinGroup

  async join(req: JoinRequest): Promise<JoinResult> {
    if (!req.groupId) return joinError(req.memberId, ErrorCode.INVALID_GROUP_ID);
    if (req.sessionTimeoutMs < this.settings.minSessionTimeoutMs || req.sessionTimeoutMs > this.settings.maxSessionTimeoutMs) {
      return joinError(req.memberId, ErrorCode.INVALID_SESSION_TIMEOUT);
    }
    const unknown = req.memberId === '';
    let group: Group | null;
    try {
      group = unknown ? await this.getOrCreate(req.groupId) : await this.getGroup(req.groupId);
    } catch (e) {
      return joinError(req.memberId, storeErrorCode(e));
    }
    if (!group) return joinError(req.memberId, ErrorCode.UNKNOWN_MEMBER_ID);
    const g = group;
    if (!this.acceptJoiningMember(g, req.memberId)) return joinError(req.memberId, ErrorCode.GROUP_MAX_SIZE_REACHED);
    const result = new Promise<JoinResult>((resolve) => {
      if (unknown) this.joinNewMember(g, req, resolve);
      else this.joinCurrentMember(g, req, resolve);
    });
    if (g.is('PreparingRebalance')) this.tryCompleteJoin(g);
    const r = await result;
    if (r.errorCode !== ErrorCode.NONE && r.errorCode !== ErrorCode.MEMBER_ID_REQUIRED) this.dropIfUnused(g);
    return r;
  }

  private acceptJoiningMember(g: Group, memberId: string): boolean {
    const max = this.settings.maxSize;
    switch (g.state) {
      case 'Empty':
      case 'Dead':
        return true;
      case 'PreparingRebalance': {
        const m = g.members.get(memberId);
        if (m?.awaitingJoin) return true;
        let awaiting = 0;
        for (const x of g.members.values()) if (x.awaitingJoin) awaiting++;
        return awaiting < max;
      }
      default:
        return g.members.has(memberId) || g.size < max;
    }
  }

  private joinNewMember(g: Group, req: JoinRequest, resolve: (r: JoinResult) => void): void {
    if (g.is('Dead')) return resolve(joinError(req.memberId, ErrorCode.COORDINATOR_NOT_AVAILABLE));
    if (!g.supportsProtocols(req.protocolType, req.protocols)) return resolve(joinError(req.memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    const newId = `${req.groupInstanceId ?? req.clientId}-${randomUUID()}`;
    if (req.groupInstanceId !== null) return this.joinStaticMember(g, req, newId, resolve);
    if (req.requireKnownMemberId) {
      // KIP-394: hand out the id, expect the member back with it within its session timeout.
      g.pendingMembers.get(newId)?.();
      g.pendingMembers.set(newId, this.clock.schedule(req.sessionTimeoutMs, () => {
        if (!this.alive(g) || !g.pendingMembers.delete(newId)) return;
        if (g.is('PreparingRebalance')) this.tryCompleteJoin(g);
        this.dropIfUnused(g);
      }));
      return resolve(joinError(newId, ErrorCode.MEMBER_ID_REQUIRED));
    }
    this.addMemberAndRebalance(g, req, newId, resolve);
  }

  private joinStaticMember(g: Group, req: JoinRequest, newId: string, resolve: (r: JoinResult) => void): void {
    const instanceId = req.groupInstanceId!;
    const oldId = g.staticMembers.get(instanceId);
    if (oldId === undefined || !g.members.has(oldId)) return this.addMemberAndRebalance(g, req, newId, resolve);

    // A known static member rejoins with an unknown member id: it replaces its old incarnation, which is fenced.
    const currentLeader = g.leader ?? '';
    const m = g.members.get(oldId)!;
    g.members.delete(oldId);
    this.invokeJoin(m, joinError(oldId, ErrorCode.FENCED_INSTANCE_ID));
    this.invokeSync(m, syncError(ErrorCode.FENCED_INSTANCE_ID));
    m.memberId = newId;
    g.members.set(newId, m);
    if (g.leader === oldId) g.leader = newId;
    g.staticMembers.set(instanceId, newId);
    if (g.pendingSync.delete(oldId)) g.pendingSync.add(newId);
    this.scheduleSession(g, m, m.sessionTimeoutMs);
    const before = { protocols: m.protocols, rebalance: m.rebalanceTimeoutMs, session: m.sessionTimeoutMs };
    this.updateMember(m, req, resolve);

    switch (g.state) {
      case 'Stable': {
        if (g.protocolName === g.selectProtocol()) {
          // Nothing changes for the group: persist the new member id, then hand back the current generation.
          const gen = g.generation;
          this.store.saveGroup(this.snapshot(g)).then(
            () => {
              const isLeader = g.isLeader(newId);
              this.invokeJoin(m, {
                errorCode: ErrorCode.NONE, generationId: gen, protocolType: g.protocolType, protocolName: g.protocolName,
                leader: currentLeader, skipAssignment: isLeader && m.joinSupportsSkip, memberId: newId,
                members: isLeader ? g.currentMemberMetadata() : [],
              });
            },
            (e) => {
              // Revert to the old incarnation so the stored and in-memory groups agree.
              if (g.members.get(newId) === m) {
                g.members.delete(newId);
                m.memberId = oldId;
                g.members.set(oldId, m);
                if (g.leader === newId) g.leader = oldId;
                g.staticMembers.set(instanceId, oldId);
                m.protocols = before.protocols; m.rebalanceTimeoutMs = before.rebalance; m.sessionTimeoutMs = before.session;
              }
              this.invokeJoin(m, joinError(newId, storeErrorCode(e)));
            },
          );
        } else {
          this.prepareRebalance(g, `static member ${instanceId} rejoined with a protocol change`);
        }
        break;
      }
      case 'CompletingRebalance':
        // The leader may already be assigning with the old member id: rebalance again.
        this.prepareRebalance(g, `static member ${instanceId} rejoined during CompletingRebalance`);
        break;
      default:
        break; // PreparingRebalance: the member simply takes part in the running rebalance.
    }
  }

  private joinCurrentMember(g: Group, req: JoinRequest, resolve: (r: JoinResult) => void): void {
    const id = req.memberId;
    if (g.is('Dead')) return resolve(joinError(id, ErrorCode.COORDINATOR_NOT_AVAILABLE));
    if (!g.supportsProtocols(req.protocolType, req.protocols)) return resolve(joinError(id, ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    if (g.pendingMembers.has(id)) {
      if (req.groupInstanceId !== null) return resolve(joinError(id, ErrorCode.UNKNOWN_MEMBER_ID));
      return this.addMemberAndRebalance(g, req, id, resolve);
    }
    const err = this.validateMember(g, id, req.groupInstanceId);
    if (err !== null) return resolve(joinError(id, err));
    const m = g.members.get(id)!;
    switch (g.state) {
      case 'PreparingRebalance':
        this.updateMember(m, req, resolve);
        return;
      case 'CompletingRebalance':
        // Same metadata: the member probably missed the JoinGroup response; answer with the current generation.
        if (m.matches(req.protocols)) return resolve(this.currentGeneration(g, m));
        this.updateMember(m, req, resolve);
        this.prepareRebalance(g, `member ${id} rejoined with new metadata`);
        return;
      case 'Stable':
        // The leader rejoining, or any member with new metadata, starts a rebalance.
        if (g.isLeader(id) || !m.matches(req.protocols)) {
          this.updateMember(m, req, resolve);
          this.prepareRebalance(g, `member ${id} rejoined`);
          return;
        }
        return resolve(this.currentGeneration(g, m));
      default:
        return resolve(joinError(id, ErrorCode.UNKNOWN_MEMBER_ID));
    }
  }

  private currentGeneration(g: Group, m: Member): JoinResult {
    return {
      errorCode: ErrorCode.NONE, generationId: g.generation, protocolType: g.protocolType, protocolName: g.protocolName,
      leader: g.leader ?? '', skipAssignment: false, memberId: m.memberId,
      members: g.isLeader(m.memberId) ? g.currentMemberMetadata() : [],
    };
  }

  private updateMember(m: Member, req: JoinRequest, resolve: (r: JoinResult) => void): void {
    m.protocols = req.protocols;
    m.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
    m.sessionTimeoutMs = req.sessionTimeoutMs;
    // A JoinGroup still waiting from an earlier attempt must be answered, or its connection stalls.
    this.invokeJoin(m, joinError(m.memberId, ErrorCode.REBALANCE_IN_PROGRESS));
    m.joinWaiter = resolve;
    m.joinSupportsSkip = req.supportSkipAssignment;
  }

  private addMemberAndRebalance(g: Group, req: JoinRequest, memberId: string, resolve: (r: JoinResult) => void): void {
    const m = new Member(memberId, req.groupInstanceId, req.clientId, req.clientHost, req.sessionTimeoutMs, req.rebalanceTimeoutMs, req.protocolType, req.protocols);
    m.isNew = true;
    m.joinWaiter = resolve;
    m.joinSupportsSkip = req.supportSkipAssignment;
    if (g.is('PreparingRebalance') && g.generation === 0) g.newMemberAdded = true;
    g.pendingMembers.get(memberId)?.();
    g.pendingMembers.delete(memberId);
    g.add(m);
    // New members cannot heartbeat yet; a JoinGroup that waits too long is dropped (the client retries).
    this.scheduleSession(g, m, NEW_MEMBER_JOIN_TIMEOUT_MS);
    this.maybePrepareRebalance(g, `new member ${memberId} joined`);
  }

  private maybePrepareRebalance(g: Group, reason: string): void {
    if (g.is('Stable') || g.is('CompletingRebalance') || g.is('Empty')) this.prepareRebalance(g, reason);
  }

  private prepareRebalance(g: Group, reason: string): void {
    if (g.is('CompletingRebalance')) this.resetAndPropagateAssignmentError(g, ErrorCode.REBALANCE_IN_PROGRESS);
    this.cancelSyncTimer(g);
    const initial = g.is('Empty');
    g.joinTimer?.();
    g.joinTimer = null;
    g.transition('PreparingRebalance', this.clock.now());
    this.logger?.info('preparing rebalance', { group: g.groupId, generation: g.generation, members: g.size, reason });
    if (initial) {
      const delay = this.settings.initialRebalanceDelayMs;
      g.initialJoin = { remainingMs: Math.max(g.rebalanceTimeoutMs() - delay, 0) };
      g.joinTimer = this.clock.schedule(delay, () => this.onInitialDelay(g));
    } else {
      g.initialJoin = null;
      g.joinTimer = this.clock.schedule(g.rebalanceTimeoutMs(), () => this.completeJoin(g));
      this.tryCompleteJoin(g);
    }
  }

  /** group.initial.rebalance.delay.ms: keep waiting while new members arrive, up to the rebalance timeout. */
  private onInitialDelay(g: Group): void {
    g.joinTimer = null;
    if (!this.alive(g) || !g.is('PreparingRebalance') || !g.initialJoin) return;
    const remaining = g.initialJoin.remainingMs;
    if (g.newMemberAdded && remaining !== 0) {
      g.newMemberAdded = false;
      const delay = Math.min(this.settings.initialRebalanceDelayMs, remaining);
      g.initialJoin = { remainingMs: Math.max(remaining - this.settings.initialRebalanceDelayMs, 0) };
      g.joinTimer = this.clock.schedule(delay, () => this.onInitialDelay(g));
      return;
    }
    this.completeJoin(g);
  }

  private tryCompleteJoin(g: Group): void {
    if (g.is('PreparingRebalance') && !g.initialJoin && g.allMembersJoined()) this.completeJoin(g);
  }

  private completeJoin(g: Group): void {
    if (!this.alive(g) || !g.is('PreparingRebalance')) return;
    g.joinTimer?.();
    g.joinTimer = null;
    g.initialJoin = null;
    g.newMemberAdded = false;
    // Dynamic members that did not rejoin in time are out; static members stay until their session expires.
    for (const m of [...g.members.values()]) {
      if (!m.awaitingJoin && m.groupInstanceId === null) {
        m.sessionTimer?.();
        g.remove(m.memberId);
        this.invokeSync(m, syncError(ErrorCode.UNKNOWN_MEMBER_ID));
      }
    }
    if (!this.electJoinedLeader(g) && g.size > 0) {
      // Nobody rejoined (only absent static members are left): wait another rebalance timeout.
      g.joinTimer = this.clock.schedule(g.rebalanceTimeoutMs(), () => this.completeJoin(g));
      return;
    }
    const now = this.clock.now();
    g.generation++;
    if (g.size > 0) {
      g.protocolName = g.selectProtocol();
      g.subscribed = this.computeSubscribed(g);
      g.transition('CompletingRebalance', now);
    } else {
      g.protocolName = null;
      g.subscribed = null;
      g.transition('Empty', now);
    }
    if (g.is('Empty')) {
      this.logger?.info('group is empty', { group: g.groupId, generation: g.generation });
      this.persistInBackground(g);
      return;
    }
    this.logger?.info('rebalance completed join', { group: g.groupId, generation: g.generation, members: g.size, protocol: g.protocolName });
    const members = g.currentMemberMetadata();
    for (const m of g.members.values()) {
      const isLeader = g.isLeader(m.memberId);
      this.invokeJoin(m, {
        errorCode: ErrorCode.NONE, generationId: g.generation, protocolType: g.protocolType, protocolName: g.protocolName,
        leader: g.leader ?? '', skipAssignment: false, memberId: m.memberId, members: isLeader ? members : [],
      });
      this.scheduleSession(g, m, m.sessionTimeoutMs);
      m.isNew = false;
      g.pendingSync.add(m.memberId);
    }
    const gen = g.generation;
    g.syncTimer = this.clock.schedule(g.rebalanceTimeoutMs(), () => this.expirePendingSync(g, gen));
  }

  /** If the leader did not rejoin, any member that did becomes leader. False when nobody rejoined. */
  private electJoinedLeader(g: Group): boolean {
    if (g.leader === null) return false;
    if (g.members.get(g.leader)?.awaitingJoin) return true;
    for (const m of g.members.values()) {
      if (m.awaitingJoin) {
        g.leader = m.memberId;
        return true;
      }
    }
    return false;
  }

  private computeSubscribed(g: Group): Set<string> | null {
    if (g.protocolType !== 'consumer') return null;
    const out = new Set<string>();
    for (const m of g.members.values()) {
      const topics = subscribedTopics(m.metadataFor(g.protocolName));
      if (topics === null) return null;
      for (const t of topics) out.add(t);
    }
    return out;
  }

  /** Members that never sent SyncGroup within the rebalance timeout are removed and the group rebalances. */
  private expirePendingSync(g: Group, generation: number): void {
    g.syncTimer = null;
    if (!this.alive(g) || g.generation !== generation) return;
    if (!(g.is('CompletingRebalance') || g.is('Stable')) || g.pendingSync.size === 0) return;
    const late = [...g.pendingSync];
    this.logger?.info('members failed to sync', { group: g.groupId, generation, members: late });
    for (const id of late) {
      const m = g.members.get(id);
      if (!m) continue;
      m.sessionTimer?.();
      this.invokeJoin(m, joinError(id, ErrorCode.UNKNOWN_MEMBER_ID));
      g.remove(id);
    }
    this.prepareRebalance(g, 'pending members did not sync');
  }

  // ------------------------------------------------------------ SyncGroup

  async sync(req: SyncRequest): Promise<SyncResult> {
    if (!req.groupId) return syncError(ErrorCode.INVALID_GROUP_ID);
    let g: Group | null;
    try {
      g = await this.getGroup(req.groupId);
    } catch (e) {
      return syncError(storeErrorCode(e));
    }
    if (!g) return syncError(ErrorCode.UNKNOWN_MEMBER_ID);
    if (g.is('Dead')) return syncError(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    const err = this.validateMember(g, req.memberId, req.groupInstanceId);
    if (err !== null) return syncError(err);
    if (req.generationId !== g.generation) return syncError(ErrorCode.ILLEGAL_GENERATION);
    if (req.protocolType !== null && req.protocolType !== g.protocolType) return syncError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    if (req.protocolName !== null && req.protocolName !== g.protocolName) return syncError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    const m = g.members.get(req.memberId)!;
    switch (g.state) {
      case 'Empty':
        return syncError(ErrorCode.UNKNOWN_MEMBER_ID);
      case 'PreparingRebalance':
        return syncError(ErrorCode.REBALANCE_IN_PROGRESS);
      case 'Stable':
        this.removePendingSync(g, m.memberId);
        this.scheduleSession(g, m, m.sessionTimeoutMs);
        return { errorCode: ErrorCode.NONE, protocolType: g.protocolType, protocolName: g.protocolName, assignment: m.assignment };
      default:
        break;
    }
    // CompletingRebalance: wait for the leader's assignment.
    const group = g;
    return new Promise<SyncResult>((resolve) => {
      this.invokeSync(m, syncError(ErrorCode.REBALANCE_IN_PROGRESS));
      m.syncWaiter = resolve;
      this.removePendingSync(group, m.memberId);
      if (!group.isLeader(m.memberId)) return;
      const assignment = new Map<string, Buffer>();
      for (const a of req.assignments) assignment.set(a.memberId, a.assignment);
      const gen = group.generation;
      const still = (): boolean => this.alive(group) && group.is('CompletingRebalance') && group.generation === gen;
      this.store.saveGroup(this.snapshot(group, assignment)).then(
        () => {
          if (!still()) return;
          for (const x of group.members.values()) {
            x.assignment = assignment.get(x.memberId) ?? EMPTY;
            this.invokeSync(x, { errorCode: ErrorCode.NONE, protocolType: group.protocolType, protocolName: group.protocolName, assignment: x.assignment });
            this.scheduleSession(group, x, x.sessionTimeoutMs);
          }
          group.transition('Stable', this.clock.now());
          this.logger?.info('group stable', { group: group.groupId, generation: gen, members: group.size });
        },
        (e) => {
          if (!still()) return;
          this.logger?.warn('storing group assignment failed', { group: group.groupId, err: String(e) });
          this.resetAndPropagateAssignmentError(group, storeErrorCode(e));
          this.maybePrepareRebalance(group, 'storing the assignment failed');
        },
      );
    });
  }

  private removePendingSync(g: Group, memberId: string): void {
    g.pendingSync.delete(memberId);
    if (g.pendingSync.size === 0) this.cancelSyncTimer(g);
  }

  private resetAndPropagateAssignmentError(g: Group, errorCode: number): void {
    for (const m of g.members.values()) {
      m.assignment = EMPTY;
      this.invokeSync(m, syncError(errorCode));
    }
  }

  // ------------------------------------------------------------ Heartbeat / LeaveGroup

  async heartbeat(groupId: string, generationId: number, memberId: string, groupInstanceId: string | null): Promise<number> {
    if (!groupId) return ErrorCode.INVALID_GROUP_ID;
    let g: Group | null;
    try {
      g = await this.getGroup(groupId);
    } catch (e) {
      return storeErrorCode(e);
    }
    if (!g) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (g.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    const err = this.validateMember(g, memberId, groupInstanceId);
    if (err !== null) return err;
    if (generationId !== g.generation) return ErrorCode.ILLEGAL_GENERATION;
    const m = g.members.get(memberId)!;
    switch (g.state) {
      case 'Empty':
        return ErrorCode.UNKNOWN_MEMBER_ID;
      case 'PreparingRebalance':
        this.scheduleSession(g, m, m.sessionTimeoutMs);
        return ErrorCode.REBALANCE_IN_PROGRESS;
      default:
        this.scheduleSession(g, m, m.sessionTimeoutMs);
        return ErrorCode.NONE;
    }
  }

  async leave(groupId: string, members: MemberRef[]): Promise<{ errorCode: number; members: Array<MemberRef & { errorCode: number }> }> {
    if (!groupId) return { errorCode: ErrorCode.INVALID_GROUP_ID, members: [] };
    let g: Group | null;
    try {
      g = await this.getGroup(groupId);
    } catch (e) {
      return { errorCode: storeErrorCode(e), members: [] };
    }
    if (!g) return { errorCode: ErrorCode.NONE, members: members.map((x) => ({ ...x, errorCode: ErrorCode.UNKNOWN_MEMBER_ID })) };
    if (g.is('Dead')) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] };
    const group = g;
    const out = members.map((x) => {
      let code: number = ErrorCode.NONE;
      if (x.memberId === '') {
        // Administrative removal of a static member by its group.instance.id.
        const id = x.groupInstanceId === null ? undefined : group.staticMembers.get(x.groupInstanceId);
        if (id === undefined) code = ErrorCode.UNKNOWN_MEMBER_ID;
        else this.removeMemberAndUpdateGroup(group, group.members.get(id)!, 'removed by group.instance.id');
      } else if (group.pendingMembers.has(x.memberId)) {
        group.pendingMembers.get(x.memberId)!();
        group.pendingMembers.delete(x.memberId);
        if (group.is('PreparingRebalance')) this.tryCompleteJoin(group);
      } else {
        const err = this.validateMember(group, x.memberId, x.groupInstanceId);
        if (err !== null) code = err;
        else this.removeMemberAndUpdateGroup(group, group.members.get(x.memberId)!, 'left the group');
      }
      return { ...x, errorCode: code };
    });
    return { errorCode: ErrorCode.NONE, members: out };
  }

  private removeMemberAndUpdateGroup(g: Group, m: Member, reason: string): void {
    this.logger?.info('member removed', { group: g.groupId, member: m.memberId, reason });
    this.invokeJoin(m, joinError('', ErrorCode.UNKNOWN_MEMBER_ID));
    this.invokeSync(m, syncError(ErrorCode.UNKNOWN_MEMBER_ID));
    m.sessionTimer?.();
    m.sessionTimer = null;
    g.remove(m.memberId);
    if (g.is('Stable') || g.is('CompletingRebalance')) this.maybePrepareRebalance(g, `member ${m.memberId} ${reason}`);
    else if (g.is('PreparingRebalance')) this.tryCompleteJoin(g);
  }

  private scheduleSession(g: Group, m: Member, timeoutMs: number): void {
    m.sessionTimer?.();
    m.sessionTimer = this.clock.schedule(timeoutMs, () => {
      m.sessionTimer = null;
      if (!this.alive(g) || g.members.get(m.memberId) !== m) return;
      // A member blocked in JoinGroup (once it belongs to a generation) or SyncGroup is alive.
      if (m.awaitingSync || (m.awaitingJoin && !m.isNew)) {
        this.scheduleSession(g, m, m.sessionTimeoutMs);
        return;
      }
      this.removeMemberAndUpdateGroup(g, m, m.isNew ? 'did not complete joining in time' : 'session timed out');
    });
  }

  /** Kafka's validateCurrentMember: a group.instance.id must map to this member id; the member must exist. */
  private validateMember(g: Group, memberId: string, groupInstanceId: string | null): number | null {
    if (groupInstanceId !== null) {
      const current = g.staticMembers.get(groupInstanceId);
      if (current === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
      if (current !== memberId) return ErrorCode.FENCED_INSTANCE_ID;
      return null;
    }
    return g.members.has(memberId) ? null : ErrorCode.UNKNOWN_MEMBER_ID;
  }

  // ------------------------------------------------------------ offsets

  /** One error code per requested partition, in request order. */
  async commitOffsets(req: CommitRequest): Promise<number[]> {
    const all = (code: number): number[] => req.offsets.map(() => code);
    let g: Group | null;
    try {
      g = await this.getGroup(req.groupId);
      if (!g) {
        // No group: only a commit outside group management (generation < 0) may create one.
        if (req.generationId >= 0) return all(ErrorCode.ILLEGAL_GENERATION);
        g = await this.getOrCreate(req.groupId);
      }
    } catch (e) {
      return all(storeErrorCode(e));
    }
    const err = this.validateCommit(g, req);
    if (err !== null) return all(err);
    if (g.is('CompletingRebalance')) return all(ErrorCode.REBALANCE_IN_PROGRESS);
    const m = g.members.get(req.memberId);
    if (m) this.scheduleSession(g, m, m.sessionTimeoutMs);

    const now = this.clock.now();
    const codes = all(ErrorCode.NONE);
    const toStore = new Map<OffsetKey, CommittedOffset>();
    req.offsets.forEach((p, i) => {
      const metadata = p.metadata ?? '';
      if (metadata.length > this.settings.offsetMetadataMaxBytes) {
        codes[i] = ErrorCode.OFFSET_METADATA_TOO_LARGE;
        return;
      }
      const ts = p.commitTimestamp !== undefined && p.commitTimestamp >= 0 ? p.commitTimestamp : now;
      toStore.set(offsetKey(p.topic, p.partition), { offset: p.offset, leaderEpoch: p.leaderEpoch, metadata, commitTimestamp: ts });
    });
    if (toStore.size === 0) return codes;
    try {
      await this.store.commitOffsets(req.groupId, toStore);
    } catch (e) {
      const code = storeErrorCode(e);
      this.dropIfUnused(g);
      return codes.map((c) => (c === ErrorCode.NONE ? code : c));
    }
    if (this.alive(g)) for (const [k, v] of toStore) g.offsets.set(k, v);
    return codes;
  }

  private validateCommit(g: Group, req: CommitRequest): number | null {
    if (g.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (req.generationId >= 0 || req.memberId !== '' || req.groupInstanceId !== null) {
      const err = this.validateMember(g, req.memberId, req.groupInstanceId);
      if (err !== null) return err;
      return req.generationId !== g.generation ? ErrorCode.ILLEGAL_GENERATION : null;
    }
    // Outside group management only while nobody is a member.
    return g.is('Empty') ? null : ErrorCode.UNKNOWN_MEMBER_ID;
  }

  /** Committed offsets of the requested partitions (all committed ones when null). */
  async fetchOffsets(groupId: string, partitions: Array<{ topic: string; partition: number }> | null): Promise<FetchedOffset[]> {
    const g = await this.getGroup(groupId);
    const none = (p: { topic: string; partition: number }): FetchedOffset => ({ ...p, offset: -1, leaderEpoch: -1, metadata: '', errorCode: ErrorCode.NONE });
    if (!g || g.is('Dead')) return (partitions ?? []).map(none);
    const wanted = partitions ?? [...g.offsets.keys()].map(parseOffsetKey);
    return wanted.map((p) => {
      const o = g.offsets.get(offsetKey(p.topic, p.partition));
      return o ? { ...p, offset: o.offset, leaderEpoch: o.leaderEpoch, metadata: o.metadata, errorCode: ErrorCode.NONE } : none(p);
    });
  }

  /** OffsetDelete: a group error, or one error per requested partition. */
  async deleteOffsets(groupId: string, partitions: Array<{ topic: string; partition: number }>): Promise<{ errorCode: number; partitions: number[] }> {
    const g = await this.getGroup(groupId);
    if (!g || g.is('Dead')) return { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, partitions: [] };
    let codes: number[];
    if (g.is('Empty')) codes = partitions.map(() => ErrorCode.NONE);
    else if (g.protocolType === 'consumer') codes = partitions.map((p) => (g.isSubscribedTo(p.topic) ? ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC : ErrorCode.NONE));
    else return { errorCode: ErrorCode.NON_EMPTY_GROUP, partitions: [] };
    const keys = partitions.filter((p, i) => codes[i] === ErrorCode.NONE && g.offsets.has(offsetKey(p.topic, p.partition))).map((p) => offsetKey(p.topic, p.partition));
    if (keys.length > 0) {
      try {
        await this.store.deleteOffsets(groupId, keys);
      } catch (e) {
        return { errorCode: storeErrorCode(e), partitions: [] };
      }
      for (const k of keys) g.offsets.delete(k);
    }
    return { errorCode: ErrorCode.NONE, partitions: codes };
  }

  /**
   * Offset expiry (offsets.retention.minutes): offsets of an empty group
   * expire once it has been empty that long; offsets of simple (member-less)
   * groups and of topics a stable consumer group no longer subscribes to
   * expire that long after their commit. Empty groups without offsets are
   * deleted. Returns the number of expired offsets.
   */
  async expireOffsets(): Promise<number> {
    const ids = new Set<string>(this.groups.keys());
    for (const id of await this.store.listGroupIds()) ids.add(id);
    let expiredTotal = 0;
    for (const id of ids) {
      if (!this.isLocal(id)) continue;
      const g = await this.getGroup(id);
      if (!g || g.is('Dead')) continue;
      const now = this.clock.now();
      const retention = this.settings.offsetsRetentionMs;
      let base: ((k: OffsetKey, o: CommittedOffset) => number | null) | null = null;
      if (g.protocolType !== null && g.is('Empty')) base = () => g.stateTimestamp;
      else if (g.protocolType === null) base = (_k, o) => o.commitTimestamp;
      else if (g.protocolType === 'consumer' && g.subscribed !== null && g.is('Stable')) {
        const subscribed = g.subscribed;
        base = (k, o) => (subscribed.has(parseOffsetKey(k).topic) ? null : o.commitTimestamp);
      }
      const expired: OffsetKey[] = [];
      if (base) {
        for (const [k, o] of g.offsets) {
          const b = base(k, o);
          if (b !== null && now - b >= retention) expired.push(k);
        }
      }
      if (expired.length > 0) {
        await this.store.deleteOffsets(id, expired);
        for (const k of expired) g.offsets.delete(k);
        expiredTotal += expired.length;
        this.logger?.info('expired offsets', { group: id, count: expired.length });
      }
      if (g.is('Empty') && g.offsets.size === 0 && g.size === 0 && g.pendingMembers.size === 0) {
        g.transition('Dead', now);
        await this.store.deleteGroup(id);
        if (this.groups.get(id) === g) this.groups.delete(id);
        this.cancelTimers(g);
      }
    }
    return expiredTotal;
  }

  // ------------------------------------------------------------ admin

  async listGroups(statesFilter: string[] = []): Promise<Array<{ groupId: string; protocolType: string; state: GroupState }>> {
    const ids = new Set<string>(this.groups.keys());
    for (const id of await this.store.listGroupIds()) ids.add(id);
    const wanted = new Set(statesFilter.map((s) => s.toLowerCase()));
    const local = [...ids].filter((id) => this.isLocal(id));
    const groups = await Promise.all(local.map((id) => this.getGroup(id)));
    const out: Array<{ groupId: string; protocolType: string; state: GroupState }> = [];
    for (const g of groups) {
      if (!g || g.is('Dead')) continue;
      if (wanted.size > 0 && !wanted.has(g.state.toLowerCase())) continue;
      out.push({ groupId: g.groupId, protocolType: g.protocolType ?? '', state: g.state });
    }
    return out.sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0));
  }

  async describeGroup(groupId: string): Promise<GroupDescription> {
    const g = await this.getGroup(groupId);
    if (!g) return { groupId, state: 'Dead', protocolType: '', protocolData: '', members: [] };
    const stable = g.is('Stable');
    return {
      groupId,
      state: g.state,
      protocolType: g.protocolType ?? '',
      protocolData: stable ? g.protocolName ?? '' : '',
      members: [...g.members.values()].map((m) => ({
        memberId: m.memberId, groupInstanceId: m.groupInstanceId, clientId: m.clientId, clientHost: m.clientHost,
        metadata: stable ? m.metadataFor(g.protocolName) : EMPTY,
        assignment: stable ? m.assignment : EMPTY,
      })),
    };
  }

  /** DeleteGroups: only empty groups go, with their offsets. */
  async deleteGroup(groupId: string): Promise<number> {
    const g = await this.getGroup(groupId);
    if (!g || g.is('Dead')) return ErrorCode.GROUP_ID_NOT_FOUND;
    if (!g.is('Empty')) return ErrorCode.NON_EMPTY_GROUP;
    const since = g.stateTimestamp;
    g.transition('Dead', this.clock.now());
    try {
      await this.store.deleteGroup(groupId);
    } catch (e) {
      g.transition('Empty', since);
      return storeErrorCode(e);
    }
    this.cancelTimers(g);
    if (this.groups.get(groupId) === g) this.groups.delete(groupId);
    return ErrorCode.NONE;
  }

  // ------------------------------------------------------------ loading and persistence

  private alive(g: Group): boolean {
    return this.groups.get(g.groupId) === g;
  }

  private async getGroup(groupId: string): Promise<Group | null> {
    const g = this.groups.get(groupId);
    if (g) return g;
    let p = this.loading.get(groupId);
    if (!p) {
      p = this.load(groupId).finally(() => this.loading.delete(groupId));
      this.loading.set(groupId, p);
    }
    return p;
  }

  private async getOrCreate(groupId: string): Promise<Group> {
    const g = await this.getGroup(groupId);
    if (g) return g;
    let created = this.groups.get(groupId);
    if (!created) {
      created = new Group(groupId, this.clock.now());
      this.groups.set(groupId, created);
    }
    return created;
  }

  private async load(groupId: string): Promise<Group | null> {
    const loaded = await this.store.load(groupId);
    const existing = this.groups.get(groupId);
    if (existing) return existing;
    if (this.stopped || (!loaded.group && loaded.offsets.size === 0)) return null;
    const s = loaded.group;
    const g = new Group(groupId, s?.stateTimestamp ?? this.clock.now());
    for (const [k, v] of loaded.offsets) g.offsets.set(k, v);
    if (s) {
      g.protocolType = s.protocolType;
      g.protocolName = s.protocolName;
      g.generation = s.generation;
      for (const sm of s.members) {
        const m = new Member(sm.memberId, sm.groupInstanceId, sm.clientId, sm.clientHost, sm.sessionTimeoutMs, sm.rebalanceTimeoutMs,
          s.protocolType ?? '', s.protocolName !== null ? [{ name: s.protocolName, metadata: sm.metadata }] : []);
        m.assignment = sm.assignment;
        g.add(m);
      }
      g.protocolType = s.protocolType;
      if (s.leader !== null && g.members.has(s.leader)) g.leader = s.leader;
      g.state = g.size > 0 ? 'Stable' : 'Empty';
      g.subscribed = this.computeSubscribed(g);
    }
    this.groups.set(groupId, g);
    for (const m of g.members.values()) this.scheduleSession(g, m, m.sessionTimeoutMs);
    this.logger?.info('group loaded', { group: groupId, state: g.state, generation: g.generation, members: g.size, offsets: g.offsets.size });
    return g;
  }

  private snapshot(g: Group, assignment?: Map<string, Buffer>): StoredGroup {
    return {
      groupId: g.groupId,
      protocolType: g.protocolType,
      protocolName: g.protocolName,
      generation: g.generation,
      leader: g.leader,
      stateTimestamp: g.stateTimestamp,
      members: [...g.members.values()].map((m) => ({
        memberId: m.memberId, groupInstanceId: m.groupInstanceId, clientId: m.clientId, clientHost: m.clientHost,
        sessionTimeoutMs: m.sessionTimeoutMs, rebalanceTimeoutMs: m.rebalanceTimeoutMs,
        metadata: m.metadataFor(g.protocolName),
        assignment: assignment ? assignment.get(m.memberId) ?? EMPTY : m.assignment,
      })),
    };
  }

  private persistInBackground(g: Group): void {
    this.store.saveGroup(this.snapshot(g)).catch((e) => this.logger?.warn('storing group failed', { group: g.groupId, err: String(e) }));
  }

  /** A group created by a request that then failed, with nothing worth keeping, is forgotten. */
  private dropIfUnused(g: Group): void {
    if (this.alive(g) && g.is('Empty') && g.generation === 0 && g.size === 0 && g.pendingMembers.size === 0 && g.offsets.size === 0 && g.protocolType === null) {
      this.groups.delete(g.groupId);
      this.cancelTimers(g);
    }
  }

  private cancelSyncTimer(g: Group): void {
    g.syncTimer?.();
    g.syncTimer = null;
    g.pendingSync.clear();
  }

  private cancelTimers(g: Group): void {
    g.joinTimer?.();
    g.joinTimer = null;
    g.syncTimer?.();
    g.syncTimer = null;
    for (const c of g.pendingMembers.values()) c();
    g.pendingMembers.clear();
    for (const m of g.members.values()) {
      m.sessionTimer?.();
      m.sessionTimer = null;
    }
  }

  private invokeJoin(m: Member, r: JoinResult): void {
    const w = m.joinWaiter;
    if (!w) return;
    m.joinWaiter = null;
    w(r);
  }

  private invokeSync(m: Member, r: SyncResult): void {
    const w = m.syncWaiter;
    if (!w) return;
    m.syncWaiter = null;
    w(r);
  }
}
