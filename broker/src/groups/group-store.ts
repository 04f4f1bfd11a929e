// The narrow storage interface of the group coordinator: group metadata and
// committed offsets, enough for another broker to take a group over with its
// generation, members and offsets intact. The Redis implementation
// (storage/redis/redis-group-store.ts) owns the key names.

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

export interface GroupStore {
  /** Metadata (null if never stored) and every committed offset of one group. */
  load(groupId: string): Promise<LoadedGroup>;
  /** Replaces the group's metadata and records the group in the index. */
  saveGroup(group: StoredGroup): Promise<void>;
  /** Stores offsets (replacing earlier commits of the same partitions) and records the group in the index. */
  commitOffsets(groupId: string, offsets: Map<OffsetKey, CommittedOffset>): Promise<void>;
  deleteOffsets(groupId: string, keys: OffsetKey[]): Promise<void>;
  /** Removes metadata, offsets and the index entry. */
  deleteGroup(groupId: string): Promise<void>;
  /** Every group with stored metadata or offsets. */
  listGroupIds(): Promise<string[]>;
}
