// The narrow storage interface of share-partition state (KIP-932): one record
// per share group and topic-partition, written whole and atomically after
// each change that must survive the broker (acquisitions, acknowledgements,
// releases), before the client is answered. The Redis implementation
// (redis/redis-share-store.ts) owns the key names.
//
// Fencing: every load and write carries the partition's leader epoch. The
// store keeps the epoch of the newest leader that loaded or wrote the state
// and refuses (FencedStateEpochError) an older one, so a broker that lost the
// partition without noticing cannot overwrite what the new leader wrote.
import { ErrorCode, KafkaError } from '../../../../common/errors.js';
import type { StoredSharePartition } from './share-partition.js';

export interface SharePartitionKey { groupId: string; topicId: string; partition: number }

/** A newer leader owns the share-partition: answered as NOT_LEADER_OR_FOLLOWER (the client looks the leader up again). */
export class FencedStateEpochError extends KafkaError {
  constructor(readonly key: SharePartitionKey, readonly epoch: number, readonly storedEpoch: number) {
    super(ErrorCode.NOT_LEADER_OR_FOLLOWER, `share-partition ${key.groupId}:${key.topicId}/${key.partition}: leader epoch ${epoch} is fenced by ${storedEpoch}`);
    this.name = 'FencedStateEpochError';
  }
}

export interface SharePartitionStore {
  /** The stored state (null when none), recording `leaderEpoch` so that older leaders are refused from then on. */
  load(key: SharePartitionKey, leaderEpoch: number): Promise<StoredSharePartition | null>;
  /** Replaces the state. */
  save(key: SharePartitionKey, leaderEpoch: number, state: StoredSharePartition): Promise<void>;
  /** Ids of the share groups with stored state. */
  listGroupIds(): Promise<string[]>;
}
