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

/**
 * A stored batch as Fetch reads it: its bytes as pieces whose concatenation is
 * the batch (a store may hand out uncopied slices of what it received), with
 * the header field the read needs.
 */
export interface FetchBatch {
  baseOffset: number;
  /** The batch header's lastOffsetDelta: its last offset is baseOffset + lastOffsetDelta. */
  lastOffsetDelta: number;
  /** Bytes in all pieces. */
  size: number;
  pieces: Buffer[];
}

/** A StoredBatch as a one-piece FetchBatch. */
export function fetchBatchOf(b: StoredBatch): FetchBatch {
  return { baseOffset: b.baseOffset, lastOffsetDelta: b.bytes.readInt32BE(23), size: b.bytes.length, pieces: [b.bytes] };
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
  /** Compacted topics: offsets below this have been compacted (0 when never). */
  cleanedTo: number;
  /**
   * Tiered topics: the log start a consumer sees (Kafka's logStartOffset) when
   * it is below `logStartOffset`, the start of what Redis holds (Kafka's local
   * log start); the offsets between live in the lake. null: no remote tier.
   */
  remoteLogStartOffset: number | null;
}

/** A batch of the compacted prefix, with the delete horizon of its tombstones. */
export interface CompactedBatch extends StoredBatch {
  /** ms since the epoch after which its tombstones may be removed; null when it holds none. */
  horizon: number | null;
}

/**
 * Log compaction of one partition. A pass reads the uncompacted log and the
 * compacted prefix, writes the new prefix aside under a token, and swaps it in
 * atomically; only the leader of the current epoch can begin or finish a
 * pass, and a newer pass's begin fences an older pass's writes.
 */
export interface CompactionStore {
  /** Batches of the uncompacted log with baseOffset >= fromBase, oldest first. */
  scanLog(tp: TopicPartition, fromBase: number, count: number): Promise<StoredBatch[]>;
  /** Batches of the compacted prefix with baseOffset >= fromBase, oldest first. */
  scanCompacted(tp: TopicPartition, fromBase: number, count: number): Promise<CompactedBatch[]>;
  /** Starts a pass; false when `epoch` is not the partition's leader epoch. */
  begin(tp: TopicPartition, epoch: number, token: string): Promise<boolean>;
  /** Adds batches (ascending, after those already written) to the pass's new prefix; false when the pass was superseded. */
  write(tp: TopicPartition, token: string, batches: CompactedBatch[]): Promise<boolean>;
  /**
   * Swaps the new prefix in: offsets below `cleanedTo` now come from it, and the
   * uncompacted log keeps batches from `cleanedTo` on. False when fenced.
   */
  finish(tp: TopicPartition, epoch: number, token: string, cleanedTo: number): Promise<boolean>;
  /** Approximate bytes of the uncompacted log and of the compacted prefix. */
  sizes(tp: TopicPartition): Promise<{ log: number; compacted: number }>;
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
  /**
   * Transactions, for `producer`: the batch opens its transaction (`begin`),
   * or is a marker that ends it (`end`, with the aborted range for an abort).
   * Stored in the same transaction as the batch. Absent/null for other batches.
   */
  txn?: TxnChange | null;
}

/** A transaction of one producer that was aborted: its data lies in [firstOffset, lastOffset] (lastOffset = the abort marker). */
export interface AbortedTxn {
  producerId: number;
  firstOffset: number;
  lastOffset: number;
}

export type TxnChange = { kind: 'begin'; firstOffset: number } | { kind: 'end'; aborted: AbortedTxn | null };

/** 'ok', or why nothing was stored: the writer's epoch is not current or the log does not end at baseOffset. */
export type AppendResult = 'ok' | { fenced: string };

export interface LogStore {
  // ---- topics
  listTopics(): Promise<TopicRecord[]>;
  getTopic(name: string): Promise<TopicRecord | null>;
  /** Creates the topic unless one with that name exists; returns the record as stored (with its placement), null if it existed. */
  createTopic(topic: TopicRecord): Promise<TopicRecord | null>;
  /** createTopic for many records in one call (auto-creation in bulk); results in the order given. */
  createTopics(topics: TopicRecord[]): Promise<Array<TopicRecord | null>>;
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
  /**
   * The batch containing `offset` (if any) and following batches, at most
   * `count`. On a compacted topic offsets below the clean point come from the
   * compacted prefix (a compacted batch may end before `offset`: its last
   * records were removed) and later ones from the log; a read never mixes
   * the two.
   */
  read(tp: TopicPartition, offset: number, count: number): Promise<StoredBatch[]>;
  /**
   * read() for Fetch, the batches as pieces; optional: a store without it is
   * read with read(). The Redis store streams the reply into slices of its
   * socket chunks (no re-assembly of a batch).
   */
  readForFetch?(tp: TopicPartition, offset: number, count: number): Promise<FetchBatch[]>;
  /** Batches with baseOffset <= offset, newest first, at most `count` (for tail scans). */
  readBackwards(tp: TopicPartition, beforeOrAt: number, count: number): Promise<StoredBatch[]>;
  /** Moves the stored log start, and drops aborted transactions that end below it from the index. */
  setLogStartOffset(tp: TopicPartition, offset: number): Promise<void>;
  /** Stores the tiered log start (PartitionTail.remoteLogStartOffset); null removes it. */
  setRemoteLogStartOffset(tp: TopicPartition, offset: number | null): Promise<void>;
  /** Aborted transactions with lastOffset >= fromOffset, by lastOffset ascending, at most `limit`. */
  abortedTxns(tp: TopicPartition, fromOffset: number, limit: number): Promise<AbortedTxn[]>;
  /** The largest lastOffset in the aborted index, -1 when it is empty. */
  lastAbortedOffset(tp: TopicPartition): Promise<number>;
  /** Removes whole batches whose baseOffset < minBaseOffset (from the compacted prefix too). */
  trimBefore(tp: TopicPartition, minBaseOffset: number): Promise<number>;
  /** Approximate bytes held by the partition's log (its compacted prefix included). */
  sizeBytes(tp: TopicPartition): Promise<number>;
  readonly compaction: CompactionStore;

  // ---- cluster
  nextProducerId(): Promise<number>;
  clusterId(): Promise<string>;
  /**
   * Waits for `replicas` Redis replicas (and optionally the local AOF) to
   * confirm prior writes to the partition. `coverStored`: the write to cover
   * may have gone over an earlier connection (a retried batch answered as a
   * duplicate of one stored before a reconnect), so the wait must cover
   * everything the partition's primary holds, not only this connection's writes.
   */
  waitReplicas(tp: TopicPartition, replicas: number, aof: boolean, timeoutMs: number, coverStored?: boolean): Promise<{ replicas: number; aofLocal: boolean }>;
  /** Replicas connected to the Redis primary that holds the partition. */
  connectedReplicas(tp: TopicPartition): Promise<number>;
  close(): Promise<void>;
}
