// The request and result shapes of the group coordinator's operations
// (JoinGroup's and SyncGroup's results live with the member that waits for
// them, in group.ts).
import type { Protocol } from './group.js';
import type { GroupState } from './group-state.js';

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
  /** The generation (classic groups) or the member epoch (consumer-protocol groups). */
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  offsets: CommitPartition[];
  /** OffsetCommit version; a consumer-protocol group member must commit with v9+ (its member epoch). Absent: v9+. */
  apiVersion?: number;
}

export interface TxnCommitRequest {
  groupId: string;
  producerId: number;
  producerEpoch: number;
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
