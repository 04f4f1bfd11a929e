// The in-memory model of one classic consumer group: members, their protocols
// and assignments, generation and state. Data plus the rules that read only
// the group (member validation, subscribed topics, protocol selection); every
// state change goes through transition(), which asserts Kafka's table
// (group-state.ts). The request flows live in coordinator.ts and the modules
// it composes.
import { ErrorCode } from '../../../common/errors.js';
import type { Cancel } from '../../../common/clock.js';
import { subscribedTopics } from './consumer-protocol.js';
import type { CommittedOffset, OffsetKey } from './group-store.js';
import type { ConsumerGroup } from './consumer/consumer-group.js';
import { assertValidTransition, IllegalGroupStateError, type GroupState } from './group-state.js';

export interface Protocol { name: string; metadata: Buffer }

export interface JoinResult {
  errorCode: number;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leader: string;
  skipAssignment: boolean;
  memberId: string;
  members: Array<{ memberId: string; groupInstanceId: string | null; metadata: Buffer }>;
}

export interface SyncResult {
  errorCode: number;
  protocolType: string | null;
  protocolName: string | null;
  assignment: Buffer;
}

export const EMPTY = Buffer.alloc(0);

export class Member {
  assignment: Buffer = EMPTY;
  joinWaiter: ((r: JoinResult) => void) | null = null;
  /** Whether the waiting JoinGroup may carry SkipAssignment (v9+). */
  joinSupportsSkip = false;
  syncWaiter: ((r: SyncResult) => void) | null = null;
  sessionTimer: Cancel | null = null;
  /** Joined during the current rebalance and not yet part of a generation. */
  isNew = false;

  constructor(
    public memberId: string,
    public groupInstanceId: string | null,
    public clientId: string,
    public clientHost: string,
    public sessionTimeoutMs: number,
    public rebalanceTimeoutMs: number,
    public protocolType: string,
    public protocols: Protocol[],
  ) {}

  get awaitingJoin(): boolean { return this.joinWaiter !== null; }
  get awaitingSync(): boolean { return this.syncWaiter !== null; }

  metadataFor(protocol: string | null): Buffer {
    return this.protocols.find((p) => p.name === protocol)?.metadata ?? EMPTY;
  }

  /** Same protocols, in the same order, with the same metadata. */
  matches(protocols: Protocol[]): boolean {
    if (protocols.length !== this.protocols.length) return false;
    return protocols.every((p, i) => p.name === this.protocols[i]!.name && p.metadata.equals(this.protocols[i]!.metadata));
  }

  /** The first of the member's protocols (its preference order) among the candidates. */
  vote(candidates: Set<string>): string {
    return this.protocols.find((p) => candidates.has(p.name))!.name;
  }
}

export class Group {
  private current: GroupState;
  /** When the group entered its current state (Kafka's currentStateTimestamp). */
  stateTimestamp: number;
  protocolType: string | null = null;
  protocolName: string | null = null;
  generation = 0;
  leader: string | null = null;
  readonly members = new Map<string, Member>();
  /** group.instance.id -> member id */
  readonly staticMembers = new Map<string, string>();
  /** Member ids handed out with MEMBER_ID_REQUIRED, waiting for the member to rejoin with them. */
  readonly pendingMembers = new Map<string, Cancel>();
  /** Members of the current generation that have not sent SyncGroup yet. */
  readonly pendingSync = new Set<string>();
  readonly offsets = new Map<OffsetKey, CommittedOffset>();
  /** The running delayed join (rebalance) or pending-sync timer. */
  joinTimer: Cancel | null = null;
  /** Set while the initial (Empty -> PreparingRebalance) delay runs. */
  initialJoin: { remainingMs: number } | null = null;
  newMemberAdded = false;
  syncTimer: Cancel | null = null;
  /** Topics the members subscribe to (consumer protocol), null if unknown. */
  subscribed: Set<string> | null = null;
  /** Coordinator epoch under which this broker loaded or created the group; every store write carries it. */
  coordinatorEpoch = 0;
  /**
   * Set when this is a consumer-protocol group (KIP-848, consumer/consumer-group.ts):
   * its members live there and the classic fields stay empty (state Empty).
   */
  modern: ConsumerGroup | null = null;
  /** Session timers of the consumer-protocol members. */
  readonly modernTimers = new Map<string, Cancel>();

  /** A new group starts Empty; one loaded from the store starts Empty or Stable (Kafka's loadGroup initialState). */
  constructor(readonly groupId: string, now: number, initialState: 'Empty' | 'Stable' = 'Empty') {
    this.current = initialState;
    this.stateTimestamp = now;
  }

  get state(): GroupState { return this.current; }

  is(s: GroupState): boolean { return this.current === s; }

  /** Moves the group to `to` at `now`; throws IllegalGroupStateError when Kafka's table does not allow it. */
  transition(to: GroupState, now: number): void {
    assertValidTransition(this.groupId, this.current, to);
    this.current = to;
    this.stateTimestamp = now;
  }

  /**
   * Runnel only, outside Kafka's table (where Dead is final): DeleteGroups
   * moves an Empty group to Dead before the store delete and, when that
   * delete fails, back to Empty with the state timestamp it had.
   */
  reviveAfterFailedDelete(since: number): void {
    if (this.current !== 'Dead') throw new IllegalGroupStateError(this.groupId, this.current, 'Empty', ['Dead']);
    this.current = 'Empty';
    this.stateTimestamp = since;
  }

  get size(): number { return this.members.size; }

  isLeader(memberId: string): boolean { return this.leader === memberId; }

  /** Kafka's validateCurrentMember: a group.instance.id must map to this member id; the member must exist. Null when valid. */
  validateMember(memberId: string, groupInstanceId: string | null): number | null {
    if (groupInstanceId !== null) {
      const current = this.staticMembers.get(groupInstanceId);
      if (current === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
      if (current !== memberId) return ErrorCode.FENCED_INSTANCE_ID;
      return null;
    }
    return this.members.has(memberId) ? null : ErrorCode.UNKNOWN_MEMBER_ID;
  }

  /** Topics the members of a consumer group subscribe to; null when any member's subscription is unknown. */
  computeSubscribedTopics(): Set<string> | null {
    if (this.protocolType !== 'consumer') return null;
    const out = new Set<string>();
    for (const m of this.members.values()) {
      const topics = subscribedTopics(m.metadataFor(this.protocolName));
      if (topics === null) return null;
      for (const t of topics) out.add(t);
    }
    return out;
  }

  add(m: Member): void {
    if (this.members.size === 0) this.protocolType = m.protocolType;
    this.members.set(m.memberId, m);
    if (m.groupInstanceId !== null) this.staticMembers.set(m.groupInstanceId, m.memberId);
    if (this.leader === null) this.leader = m.memberId;
  }

  remove(memberId: string): Member | undefined {
    const m = this.members.get(memberId);
    if (!m) return undefined;
    this.members.delete(memberId);
    if (m.groupInstanceId !== null && this.staticMembers.get(m.groupInstanceId) === memberId) this.staticMembers.delete(m.groupInstanceId);
    this.pendingSync.delete(memberId);
    if (this.leader === memberId) this.leader = this.members.keys().next().value ?? null;
    return m;
  }

  /** Members that have rejoined count; pending (MEMBER_ID_REQUIRED) members must rejoin too. */
  allMembersJoined(): boolean {
    if (this.pendingMembers.size > 0) return false;
    for (const m of this.members.values()) if (!m.awaitingJoin) return false;
    return true;
  }

  /** Largest rebalance timeout among members: how long a rebalance may wait for them. */
  rebalanceTimeoutMs(): number {
    let t = 0;
    for (const m of this.members.values()) t = Math.max(t, m.rebalanceTimeoutMs);
    return t;
  }

  /** Protocols every member supports. */
  candidateProtocols(): Set<string> {
    let out: Set<string> | null = null;
    for (const m of this.members.values()) {
      const names = new Set(m.protocols.map((p) => p.name));
      out = out === null ? names : new Set<string>([...out].filter((n: string) => names.has(n)));
    }
    return out ?? new Set();
  }

  supportsProtocols(protocolType: string, protocols: Protocol[]): boolean {
    if (this.is('Empty')) return protocolType !== '' && protocols.length > 0;
    if (this.protocolType !== protocolType) return false;
    const candidates = this.candidateProtocols();
    return protocols.some((p) => candidates.has(p.name));
  }

  /** Each member votes for its most preferred protocol that all support; most votes wins (ties: first voted). */
  selectProtocol(): string {
    const candidates = this.candidateProtocols();
    const votes = new Map<string, number>();
    for (const m of this.members.values()) {
      const v = m.vote(candidates);
      votes.set(v, (votes.get(v) ?? 0) + 1);
    }
    let best = '';
    let bestVotes = -1;
    for (const [name, n] of votes) if (n > bestVotes) { best = name; bestVotes = n; }
    return best;
  }

  currentMemberMetadata(): JoinResult['members'] {
    return [...this.members.values()].map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, metadata: m.metadataFor(this.protocolName) }));
  }

  isSubscribedTo(topic: string): boolean {
    return this.subscribed === null ? true : this.subscribed.has(topic);
  }
}
