// Settings and the request and result shapes of the group coordinator.
import type { OffsetsMirror } from './offsets-mirror.js';
import type { TxnOffsetStore } from './txn-offsets.js';
import type { Logger } from '../../../common/logger/logger.js';
import type { GroupState, Protocol } from './group.js';

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
}
