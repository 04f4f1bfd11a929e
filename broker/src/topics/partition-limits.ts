// Partition-count limits: `topic.max.partitions` per topic and
// `cluster.max.partitions` over all topics (Runnel's names; Kafka has no such
// settings). Every partition costs the broker memory and a lease unit, so a
// count a client picks (CreateTopics 2147483647) or a record someone wrote to
// Redis must be refused before anything enumerates the partitions.
//
// Error code: Kafka 4.x refuses a CreateTopics or CreatePartitions request
// that would add more than 10000 partitions with POLICY_VIOLATION
// ("Excessively large number of partitions per request", KAFKA-17870 and
// KAFKA-19673); INVALID_PARTITIONS stays for counts below 1. Runnel answers
// its limits the same way.
import type { BrokerConfig } from '../config/config.js';
import { ErrorCode, type KafkaErrorCode } from '../../../common/errors.js';
import { createLogger } from '../../../common/logger/logger.js';
import type { TopicRecord } from '../storage/log-store.js';

export interface LimitError { code: KafkaErrorCode; message: string }

/**
 * Why `added` new partitions may not be created for `topic` (which will then
 * have `topicTotal`), with `clusterTotal` partitions existing in all topics;
 * null when they may.
 */
export function partitionLimitError(
  config: Pick<BrokerConfig, 'topicMaxPartitions' | 'clusterMaxPartitions'>,
  topic: string,
  topicTotal: number,
  added: number,
  clusterTotal: number,
): LimitError | null {
  if (topicTotal > config.topicMaxPartitions) {
    return { code: ErrorCode.POLICY_VIOLATION, message: `Topic '${topic}' would have ${topicTotal} partitions, more than topic.max.partitions=${config.topicMaxPartitions}.` };
  }
  if (clusterTotal + added > config.clusterMaxPartitions) {
    return { code: ErrorCode.POLICY_VIOLATION, message: `The cluster would have ${clusterTotal + added} partitions, more than cluster.max.partitions=${config.clusterMaxPartitions}.` };
  }
  return null;
}

/** Total partitions of the given topics. */
export function totalPartitions(topics: Iterable<TopicRecord>): number {
  let n = 0;
  for (const t of topics) n += t.partitions;
  return n;
}

// A stored topic whose count is not usable is replaced by a copy with zero
// partitions: every path that indexes or enumerates partitions then sees none
// (produce, fetch and the other per-partition APIs answer
// UNKNOWN_TOPIC_OR_PARTITION, no lease unit exists), DeleteTopics can still
// remove it, and Metadata reports the topic with an error.
const quarantined = new WeakMap<TopicRecord, number>();
const reported = new Set<string>();
const log = createLogger('info', 'topics');

/** True if a stored partition count may be loaded: an integer in 1..topic.max.partitions. */
export function usablePartitionCount(n: unknown, config: Pick<BrokerConfig, 'topicMaxPartitions'>): boolean {
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= config.topicMaxPartitions;
}

/**
 * The record as loaded from the store, or, if its partition count is not
 * usable, a quarantined copy with no partitions (logged once per topic id).
 */
export function guardStoredTopic(t: TopicRecord, config: Pick<BrokerConfig, 'topicMaxPartitions'>): TopicRecord {
  if (usablePartitionCount(t.partitions, config)) return t;
  if (!reported.has(t.id)) {
    reported.add(t.id);
    log.error('topic record has an unusable partition count; the topic is not served', {
      topic: t.name, topicId: t.id, partitions: String(t.partitions), limit: config.topicMaxPartitions,
      hint: 'delete the topic, or raise topic.max.partitions if the count is intended',
    });
  }
  const copy: TopicRecord = { ...t, partitions: 0 };
  quarantined.set(copy, typeof t.partitions === 'number' ? t.partitions : Number.NaN);
  return copy;
}

/** The stored partition count of a quarantined topic, or null for a served one. */
export function quarantinedCount(t: TopicRecord): number | null {
  return quarantined.get(t) ?? null;
}
