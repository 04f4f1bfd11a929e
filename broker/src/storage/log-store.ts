// The narrow, domain-shaped storage interface. Handlers and partition logic
// see only this; the Redis implementation owns key names and commands.

export interface TopicPartition {
  topic: string;
  partition: number;
}

export interface TopicRecord {
  name: string;
  id: string; // uuid
  partitions: number;
  /** Only configs set explicitly on the topic. */
  configs: Record<string, string>;
  created: number;
  /**
   * Owned by the storage layer: where each partition's keys live (Redis
   * Cluster hash-tag salts, see docs/redis-keys.md). Chosen when partitions
   * are created and never changed; carry it through unchanged.
   */
  placement?: number[];
}

export interface StoredBatch {
  baseOffset: number;
  bytes: Buffer;
}

export interface PartitionTail {
  /** Last stored batch, or null when the stream is empty. */
  last: StoredBatch | null;
  /** The stored log end (next offset to assign); null where none is stored yet (derive it from `last`). */
  nextOffset: number | null;
  logStartOffset: number;
  leaderEpoch: number;
  /** Highest offset the archiver has committed to the lake, -1 if none. */
  archivedOffset: number;
}

/** One fenced append: stored only if `epoch` is the partition's leader epoch and `baseOffset` its log end. */
export interface AppendRequest {
  epoch: number;
  baseOffset: number;
  /** baseOffset + lastOffsetDelta + 1: the log end after this batch. */
  nextOffset: number;
  batch: Buffer;
  /** The batch's producer id and that producer's new idempotence state, stored with the batch; null if none. */
  producer: { id: number; state: string } | null;
}

/** 'ok', or why nothing was stored: the writer's epoch is not current or the log does not end at baseOffset. */
export type AppendResult = 'ok' | { fenced: string };

export interface LogStore {
  // ---- topics
  listTopics(): Promise<TopicRecord[]>;
  getTopic(name: string): Promise<TopicRecord | null>;
  /** Creates the topic unless one with that name exists; returns the record as stored (with its placement), null if it existed. */
  createTopic(topic: TopicRecord): Promise<TopicRecord | null>;
  /** Stores the record (new partitions get a placement); returns it as stored. */
  updateTopic(topic: TopicRecord): Promise<TopicRecord>;
  /** Removes the topic and every key of its partitions. */
  deleteTopic(topic: TopicRecord): Promise<void>;

  // ---- partition log
  tail(tp: TopicPartition): Promise<PartitionTail>;
  /** Fenced, atomic append of one batch with its producer state (see AppendRequest). */
  append(tp: TopicPartition, req: AppendRequest): Promise<AppendResult>;
  /**
   * Sets the stored leader epoch to `epoch` if it is lower (the store lost the
   * leader's epoch in a Redis failover); never lowers it. Returns the stored epoch.
   */
  restoreLeaderEpoch(tp: TopicPartition, epoch: number): Promise<number>;
  /** Stored idempotent-producer states: producer id -> encoded state. */
  producerStates(tp: TopicPartition): Promise<Map<number, string>>;
  /** Removes the named producers whose last append is before cutoffMs, if `epoch` is still current; returns how many. */
  expireProducers(tp: TopicPartition, epoch: number, cutoffMs: number, producerIds: number[]): Promise<number>;
  /** The batch containing `offset` (if any) and following batches, at most `count`. */
  read(tp: TopicPartition, offset: number, count: number): Promise<StoredBatch[]>;
  /** Batches with baseOffset <= offset, newest first, at most `count` (for tail scans). */
  readBackwards(tp: TopicPartition, beforeOrAt: number, count: number): Promise<StoredBatch[]>;
  setLogStartOffset(tp: TopicPartition, offset: number): Promise<void>;
  /** Removes whole batches whose baseOffset < minBaseOffset. */
  trimBefore(tp: TopicPartition, minBaseOffset: number): Promise<number>;
  /** Approximate bytes held by the partition's stream. */
  sizeBytes(tp: TopicPartition): Promise<number>;

  // ---- cluster
  nextProducerId(): Promise<number>;
  clusterId(): Promise<string>;
  /** Waits for `replicas` Redis replicas (and optionally the local AOF) to confirm prior writes. */
  waitReplicas(tp: TopicPartition, replicas: number, aof: boolean, timeoutMs: number): Promise<{ replicas: number; aofLocal: boolean }>;
  /** Replicas connected to the Redis primary that holds the partition. */
  connectedReplicas(tp: TopicPartition): Promise<number>;
  close(): Promise<void>;
}
