// Idempotent-producer state of one partition, with Kafka's semantics:
// the last 5 batches per producer are remembered for duplicate detection,
// sequences must be contiguous, and an older epoch is fenced.
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
  batches: CachedBatch[]; // oldest first
}

export type SequenceCheck =
  | { kind: 'append' }
  | { kind: 'duplicate'; baseOffset: number }
  | { kind: 'error'; code: KafkaErrorCode; message: string };

const lastSeqOf = (h: BatchHeader): number => (h.baseSequence + h.lastOffsetDelta) % 2147483648;
const nextSeq = (seq: number): number => (seq === 2147483647 ? 0 : seq + 1);

export class ProducerStateTable {
  private readonly producers = new Map<number, ProducerEntry>();

  check(h: BatchHeader): SequenceCheck {
    if (h.producerId < 0) return { kind: 'append' };
    const entry = this.producers.get(h.producerId);
    if (!entry) return { kind: 'append' }; // unknown producer: accepted (KIP-360)
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

  /** Records an appended batch (in log order). */
  record(h: BatchHeader, baseOffset: number): void {
    if (h.producerId < 0) return;
    let entry = this.producers.get(h.producerId);
    if (!entry || h.producerEpoch > entry.epoch) {
      entry = { epoch: h.producerEpoch, batches: [] };
      this.producers.set(h.producerId, entry);
    } else if (h.producerEpoch < entry.epoch) return;
    entry.batches.push({ firstSeq: h.baseSequence, lastSeq: lastSeqOf(h), baseOffset });
    if (entry.batches.length > MAX_CACHED_BATCHES) entry.batches.shift();
  }

  /** Records a batch found while scanning the log backwards from the tail. */
  recordOlder(h: BatchHeader): void {
    if (h.producerId < 0) return;
    let entry = this.producers.get(h.producerId);
    if (!entry) {
      entry = { epoch: h.producerEpoch, batches: [] };
      this.producers.set(h.producerId, entry);
    }
    if (h.producerEpoch !== entry.epoch || entry.batches.length >= MAX_CACHED_BATCHES) return;
    entry.batches.unshift({ firstSeq: h.baseSequence, lastSeq: lastSeqOf(h), baseOffset: h.baseOffset });
  }

  clear(): void { this.producers.clear(); }

  /** Producers currently known, for DescribeProducers. */
  describe(): Array<{ producerId: number; epoch: number; lastSequence: number; baseOffset: number }> {
    return [...this.producers].map(([producerId, e]) => {
      const newest = e.batches[e.batches.length - 1];
      return { producerId, epoch: e.epoch, lastSequence: newest?.lastSeq ?? -1, baseOffset: newest?.baseOffset ?? -1 };
    });
  }
}
