// The narrow storage interface of the group coordinator: group metadata and
// committed offsets, enough for another broker to take a group over with its
// generation, members and offsets intact. The Redis implementation
// (redis/redis-group-store.ts) owns the key names.
//
// Coordinator fencing: every call carries the coordinator epoch of the slot
// lease under which this broker coordinates the group. The store keeps the
// epoch of the newest coordinator that loaded or wrote each group and refuses
// (CoordinatorFencedError) a load or write with an older epoch, so a
// coordinator that lost its slot without noticing (paused, cut off from
// Redis) can never overwrite or roll back what its successor wrote.
import { ErrorCode, KafkaError } from '../../../common/errors.js';
import type { StoredConsumerGroup } from './consumer/stored.js';

export interface StoredMember {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  /** The member's metadata for the group's selected protocol. */
  metadata: Buffer;
  assignment: Buffer;
}

export interface StoredGroup {
  groupId: string;
  /** Null for a group only used to store offsets (simple consumers). */
  protocolType: string | null;
  protocolName: string | null;
  generation: number;
  leader: string | null;
  /** When the group entered its current state (Kafka's currentStateTimestamp); drives offset expiry of empty groups. */
  stateTimestamp: number;
  members: StoredMember[];
  /** A consumer-protocol group (KIP-848); its classic fields are then empty. */
  consumer?: StoredConsumerGroup;
}

export interface CommittedOffset {
  offset: number;
  leaderEpoch: number;
  metadata: string;
  commitTimestamp: number;
}

/** `<topic>/<partition>`: topic names never contain '/'. */
export type OffsetKey = string;

export const offsetKey = (topic: string, partition: number): OffsetKey => `${topic}/${partition}`;

export function parseOffsetKey(k: OffsetKey): { topic: string; partition: number } {
  const i = k.lastIndexOf('/');
  return { topic: k.slice(0, i), partition: Number(k.slice(i + 1)) };
}

export interface LoadedGroup {
  group: StoredGroup | null;
  offsets: Map<OffsetKey, CommittedOffset>;
}

/** A newer coordinator owns the group: answered to the client as NOT_COORDINATOR (it looks the coordinator up again). */
export class CoordinatorFencedError extends KafkaError {
  constructor(readonly groupId: string, readonly epoch: number, readonly storedEpoch: number) {
    super(ErrorCode.NOT_COORDINATOR, `group ${groupId}: coordinator epoch ${epoch} is fenced by epoch ${storedEpoch}`);
    this.name = 'CoordinatorFencedError';
  }
}

/**
 * All loads and writes take the caller's coordinator epoch and throw
 * CoordinatorFencedError when a coordinator with a higher epoch has loaded or
 * written the group. A load of an existing group records the caller's epoch
 * (from then on older coordinators are refused); a write records it too.
 */
export interface GroupStore {
  /** Metadata (null if never stored) and every committed offset of one group. */
  load(groupId: string, epoch: number): Promise<LoadedGroup>;
  /** Replaces the group's metadata and records the group in the index. */
  saveGroup(group: StoredGroup, epoch: number): Promise<void>;
  /** Stores offsets (replacing earlier commits of the same partitions) and records the group in the index. */
  commitOffsets(groupId: string, offsets: Map<OffsetKey, CommittedOffset>, epoch: number): Promise<void>;
  deleteOffsets(groupId: string, keys: OffsetKey[], epoch: number): Promise<void>;
  /** Removes metadata, offsets and the index entry. */
  deleteGroup(groupId: string, epoch: number): Promise<void>;
  /** Every group with stored metadata or offsets. */
  listGroupIds(): Promise<string[]>;
}
