// The administration of a share group's state (KIP-932), as kafka-share-groups
// uses it: describe the start offsets (SPSO) and lag of its share-partitions,
// reset them (AlterShareGroupOffsets), remove a topic's state
// (DeleteShareGroupOffsets) and delete the group (DeleteGroups). Resets and
// removals need the group to have no members (NON_EMPTY_GROUP otherwise); they
// go to the store as administrative changes, which the leaders' copies in
// memory give way to (share-store.ts).
import { ErrorCode } from '../../../../common/errors.js';
import { RecordState, type StoredSharePartition } from './share-partition.js';
import type { SharePartitionStore } from './share-store.js';
import type { SharePartitions } from './share-partitions.js';
import type { ShareCoordinator } from './share-coordinator.js';

/** What the administration works on (the ShareService's parts). */
export interface ShareAdminParts { store: SharePartitionStore; partitions: SharePartitions; coordinator: ShareCoordinator }

/** Kafka's start offset of a share-partition without state. */
export const UNINITIALIZED_START_OFFSET = -1;

export interface DescribedShareOffset { startOffset: number; leaderEpoch: number; lag: number }

/** Records past the SPSO that are done (acknowledged or archived): not part of the lag. */
function doneInFlight(s: StoredSharePartition): number {
  let n = 0;
  for (const [first, last, state] of s.runs) if (state === RecordState.ACKNOWLEDGED || state === RecordState.ARCHIVED) n += last - first + 1;
  return n;
}

export class ShareAdmin {
  constructor(private readonly shares: ShareAdminParts) {}

  /** Whether the group is a share group here: it has members, or stored state. */
  async exists(groupId: string): Promise<boolean> {
    return (await this.shares.coordinator.memberCount(groupId)) > 0 || this.known(groupId);
  }

  /**
   * Whether a share group has this id, from what this broker holds and the
   * store's index of share groups: no group is loaded, so a broker that does
   * not (yet) coordinate the group's share state answers too.
   */
  async known(groupId: string): Promise<boolean> {
    if (this.shares.coordinator.group(groupId)) return true;
    return (await this.shares.store.listGroupIds()).includes(groupId);
  }

  /** NON_EMPTY_GROUP while the group has members, else null. */
  async emptyOrError(groupId: string): Promise<number | null> {
    return (await this.shares.coordinator.memberCount(groupId)) > 0 ? ErrorCode.NON_EMPTY_GROUP : null;
  }

  /** Start offset and lag of one share-partition; the lag needs the partition's high watermark (null: unknown, -1). */
  async describe(groupId: string, topicId: string, partition: number, highWatermark: number | null): Promise<DescribedShareOffset> {
    const s = await this.shares.store.read({ groupId, topicId, partition });
    if (!s) return { startOffset: UNINITIALIZED_START_OFFSET, leaderEpoch: -1, lag: -1 };
    const lag = highWatermark === null ? -1 : Math.max(0, highWatermark - s.startOffset - doneInFlight(s));
    return { startOffset: s.startOffset, leaderEpoch: -1, lag };
  }

  async partitions(groupId: string): Promise<Array<{ topicId: string; partition: number }>> {
    return this.shares.store.listPartitions(groupId);
  }

  /** Sets the SPSO of a share-partition: nothing in flight, the next record handed out is `startOffset`. */
  async alter(groupId: string, topicId: string, partition: number, startOffset: number): Promise<void> {
    await this.shares.store.overwrite({ groupId, topicId, partition }, { startOffset, endOffset: startOffset, runs: [] });
    this.shares.partitions.forgetGroup(groupId);
  }

  /** Removes the state of the group's share-partitions of one topic. */
  async deleteTopic(groupId: string, topicId: string): Promise<void> {
    for (const p of await this.partitions(groupId)) if (p.topicId === topicId) await this.shares.store.overwrite({ groupId, ...p }, null);
    this.shares.partitions.forgetGroup(groupId);
  }

  /** DeleteGroups of an empty share group: its state and the group go. */
  async deleteGroup(groupId: string): Promise<number> {
    const busy = await this.emptyOrError(groupId);
    if (busy !== null) return busy;
    for (const p of await this.partitions(groupId)) await this.shares.store.overwrite({ groupId, ...p }, null);
    await this.shares.store.forgetGroup(groupId);
    this.shares.partitions.forgetGroup(groupId);
    await this.shares.coordinator.forget(groupId);
    return ErrorCode.NONE;
  }
}
