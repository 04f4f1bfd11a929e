// Internal topics. `__consumer_offsets` is a real, compacted topic whose
// partition s belongs to group-coordinator slot s (Kafka's
// partitionFor(groupId) = abs(groupId.hashCode) % offsets.topic.num.partitions,
// the same mapping as Leadership.coordinatorSlot). Its partitions are not lease
// units of their own: the broker holding coordinator slot s leads partition s
// and writes it with the slot's coordinator epoch as leader epoch, so a stale
// coordinator's appends are fenced like any stale leader's.
import type { LeaseUnit } from '../storage/cluster-store.js';
import type { TopicPartition } from '../storage/log-store.js';

export const OFFSETS_TOPIC = '__consumer_offsets';

/** Configs the internal topic is created with (Kafka: compacted, offsets are keyed). */
export const OFFSETS_TOPIC_CONFIGS: Record<string, string> = { 'cleanup.policy': 'compact' };

/** Kafka's Topic.isInternal: only the broker writes these; clients may read them. */
export function isInternalTopic(name: string): boolean {
  return name === OFFSETS_TOPIC;
}

/** The lease that grants leadership of a partition: its own, or the coordinator slot's for `__consumer_offsets`. */
export function leaseUnitOf(tp: TopicPartition): LeaseUnit {
  return tp.topic === OFFSETS_TOPIC
    ? { kind: 'coordinator', slot: tp.partition }
    : { kind: 'partition', topic: tp.topic, partition: tp.partition };
}
