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
}

export interface StoredBatch {
  baseOffset: number;
  bytes: Buffer;
}

export interface PartitionTail {
  /** Last stored batch, or null when the stream is empty. */
  last: StoredBatch | null;
  logStartOffset: number;
  leaderEpoch: number;
  /** Highest offset the archiver has committed to the lake, -1 if none. */
  archivedOffset: number;
}

export type AppendResult = 'ok' | 'fenced';

export interface LogStore {
  // ---- topics
  listTopics(): Promise<TopicRecord[]>;
  getTopic(name: string): Promise<TopicRecord | null>;
  /** Creates the topic unless one with that name exists; returns false if it existed. */
  createTopic(topic: TopicRecord): Promise<boolean>;
  updateTopic(topic: TopicRecord): Promise<void>;
  /** Removes the topic and every key of its partitions. */
  deleteTopic(topic: TopicRecord): Promise<void>;

  // ---- partition log
  tail(tp: TopicPartition): Promise<PartitionTail>;
  /**
   * Fenced append: stores batch at baseOffset. 'fenced' means the stream
   * already holds an entry at or beyond baseOffset (another writer moved the tail).
   */
  append(tp: TopicPartition, baseOffset: number, batch: Buffer): Promise<AppendResult>;
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
  waitReplicas(replicas: number, aof: boolean, timeoutMs: number): Promise<{ replicas: number; aofLocal: boolean }>;
  connectedReplicas(): Promise<number>;
  close(): Promise<void>;
}
