// The remote tier of a tiered topic (remote.storage.enable=true, KIP-405): the
// offsets below the Redis log start, served from the archiver's Delta table.
// The port the fetch path, ListOffsets and retention see; the lake
// implementation (broker/src/lake/) owns the Delta log, the Parquet decoding
// and the caches.
import type { FetchBatch, TopicPartition } from './log-store.js';

/** What the lake holds of one partition (data records only: no control batch or aborted record is ever archived). */
export interface RemoteExtent {
  /** Lowest offset of a record in the lake. */
  startOffset: number;
  /** One past the highest offset of a record in the lake. */
  endOffset: number;
  records: number;
  bytes: number;
}

/** One file's share of a partition: the unit the total retention removes from the Kafka-visible log. */
export interface RemoteSegment {
  minOffset: number;
  maxOffset: number;
  maxTimestampMs: number;
  records: number;
  bytes: number;
}

export interface RemoteLog {
  /**
   * Record batches rebuilt from the lake, in offset order, holding the
   * partition's records with offsets >= `offset` and < `endOffset`. The first
   * batch is returned whole even when larger than `maxBytes` (KIP-74); later
   * ones only while the total stays within `maxBytes`. Empty when the lake
   * holds no record in [offset, endOffset) (after refreshing its view of the
   * table). A lake failure throws KafkaError(KAFKA_STORAGE_ERROR).
   * `topicId` is the topic's id: a table archived for another topic of the
   * same name holds nothing for this one.
   */
  read(tp: TopicPartition, topicId: string, offset: number, endOffset: number, maxBytes: number): Promise<FetchBatch[]>;
  /** The lake's extent of the partition, null when it holds none of its records. */
  extent(tp: TopicPartition, topicId: string): Promise<RemoteExtent | null>;
  /** ListOffsets by time within the lake: the first record (by offset) below `endOffset` with timestamp >= `timestampMs`; null when none. */
  offsetForTimestamp(tp: TopicPartition, topicId: string, timestampMs: number, endOffset: number): Promise<{ offset: number; timestamp: number } | null>;
  /** The partition's segments (one per data file holding its records), oldest first. */
  segments(tp: TopicPartition, topicId: string): Promise<RemoteSegment[]>;
  close(): Promise<void>;
}
