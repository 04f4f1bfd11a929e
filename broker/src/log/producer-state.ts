// Idempotent-producer state of one partition, with Kafka's semantics:
// the last 5 batches per producer are remembered for duplicate detection,
// sequences must be contiguous, and an older epoch is fenced. The state of a
// producer is persisted with every batch it appends (the append script
// writes `encode()` into the partition's producers hash in the same step),
// so it survives restarts and leadership moves however long the log grows,
// as Kafka's producer snapshots do. A producer silent for
// producer.id.expiration.ms is forgotten and then treated as new (KIP-360).
import { ErrorCode, type KafkaErrorCode } from '../errors.js';
import type { BatchHeader } from '../record-batch/batch.js';

const MAX_CACHED_BATCHES = 5;

interface CachedBatch {
  firstSeq: number;
  lastSeq: number;
  baseOffset: number;
}

interface ProducerEntry {
  epoch: number;
  /** Broker wall-clock time (ms) of the producer's last append: drives expiry. */
  lastAppendMs: number;
  batches: CachedBatch[]; // oldest first
}

export type SequenceCheck =
  | { kind: 'append' }
  | { kind: 'duplicate'; baseOffset: number }
  | { kind: 'error'; code: KafkaErrorCode; message: string };

const lastSeqOf = (h: BatchHeader): number => (h.baseSequence + h.lastOffsetDelta) % 2147483648;
const nextSeq = (seq: number): number => (seq === 2147483647 ? 0 : seq + 1);

/** Stored form: `<lastAppendMs> <epoch> <firstSeq>:<lastSeq>:<baseOffset> ...` (oldest batch first). */
export function encodeProducer(e: ProducerEntry): string {
  let s = `${e.lastAppendMs} ${e.epoch}`;
  for (const b of e.batches) s += ` ${b.firstSeq}:${b.lastSeq}:${b.baseOffset}`;
  return s;
}

export function decodeProducer(s: string): ProducerEntry | null {
  const parts = s.split(' ');
  const lastAppendMs = Number(parts[0]);
  const epoch = Number(parts[1]);
  if (!Number.isFinite(lastAppendMs) || !Number.isInteger(epoch)) return null;
  const batches: CachedBatch[] = [];
  for (const p of parts.slice(2)) {
    const [f, l, o] = p.split(':').map(Number);
    if (!Number.isInteger(f) || !Number.isInteger(l) || !Number.isInteger(o)) return null;
    batches.push({ firstSeq: f!, lastSeq: l!, baseOffset: o! });
  }
  return { epoch, lastAppendMs, batches };
}

export class ProducerStateTable {
  private readonly producers = new Map<number, ProducerEntry>();

  constructor(private readonly expirationMs = 86_400_000) {}

  /** The producer's entry, or undefined if unknown or expired at `now`. */
  private live(producerId: number, now: number): ProducerEntry | undefined {
    const e = this.producers.get(producerId);
    if (e && now - e.lastAppendMs >= this.expirationMs) {
      this.producers.delete(producerId);
      return undefined;
    }
    return e;
  }

  check(h: BatchHeader, now = Date.now()): SequenceCheck {
    if (h.producerId < 0) return { kind: 'append' };
    const entry = this.live(h.producerId, now);
    if (!entry) return { kind: 'append' }; // unknown producer: any sequence is accepted (KIP-360)
    if (h.producerEpoch < entry.epoch) {
      return { kind: 'error', code: ErrorCode.INVALID_PRODUCER_EPOCH, message: `epoch ${h.producerEpoch} is older than ${entry.epoch}` };
    }
    if (h.producerEpoch > entry.epoch) {
      if (h.baseSequence !== 0) return { kind: 'error', code: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, message: `new epoch must start at sequence 0, got ${h.baseSequence}` };
      return { kind: 'append' };
    }
    const last = lastSeqOf(h);
    for (const b of entry.batches) {
      if (b.firstSeq === h.baseSequence && b.lastSeq === last) return { kind: 'duplicate', baseOffset: b.baseOffset };
    }
    const newest = entry.batches[entry.batches.length - 1];
    if (newest && h.baseSequence !== nextSeq(newest.lastSeq)) {
      return { kind: 'error', code: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, message: `expected sequence ${nextSeq(newest.lastSeq)}, got ${h.baseSequence}` };
    }
    return { kind: 'append' };
  }

  /**
   * Records a batch about to be appended (in log order) and returns the
   * producer's new state in stored form, or null for a batch without a producer.
   */
  record(h: BatchHeader, baseOffset: number, now = Date.now()): string | null {
    if (h.producerId < 0) return null;
    let entry = this.live(h.producerId, now);
    if (!entry || h.producerEpoch > entry.epoch) {
      entry = { epoch: h.producerEpoch, lastAppendMs: now, batches: [] };
      this.producers.set(h.producerId, entry);
    } else if (h.producerEpoch < entry.epoch) return null;
    entry.lastAppendMs = now;
    entry.batches.push({ firstSeq: h.baseSequence, lastSeq: lastSeqOf(h), baseOffset });
    if (entry.batches.length > MAX_CACHED_BATCHES) entry.batches.shift();
    return encodeProducer(entry);
  }

  /** Replaces the table with stored states (producer id -> encoded state); expired ones are skipped. */
  load(stored: Map<number, string>, now = Date.now()): void {
    this.producers.clear();
    for (const [pid, s] of stored) {
      const e = decodeProducer(s);
      if (e && now - e.lastAppendMs < this.expirationMs) this.producers.set(pid, e);
    }
  }

  /** Ids of producers silent for producer.id.expiration.ms at `now` (removed from the table). */
  expire(now = Date.now()): number[] {
    const out: number[] = [];
    for (const [pid, e] of this.producers) {
      if (now - e.lastAppendMs >= this.expirationMs) {
        this.producers.delete(pid);
        out.push(pid);
      }
    }
    return out;
  }

  /** Producers currently known, for DescribeProducers. */
  describe(): Array<{ producerId: number; epoch: number; lastSequence: number; baseOffset: number; lastTimestamp: number }> {
    return [...this.producers].map(([producerId, e]) => {
      const newest = e.batches[e.batches.length - 1];
      return { producerId, epoch: e.epoch, lastSequence: newest?.lastSeq ?? -1, baseOffset: newest?.baseOffset ?? -1, lastTimestamp: e.lastAppendMs };
    });
  }
}
