// Sequences an idempotent producer still has to retry on a partition.
//
// Kafka accepts any sequence from a producer the partition does not know
// (KIP-360: its state may have expired or been removed with the log head).
// That rule opens a gap when a producer's FIRST batches on a partition fail
// with a retriable error (a lost lease, a Redis failover, NOT_ENOUGH_REPLICAS)
// and a later, pipelined batch of the same producer arrives once the
// partition is writable again: the partition still does not know the
// producer, so the later batch would be appended, and the retry of the
// earlier one refused for ever (OUT_OF_ORDER_SEQUENCE_NUMBER: "expected N,
// got 0") until the client's delivery timeout fails its records.
//
// A hole is the lowest sequence of a producer epoch that failed retriably on
// a partition and has not been appended since. While it is open, a batch of
// that producer epoch above it is refused with OUT_OF_ORDER_SEQUENCE_NUMBER,
// which clients retry after the earlier batch (it is not their next
// sequence). The hole closes when the batch holding it is appended or found
// a duplicate, or after `ttlMs` (longer than a client's delivery.timeout.ms:
// by then the client has failed the batch and moved to a new epoch).
import type { TopicPartition } from '../storage/log-store.js';

interface Hole {
  seq: number;
  at: number;
}

export class SequenceHoles {
  private readonly holes = new Map<string, Hole>();

  constructor(private readonly ttlMs = 300_000, private readonly maxHoles = 100_000) {}

  private key(tp: TopicPartition, producerId: number, epoch: number): string {
    return `${tp.topic}\u0000${tp.partition}\u0000${producerId}\u0000${epoch}`;
  }

  private live(key: string, now: number): Hole | undefined {
    const h = this.holes.get(key);
    if (h && now - h.at >= this.ttlMs) {
      this.holes.delete(key);
      return undefined;
    }
    return h;
  }

  /** A batch of the producer epoch starting at `seq` failed retriably: it is expected again. */
  record(tp: TopicPartition, producerId: number, epoch: number, seq: number, now = Date.now()): void {
    if (producerId < 0) return;
    const key = this.key(tp, producerId, epoch);
    const h = this.live(key, now);
    if (h && h.seq <= seq) return;
    this.holes.delete(key); // re-inserted last: the map stays in age order for eviction
    this.holes.set(key, { seq, at: now });
    if (this.holes.size > this.maxHoles) this.holes.delete(this.holes.keys().next().value!);
  }

  /** The open hole below `seq` for the producer epoch, or null when a batch at `seq` may be appended. */
  below(tp: TopicPartition, producerId: number, epoch: number, seq: number, now = Date.now()): number | null {
    const h = this.live(this.key(tp, producerId, epoch), now);
    return h && h.seq < seq ? h.seq : null;
  }

  /** A batch with sequences firstSeq..lastSeq was appended (or found a duplicate): a hole inside it is filled. */
  filled(tp: TopicPartition, producerId: number, epoch: number, firstSeq: number, lastSeq: number): void {
    if (this.holes.size === 0) return;
    const key = this.key(tp, producerId, epoch);
    const h = this.holes.get(key);
    if (h && firstSeq <= h.seq && h.seq <= lastSeq) this.holes.delete(key);
  }

  get size(): number {
    return this.holes.size;
  }
}
