// The storage port of transactional offset commits (TxnOffsetCommit,
// KIP-98/KIP-447): offsets pending per (group, producer) until the
// transaction's marker reaches the group's `__consumer_offsets` partition
// (`slot`). The Redis implementation is redis/redis-group-store.ts.
import type { CommittedOffset, OffsetKey } from './group-store.js';

/** The storage of pending transactional offsets, fenced by coordinator epoch like every group write. */
export interface TxnOffsetStore {
  /** Records offsets as pending for the producer, and the (producer, group) pair in the slot's index. */
  storePending(groupId: string, slot: number, producerId: number, offsets: Map<OffsetKey, CommittedOffset>, epoch: number): Promise<void>;
  /** Groups of the slot with pending offsets of the producer. */
  pendingGroups(slot: number, producerId: number): Promise<string[]>;
  /** Commits (or drops) the producer's pending offsets of the group; returns those committed. */
  complete(groupId: string, slot: number, producerId: number, commit: boolean, epoch: number): Promise<Map<OffsetKey, CommittedOffset>>;
  /** Partitions of the group with pending offsets of any producer. */
  pendingPartitions(groupId: string): Promise<Set<OffsetKey>>;
}
