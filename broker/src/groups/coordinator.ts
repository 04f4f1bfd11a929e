// The classic-protocol group coordinator, sans-IO: requests in, results out,
// time from an injectable Clock, state in a GroupStore. It follows Apache
// Kafka's GroupCoordinator (states Empty, PreparingRebalance,
// CompletingRebalance, Stable, Dead) including its error semantics:
// KIP-394 member ids, KIP-345 static membership, KIP-814 skip assignment,
// pending-sync expiry, initial rebalance delay, offset expiry (KIP-211).
// Assignors run in the clients; this only relays protocols and assignments.
import { GroupAdmin } from './admin.js';
import type { Cancel, Clock } from '../../../common/clock.js';
import type { CoordinatorOptions, CoordinatorSettings } from './options.js';
import type { CommitRequest, FetchedOffset, GroupDescription, JoinRequest, MemberRef, SyncRequest, TxnCommitRequest } from './requests.js';
import type { Group, JoinResult, SyncResult } from './group.js';
import type { GroupStore } from './group-store.js';
import { GroupRegistry } from './group-registry.js';
import { MembershipFlow } from './heartbeat-leave.js';
import { JoinFlow } from './join.js';
import { OffsetManager } from './offsets.js';
import { Rebalancer } from './rebalance.js';
import { SyncFlow } from './sync.js';
import { TxnOffsetManager } from './txn-offsets.js';
import { ConsumerGroupFlow, type ConsumerHeartbeatResult, type DescribedConsumerGroup } from './consumer-flow.js';
import type { HeartbeatInput } from './consumer/consumer-group.js';
import type { ListedGroup } from './admin.js';
import { ErrorCode } from '../../../common/errors.js';
import type { OffsetKey } from './group-store.js';

export { DEFAULT_SETTINGS, NEW_MEMBER_JOIN_TIMEOUT_MS, type CoordinatorOptions, type CoordinatorSettings } from './options.js';
export type {
  CommitPartition, CommitRequest, FetchedOffset, GroupDescription, JoinRequest, MemberRef, SyncRequest, TxnCommitRequest,
} from './requests.js';

export class GroupCoordinator {
  readonly settings: CoordinatorSettings;
  private readonly registry: GroupRegistry;
  private readonly joins: JoinFlow;
  private readonly syncs: SyncFlow;
  private readonly membership: MembershipFlow;
  private readonly offsets: OffsetManager;
  private readonly admin: GroupAdmin;
  private readonly txnOffsets: TxnOffsetManager | null;
  private readonly consumerGroups: ConsumerGroupFlow;
  private expiryTimer: Cancel | null = null;

  constructor(store: GroupStore, private readonly clock: Clock, opts: CoordinatorOptions = {}) {
    this.registry = new GroupRegistry(store, clock, opts, (g) => {
      rebalancer.resumeSessions(g);
      this.consumerGroups.resumeSessions(g);
    });
    this.consumerGroups = new ConsumerGroupFlow(this.registry, opts.topics ?? (() => Promise.resolve([])));
    const rebalancer = new Rebalancer(this.registry);
    this.consumerGroups.classic.rebalancer = rebalancer;
    this.settings = this.registry.settings;
    this.joins = new JoinFlow(this.registry, rebalancer, this.consumerGroups.classic);
    this.syncs = new SyncFlow(this.registry, rebalancer, this.consumerGroups.classic);
    this.membership = new MembershipFlow(this.registry, rebalancer, this.consumerGroups.classic);
    this.offsets = new OffsetManager(this.registry, rebalancer);
    this.admin = new GroupAdmin(this.registry);
    this.txnOffsets = opts.txnOffsets ? new TxnOffsetManager(this.registry, opts.txnOffsets.store, opts.txnOffsets.slotOf) : null;
  }

  /** TxnOffsetCommit: offsets pending until the transaction's marker; one error per partition. */
  txnCommitOffsets(req: TxnCommitRequest): Promise<number[]> {
    if (!this.txnOffsets) return Promise.resolve(req.offsets.map(() => ErrorCode.COORDINATOR_NOT_AVAILABLE));
    return this.txnOffsets.commit(req);
  }

  /** A transaction marker reached `__consumer_offsets` partition `slot`: commit or drop that producer's pending offsets. */
  async completeTxnOffsets(slot: number, producerId: number, commit: boolean): Promise<void> {
    await this.txnOffsets?.complete(slot, producerId, commit);
  }

  /** Partitions of the group with transactional offsets still pending (OffsetFetch require_stable). */
  async pendingTxnOffsets(groupId: string): Promise<Set<OffsetKey>> {
    return this.txnOffsets ? this.txnOffsets.pendingPartitions(groupId) : new Set();
  }

  /** Starts the periodic offset-expiry pass. */
  start(): void {
    const tick = (): void => {
      this.expiryTimer = this.clock.schedule(this.settings.offsetsRetentionCheckIntervalMs, () => {
        this.expireOffsets().catch((e) => this.registry.logger?.warn('offset expiry pass failed', { err: String(e) })).finally(() => { if (!this.registry.stopped) tick(); });
      });
    };
    tick();
  }

  /** Stops timers and answers waiting JoinGroup/SyncGroup requests with NOT_COORDINATOR. */
  stop(): void {
    this.expiryTimer?.();
    this.registry.stop();
  }

  /** Forgets a group (its coordinator moved elsewhere); a later request loads it again from the store. */
  unload(groupId: string): void {
    this.registry.unload(groupId);
  }

  /** Forgets every loaded group matching `pred` (e.g. all groups of a coordinator slot this broker lost). */
  unloadWhere(pred: (groupId: string) => boolean): void {
    for (const id of this.registry.loadedIds()) if (pred(id)) this.registry.unload(id);
  }

  /** Loaded groups (for tests and metrics). */
  loadedGroup(groupId: string): Group | undefined {
    return this.registry.loaded(groupId);
  }

  join(req: JoinRequest): Promise<JoinResult> {
    return this.joins.join(req);
  }

  sync(req: SyncRequest): Promise<SyncResult> {
    return this.syncs.sync(req);
  }

  heartbeat(groupId: string, generationId: number, memberId: string, groupInstanceId: string | null): Promise<number> {
    return this.membership.heartbeat(groupId, generationId, memberId, groupInstanceId);
  }

  leave(groupId: string, members: MemberRef[]): Promise<{ errorCode: number; members: Array<MemberRef & { errorCode: number }> }> {
    return this.membership.leave(groupId, members);
  }

  /** One error code per requested partition, in request order. */
  commitOffsets(req: CommitRequest): Promise<number[]> {
    return this.offsets.commitOffsets(req);
  }

  /** Committed offsets of the requested partitions (all committed ones when null). */
  fetchOffsets(groupId: string, partitions: Array<{ topic: string; partition: number }> | null): Promise<FetchedOffset[]> {
    return this.offsets.fetchOffsets(groupId, partitions);
  }

  /** OffsetDelete: a group error, or one error per requested partition. */
  deleteOffsets(groupId: string, partitions: Array<{ topic: string; partition: number }>): Promise<{ errorCode: number; partitions: number[] }> {
    return this.offsets.deleteOffsets(groupId, partitions);
  }

  /** Runs one offset-expiry pass; returns the number of expired offsets. */
  expireOffsets(): Promise<number> {
    return this.offsets.expireOffsets();
  }

  /** ConsumerGroupHeartbeat (KIP-848). */
  consumerGroupHeartbeat(groupId: string, req: HeartbeatInput): Promise<ConsumerHeartbeatResult> {
    return this.consumerGroups.heartbeat(groupId, req);
  }

  /** ConsumerGroupDescribe (KIP-848): GROUP_ID_NOT_FOUND for unknown and classic groups. */
  describeConsumerGroup(groupId: string): Promise<DescribedConsumerGroup> {
    return this.consumerGroups.describe(groupId);
  }

  /** OffsetFetch v9+ of a consumer-protocol group member: null when allowed, else UNKNOWN_MEMBER_ID or STALE_MEMBER_EPOCH. */
  async validateOffsetFetch(groupId: string, memberId: string | null, memberEpoch: number): Promise<number | null> {
    if (memberId === null && memberEpoch < 0) return null;
    const g = await this.registry.getGroup(groupId);
    if (!g?.modern) return null;
    return ConsumerGroupFlow.validate(g.modern, memberId ?? '', memberEpoch, null);
  }

  listGroups(statesFilter: string[] = []): Promise<ListedGroup[]> {
    return this.admin.listGroups(statesFilter);
  }

  describeGroup(groupId: string): Promise<GroupDescription> {
    return this.admin.describeGroup(groupId);
  }

  /** DeleteGroups: only empty groups go, with their offsets. */
  deleteGroup(groupId: string): Promise<number> {
    return this.admin.deleteGroup(groupId);
  }
}
