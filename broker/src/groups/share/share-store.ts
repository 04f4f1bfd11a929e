// The narrow storage interface of share-partition state (KIP-932): one record
// per share group and topic-partition, written whole and atomically after
// each change that must survive the broker (acquisitions, acknowledgements,
// releases), before the client is answered. The Redis implementation
// (redis/redis-share-store.ts) owns the key names.
//
// Fencing: every load and write of the partition's leader carries its leader
// epoch. The store keeps the epoch of the newest leader that loaded or wrote
// the state and refuses (FencedStateEpochError) an older one, so a broker
// that lost the partition without noticing cannot overwrite what the new
// leader wrote. Each write also names the version it loaded: an
// administrative change in between (offsets reset or deleted) moves the
// version, and the leader's write is refused (StaleShareStateError) so that it
// reloads the state instead of writing its old copy back.
import { ErrorCode, KafkaError } from '../../../../common/errors.js';
import type { StoredSharePartition } from './share-partition.js';
import type { StoredShareGroup } from './share-group.js';

export interface SharePartitionKey { groupId: string; topicId: string; partition: number }

export interface LoadedShareState { state: StoredSharePartition | null; version: number }

/** A newer leader owns the share-partition: answered as NOT_LEADER_OR_FOLLOWER (the client looks the leader up again). */
export class FencedStateEpochError extends KafkaError {
  constructor(readonly key: SharePartitionKey, readonly epoch: number, readonly storedEpoch: number) {
    super(ErrorCode.NOT_LEADER_OR_FOLLOWER, `share-partition ${key.groupId}:${key.topicId}/${key.partition}: leader epoch ${epoch} is fenced by ${storedEpoch}`);
    this.name = 'FencedStateEpochError';
  }
}

/** The stored state changed since it was loaded (an administrative change): reload and retry. */
export class StaleShareStateError extends KafkaError {
  constructor(readonly key: SharePartitionKey) {
    super(ErrorCode.UNKNOWN_SERVER_ERROR, `share-partition ${key.groupId}:${key.topicId}/${key.partition} changed since it was loaded`);
    this.name = 'StaleShareStateError';
  }
}

/** A newer coordinator owns the share group: answered as NOT_COORDINATOR. */
export class ShareCoordinatorFencedError extends KafkaError {
  constructor(readonly groupId: string, readonly epoch: number, readonly storedEpoch: number) {
    super(ErrorCode.NOT_COORDINATOR, `share group ${groupId}: coordinator epoch ${epoch} is fenced by ${storedEpoch}`);
    this.name = 'ShareCoordinatorFencedError';
  }
}

/**
 * A share group's membership (epochs, members, assignments), written by its
 * coordinator after each change, fenced by the coordinator epoch like the
 * other groups (ShareCoordinatorFencedError), so a restarted or new
 * coordinator carries on with the same members and epochs.
 */
export interface ShareGroupStore {
  /** The stored group (null when none), recording `coordinatorEpoch` so that older coordinators are refused from then on. */
  loadGroup(groupId: string, coordinatorEpoch: number): Promise<StoredShareGroup | null>;
  /** Replaces the group (null: removes it). */
  saveGroup(groupId: string, coordinatorEpoch: number, group: StoredShareGroup | null): Promise<void>;
}

export interface SharePartitionStore {
  /** The stored state (null when none), recording `leaderEpoch` so that older leaders are refused from then on. */
  load(key: SharePartitionKey, leaderEpoch: number): Promise<LoadedShareState>;
  /** Replaces the state written at `version`; resolves to the new version. */
  save(key: SharePartitionKey, leaderEpoch: number, state: StoredSharePartition, version: number): Promise<number>;
  /** The state as stored, without fencing anyone (describe). */
  read(key: SharePartitionKey): Promise<StoredSharePartition | null>;
  /** Administrative replacement (null: removal) of a share-partition's state. */
  overwrite(key: SharePartitionKey, state: StoredSharePartition | null): Promise<void>;
  /** The share-partitions of a group with stored state. */
  listPartitions(groupId: string): Promise<Array<{ topicId: string; partition: number }>>;
  /** Ids of the share groups with stored state. */
  listGroupIds(): Promise<string[]>;
  /** Removes the group from the index of share groups (its share-partitions removed first). */
  forgetGroup(groupId: string): Promise<void>;
}
