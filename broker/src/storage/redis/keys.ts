// Redis key names: a public, versioned contract (docs/redis-keys.md).
import type { TopicPartition } from '../log-store.js';

export class Keys {
  constructor(readonly prefix: string) {}
  get topics(): string { return `${this.prefix}:topics`; }
  get topicIds(): string { return `${this.prefix}:topic-ids`; }
  get producerId(): string { return `${this.prefix}:producer-id`; }
  get clusterId(): string { return `${this.prefix}:cluster-id`; }
  get brokers(): string { return `${this.prefix}:brokers`; }
  get brokerLeases(): string { return `${this.prefix}:broker-leases`; }
  coordinatorLease(slot: number): string { return `${this.prefix}:{c/${slot}}:leader`; }
  tag(tp: TopicPartition): string { return `{${tp.topic}/${tp.partition}}`; }
  log(tp: TopicPartition): string { return `${this.prefix}:${this.tag(tp)}:log`; }
  meta(tp: TopicPartition): string { return `${this.prefix}:${this.tag(tp)}:meta`; }
  leader(tp: TopicPartition): string { return `${this.prefix}:${this.tag(tp)}:leader`; }
  epochs(tp: TopicPartition): string { return `${this.prefix}:${this.tag(tp)}:epochs`; }
  /** Every key owned by one partition (used by topic deletion). */
  partitionKeys(tp: TopicPartition): string[] {
    return [this.log(tp), this.meta(tp), this.leader(tp), this.epochs(tp), `${this.prefix}:${this.tag(tp)}:archiver-lease`];
  }
}

/** Stream entry id of the batch whose base offset is `base`. */
export const entryId = (base: number): string => `${base}-1`;

export function baseOfEntryId(id: Buffer | string): number {
  const s = typeof id === 'string' ? id : id.toString('latin1');
  return Number(s.slice(0, s.indexOf('-')));
}
