// The groups this coordinator has loaded: loading them from the GroupStore
// (one load per group at a time), creating, persisting and forgetting them.
import { ErrorCode, KafkaError } from '../../../common/errors.js';
import type { Logger } from '../../../common/logger/logger.js';
import type { Clock } from '../../../common/clock.js';
import { DEFAULT_SETTINGS, type CoordinatorOptions, type CoordinatorSettings } from './options.js';
import { EMPTY, Group, Member } from './group.js';
import { CoordinatorFencedError, type GroupStore, type StoredGroup } from './group-store.js';
import type { OffsetsMirror } from './offsets-mirror.js';
import { invokeJoin, invokeSync, joinError, syncError } from './replies.js';
import { loadConsumerGroup, storeConsumerGroup } from './consumer/stored.js';

export class GroupRegistry {
  readonly settings: CoordinatorSettings;
  readonly logger: Logger | undefined;
  readonly isLocal: (groupId: string) => boolean;
  /** Copy of offset commits in `__consumer_offsets`; null without one. */
  readonly mirror: OffsetsMirror | null;
  private readonly epochOf: (groupId: string) => number | null;
  private readonly configs: CoordinatorOptions['groupConfigs'];
  private readonly groups = new Map<string, Group>();
  private readonly loading = new Map<string, Promise<Group | null>>();
  private stoppedFlag = false;

  /** `onLoaded` runs for each group loaded from the store, once it is registered. */
  constructor(
    readonly store: GroupStore,
    readonly clock: Clock,
    opts: CoordinatorOptions,
    private readonly onLoaded: (g: Group) => void,
  ) {
    this.settings = { ...DEFAULT_SETTINGS, ...opts.settings };
    this.logger = opts.logger;
    this.isLocal = opts.isLocal ?? (() => true);
    this.mirror = opts.mirror ?? null;
    this.epochOf = opts.coordinatorEpoch ?? (() => 0);
    this.configs = opts.groupConfigs;
  }

  /**
   * A consumer-protocol group's session timeout and heartbeat interval: its
   * group configs (consumer.session.timeout.ms, consumer.heartbeat.interval.ms)
   * over group.consumer.session.timeout.ms / group.consumer.heartbeat.interval.ms.
   */
  async consumerTimings(groupId: string): Promise<{ sessionTimeoutMs: number; heartbeatIntervalMs: number }> {
    if (!this.configs) return { sessionTimeoutMs: this.settings.consumerSessionTimeoutMs, heartbeatIntervalMs: this.settings.consumerHeartbeatIntervalMs };
    const c = await this.configs.get(groupId);
    return { sessionTimeoutMs: c.consumerSessionTimeoutMs, heartbeatIntervalMs: c.consumerHeartbeatIntervalMs };
  }

  /** The coordinator epoch to load or create `groupId` under; NOT_COORDINATOR when this broker no longer coordinates it. */
  private epochFor(groupId: string): number {
    const epoch = this.epochOf(groupId);
    if (epoch === null) throw new KafkaError(ErrorCode.NOT_COORDINATOR, `not the coordinator of group ${groupId}`);
    return epoch;
  }

  get stopped(): boolean {
    return this.stoppedFlag;
  }

  /** Unloads every group; later loads find nothing. */
  stop(): void {
    this.stoppedFlag = true;
    for (const id of [...this.groups.keys()]) this.unload(id);
  }

  /** Forgets a group and answers its waiting JoinGroup/SyncGroup requests with NOT_COORDINATOR. */
  unload(groupId: string): void {
    const g = this.groups.get(groupId);
    if (!g) return;
    this.groups.delete(groupId);
    this.cancelTimers(g);
    for (const m of g.members.values()) {
      invokeJoin(m, joinError(m.memberId, ErrorCode.NOT_COORDINATOR));
      invokeSync(m, syncError(ErrorCode.NOT_COORDINATOR));
    }
  }

  loadedIds(): string[] {
    return [...this.groups.keys()];
  }

  loaded(groupId: string): Group | undefined {
    return this.groups.get(groupId);
  }

  /** Loaded groups and those the store knows. */
  async knownIds(): Promise<Set<string>> {
    const ids = new Set<string>(this.groups.keys());
    for (const id of await this.store.listGroupIds()) ids.add(id);
    return ids;
  }

  /** Forgets `g` if it is still the registered incarnation of its group. */
  forget(g: Group): void {
    if (this.groups.get(g.groupId) === g) this.groups.delete(g.groupId);
  }

  alive(g: Group): boolean {
    return this.groups.get(g.groupId) === g;
  }

  async getGroup(groupId: string): Promise<Group | null> {
    const g = this.groups.get(groupId);
    if (g) return g;
    let p = this.loading.get(groupId);
    if (!p) {
      p = this.load(groupId).finally(() => this.loading.delete(groupId));
      this.loading.set(groupId, p);
    }
    return p;
  }

  async getOrCreate(groupId: string): Promise<Group> {
    const g = await this.getGroup(groupId);
    if (g) return g;
    let created = this.groups.get(groupId);
    if (!created) {
      created = new Group(groupId, this.clock.now());
      created.coordinatorEpoch = this.epochFor(groupId);
      this.groups.set(groupId, created);
    }
    return created;
  }

  private async load(groupId: string): Promise<Group | null> {
    const epoch = this.epochFor(groupId);
    const loaded = await this.store.load(groupId, epoch);
    const existing = this.groups.get(groupId);
    if (existing) return existing;
    if (this.stoppedFlag || (!loaded.group && loaded.offsets.size === 0)) return null;
    const s = loaded.group;
    // Kafka's loadGroup: a stored group starts Stable when it has members, else Empty.
    const g = new Group(groupId, s?.stateTimestamp ?? this.clock.now(), s !== null && s.members.length > 0 ? 'Stable' : 'Empty');
    g.coordinatorEpoch = epoch;
    for (const [k, v] of loaded.offsets) g.offsets.set(k, v);
    if (s?.consumer) {
      g.modern = loadConsumerGroup(groupId, s.consumer);
      g.generation = s.generation;
    } else if (s) {
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
      g.subscribed = g.computeSubscribedTopics();
    }
    this.groups.set(groupId, g);
    this.onLoaded(g);
    this.logger?.info('group loaded', { group: groupId, state: g.state, generation: g.generation, members: g.size, offsets: g.offsets.size, coordinatorEpoch: epoch });
    return g;
  }

  snapshot(g: Group, assignment?: Map<string, Buffer>): StoredGroup {
    if (g.modern) {
      return { groupId: g.groupId, protocolType: null, protocolName: null, generation: g.modern.groupEpoch, leader: null, stateTimestamp: g.stateTimestamp, members: [], consumer: storeConsumerGroup(g.modern) };
    }
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

  /**
   * Runs a store write under the group's coordinator epoch. A fenced write
   * means a newer coordinator owns the group: the group is unloaded (waiting
   * members are answered NOT_COORDINATOR) and the error is rethrown, which
   * callers answer as NOT_COORDINATOR.
   */
  async write(g: Group, op: (epoch: number) => Promise<void>): Promise<void> {
    try {
      await op(g.coordinatorEpoch);
    } catch (e) {
      if (e instanceof CoordinatorFencedError) {
        this.logger?.warn('group write fenced by a newer coordinator; unloading the group', { group: g.groupId, epoch: e.epoch, storedEpoch: e.storedEpoch });
        if (this.alive(g)) this.unload(g.groupId);
      }
      throw e;
    }
  }

  saveGroup(g: Group, stored: StoredGroup): Promise<void> {
    return this.write(g, (epoch) => this.store.saveGroup(stored, epoch));
  }

  persistInBackground(g: Group): void {
    this.saveGroup(g, this.snapshot(g)).catch((e) => this.logger?.warn('storing group failed', { group: g.groupId, err: String(e) }));
  }

  /** A group created by a request that then failed, with nothing worth keeping, is forgotten. */
  dropIfUnused(g: Group): void {
    if (this.alive(g) && g.is('Empty') && g.generation === 0 && g.size === 0 && g.pendingMembers.size === 0 && g.offsets.size === 0 && g.protocolType === null && g.modern === null) {
      this.groups.delete(g.groupId);
      this.cancelTimers(g);
    }
  }

  cancelTimers(g: Group): void {
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
    for (const c of g.modernTimers.values()) c();
    g.modernTimers.clear();
  }
}
