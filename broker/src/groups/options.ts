// How a GroupCoordinator is set up: its settings (Kafka's group.* and
// offsets.* broker configs) and the collaborators it is given.
import type { Logger } from '../../../common/logger/logger.js';
import type { OffsetsMirror } from './offsets-mirror.js';
import type { TxnOffsetStore } from './txn-offset-store.js';
import type { GroupConfigReader } from './config/group-configs.js';

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
  /** group.consumer.session.timeout.ms (consumer-protocol groups, KIP-848) */
  consumerSessionTimeoutMs: number;
  /** group.consumer.heartbeat.interval.ms */
  consumerHeartbeatIntervalMs: number;
  /** group.consumer.assignors: server-side assignor names, the first is the default */
  consumerAssignors: string[];
  /** group.consumer.max.size */
  consumerMaxSize: number;
  /** group.consumer.migration.policy: whether classic groups convert online to consumer groups (upgrade) and back (downgrade). */
  consumerMigrationPolicy: 'disabled' | 'upgrade' | 'downgrade' | 'bidirectional';
}

export const DEFAULT_SETTINGS: CoordinatorSettings = {
  initialRebalanceDelayMs: 3000,
  minSessionTimeoutMs: 6000,
  maxSessionTimeoutMs: 1_800_000,
  maxSize: 2_147_483_647,
  offsetsRetentionMs: 10080 * 60_000,
  offsetsRetentionCheckIntervalMs: 600_000,
  offsetMetadataMaxBytes: 4096,
  consumerSessionTimeoutMs: 45_000,
  consumerHeartbeatIntervalMs: 5_000,
  consumerAssignors: ['uniform', 'range'],
  consumerMaxSize: 2_147_483_647,
  consumerMigrationPolicy: 'bidirectional',
};

/** How long a new member may wait in a rebalance before it is dropped (Kafka's NewMemberJoinTimeoutMs). */
export const NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60_000;

export interface CoordinatorOptions {
  settings?: Partial<CoordinatorSettings>;
  logger?: Logger;
  /** Whether this broker coordinates the group; the expiry pass skips other groups. */
  isLocal?: (groupId: string) => boolean;
  /**
   * Coordinator epoch of the slot lease under which this broker coordinates
   * the group, null when it does not (loads then answer NOT_COORDINATOR).
   * Default: 0 for every group (a single coordinator).
   */
  coordinatorEpoch?: (groupId: string) => number | null;
  /** Copies committed and removed offsets into `__consumer_offsets` (offsets-mirror.ts); none in unit tests. */
  mirror?: OffsetsMirror;
  /** Pending transactional offset commits (TxnOffsetCommit); none: TxnOffsetCommit answers COORDINATOR_NOT_AVAILABLE. */
  txnOffsets?: { store: TxnOffsetStore; slotOf(groupId: string): number };
  /** Per-group configs (consumer.session.timeout.ms, consumer.heartbeat.interval.ms); none: the settings above for every group. */
  groupConfigs?: Pick<GroupConfigReader, 'get'>;
  /** Every topic with its id and partition count, for consumer-protocol groups (KIP-848); none: no topics. */
  topics?: () => Promise<Array<{ name: string; id: string; partitions: number }>>;
}
