// Idempotent-producer state of one partition, with Kafka's semantics:
// the last 5 batches per producer are remembered for duplicate detection,
// sequences must be contiguous, and an older epoch is fenced. The state of a
// producer is persisted with every batch it appends (the append script
// writes `encode()` into the partition's producers hash in the same step),
// so it survives restarts and leadership moves however long the log grows,
// as Kafka's producer snapshots do. A producer silent for
// producer.id.expiration.ms is forgotten and then treated as new (KIP-360).
//
// Transactions (Kafka's ProducerStateManager): a producer's first
// transactional batch on the partition opens its transaction here (the first
// offset is remembered, which holds the last stable offset back), a commit or
// abort marker closes it. A producer with an open transaction never expires.
import { ErrorCode, type KafkaErrorCode } from '../../../common/errors.js';
import type { BatchHeader } from '../record-batch/batch.js';
import type { TxnMarker } from './txn-marker.js';

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
  /** First offset of the producer's ongoing transaction on this partition, -1 when none. */
  txnFirstOffset: number;
  /** Coordinator epoch of the last marker written for this producer, -1 when none (fences stale coordinators). */
  coordinatorEpoch: number;
}

/** A transaction a marker completed: [firstOffset, lastOffset], lastOffset = the marker's offset. */
export interface CompletedTxn {
  producerId: number;
  firstOffset: number;
  lastOffset: number;
  aborted: boolean;
}

/** What a marker does to the table, applied only once the marker is stored (see applyMarker). */
export interface MarkerPlan {
  producerId: number;
  entry: ProducerEntry;
  /** The producer's new state in stored form. */
  state: string;
  /** The transaction the marker ends, or null when the producer had none open here (then only epochs move). */
  completed: CompletedTxn | null;
}

export type SequenceCheck =
  | { kind: 'append'; unknownProducer?: true }
  | { kind: 'duplicate'; baseOffset: number }
  | { kind: 'error'; code: KafkaErrorCode; message: string };

const lastSeqOf = (h: BatchHeader): number => (h.baseSequence + h.lastOffsetDelta) % 2147483648;
const nextSeq = (seq: number): number => (seq === 2147483647 ? 0 : seq + 1);

/**
 * Stored form: `<lastAppendMs> <epoch> [t<txnFirstOffset>] [c<coordinatorEpoch>] <firstSeq>:<lastSeq>:<baseOffset> ...`
 * (oldest batch first). The `t`/`c` tokens appear only when set, so a
 * producer that never used transactions is stored exactly as before, and
 * strings written before transactions existed decode unchanged.
 * lua/expire-producers.lua reads only the first token.
 */
export function encodeProducer(e: ProducerEntry): string {
  let s = `${e.lastAppendMs} ${e.epoch}`;
  if (e.txnFirstOffset >= 0) s += ` t${e.txnFirstOffset}`;
  if (e.coordinatorEpoch >= 0) s += ` c${e.coordinatorEpoch}`;
  for (const b of e.batches) s += ` ${b.firstSeq}:${b.lastSeq}:${b.baseOffset}`;
  return s;
}

export function decodeProducer(s: string): ProducerEntry | null {
  const parts = s.split(' ');
  const lastAppendMs = Number(parts[0]);
  const epoch = Number(parts[1]);
  if (!Number.isFinite(lastAppendMs) || !Number.isInteger(epoch)) return null;
  const out: ProducerEntry = { epoch, lastAppendMs, batches: [], txnFirstOffset: -1, coordinatorEpoch: -1 };
  for (const p of parts.slice(2)) {
    if (p[0] === 't' || p[0] === 'c') {
      const n = Number(p.slice(1));
      if (!Number.isInteger(n) || n < 0) return null;
      if (p[0] === 't') out.txnFirstOffset = n; else out.coordinatorEpoch = n;
      continue;
    }
    const [f, l, o] = p.split(':').map(Number);
    if (!Number.isInteger(f) || !Number.isInteger(l) || !Number.isInteger(o)) return null;
    out.batches.push({ firstSeq: f!, lastSeq: l!, baseOffset: o! });
  }
  return out;
}

/** A producer with an open transaction is never expired (Kafka's isProducerExpired). */
const expired = (e: ProducerEntry, now: number, expirationMs: number): boolean => e.txnFirstOffset < 0 && now - e.lastAppendMs >= expirationMs;

export class ProducerStateTable {
  private readonly producers = new Map<number, ProducerEntry>();

  constructor(private readonly expirationMs = 86_400_000) {}

  /** The producer's entry, or undefined if unknown or expired at `now`. */
  private live(producerId: number, now: number): ProducerEntry | undefined {
    const e = this.producers.get(producerId);
    if (e && expired(e, now, this.expirationMs)) {
      this.producers.delete(producerId);
      return undefined;
    }
    return e;
  }

  check(h: BatchHeader, now = Date.now()): SequenceCheck {
    if (h.producerId < 0) return { kind: 'append' };
    const entry = this.live(h.producerId, now);
    if (!entry) return { kind: 'append', unknownProducer: true }; // any sequence is accepted (KIP-360), see sequence-holes.ts
    if (h.producerEpoch < entry.epoch) {
      return { kind: 'error', code: ErrorCode.INVALID_PRODUCER_EPOCH, message: `epoch ${h.producerEpoch} is older than ${entry.epoch}` };
    }
    // Kafka's appendDataBatch: a plain batch while the producer's transaction is open here.
    if (!h.isTransactional && entry.txnFirstOffset >= 0) {
      return { kind: 'error', code: ErrorCode.INVALID_TXN_STATE, message: `expected a transactional write from producer ${h.producerId}: its transaction is open since offset ${entry.txnFirstOffset}` };
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
    // No batch at this epoch: a marker set it (transactions v2 bump the epoch at every end, and the markers carry
    // the new one), so sequences restart at 0 (Kafka's checkSequence: "the epoch was bumped by a control record").
    if (!newest && h.baseSequence !== 0) {
      return { kind: 'error', code: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, message: `epoch ${entry.epoch} was set by a transaction marker: sequence must restart at 0, got ${h.baseSequence}` };
    }
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
    if (!entry) {
      entry = { epoch: h.producerEpoch, lastAppendMs: now, batches: [], txnFirstOffset: -1, coordinatorEpoch: -1 };
      this.producers.set(h.producerId, entry);
    } else if (h.producerEpoch > entry.epoch) {
      // A new epoch restarts sequences; an open transaction and the coordinator epoch carry over (Kafka).
      entry.epoch = h.producerEpoch;
      entry.batches = [];
    } else if (h.producerEpoch < entry.epoch) return null;
    entry.lastAppendMs = now;
    if (h.isTransactional && entry.txnFirstOffset < 0) entry.txnFirstOffset = baseOffset; // the transaction begins here
    entry.batches.push({ firstSeq: h.baseSequence, lastSeq: lastSeqOf(h), baseOffset });
    if (entry.batches.length > MAX_CACHED_BATCHES) entry.batches.shift();
    return encodeProducer(entry);
  }

  /**
   * True when a transactional batch opens the producer's transaction on this
   * partition: KIP-890 asks the coordinator first (TransactionServices.verify,
   * or addPartition for transactions v2). A batch of a newer epoch than the
   * open transaction's opens a new one, as Kafka's hasOngoingTransaction
   * (producerId, producerEpoch) has it: with transactions v2 every
   * transaction has its own epoch, so the next transaction's first batch is
   * never taken for part of a previous one whose marker is still on its way.
   * An older epoch asks nothing: the append refuses it (INVALID_PRODUCER_EPOCH).
   */
  beginsTransaction(h: BatchHeader, now = Date.now()): boolean {
    if (!h.isTransactional || h.producerId < 0) return false;
    const e = this.live(h.producerId, now);
    if (!e) return true;
    return h.producerEpoch > e.epoch || (h.producerEpoch === e.epoch && e.txnFirstOffset < 0);
  }

  /**
   * Kafka's appendEndTxnMarker: checks a marker for `producerId` about to be
   * written at `offset` and plans its effect. Refused: a producer epoch older
   * than the producer's (INVALID_PRODUCER_EPOCH) or a coordinator epoch older
   * than the last marker's (TRANSACTION_COORDINATOR_FENCED). The table is not
   * changed until applyMarker (the marker is stored first, so the last stable
   * offset never passes an abort that Redis does not hold yet).
   */
  planMarker(producerId: number, marker: TxnMarker, offset: number, now = Date.now()): MarkerPlan | { code: KafkaErrorCode; message: string } {
    const cur = this.live(producerId, now);
    if (cur && marker.producerEpoch < cur.epoch) {
      return { code: ErrorCode.INVALID_PRODUCER_EPOCH, message: `marker epoch ${marker.producerEpoch} is older than producer ${producerId}'s epoch ${cur.epoch}` };
    }
    if (cur && marker.coordinatorEpoch < cur.coordinatorEpoch) {
      return { code: ErrorCode.TRANSACTION_COORDINATOR_FENCED, message: `marker coordinator epoch ${marker.coordinatorEpoch} is older than ${cur.coordinatorEpoch}` };
    }
    const completed = cur && cur.txnFirstOffset >= 0 ? { producerId, firstOffset: cur.txnFirstOffset, lastOffset: offset, aborted: !marker.commit } : null;
    const entry: ProducerEntry = {
      epoch: marker.producerEpoch,
      lastAppendMs: now,
      // A newer epoch restarts sequences (Kafka's maybeUpdateProducerEpoch).
      batches: cur && cur.epoch === marker.producerEpoch ? [...cur.batches] : [],
      txnFirstOffset: -1,
      coordinatorEpoch: marker.coordinatorEpoch,
    };
    return { producerId, entry, state: encodeProducer(entry), completed };
  }

  /** The marker of `plan` is stored: its producer's transaction is closed. */
  applyMarker(plan: MarkerPlan): void {
    this.producers.set(plan.producerId, plan.entry);
  }

  /** The smallest first offset of the open transactions (Kafka's first unstable offset), or null when none is open. */
  firstUnstableOffset(): number | null {
    let min: number | null = null;
    for (const e of this.producers.values()) {
      if (e.txnFirstOffset >= 0 && (min === null || e.txnFirstOffset < min)) min = e.txnFirstOffset;
    }
    return min;
  }

  /** Replaces the table with stored states (producer id -> encoded state); expired ones are skipped. */
  load(stored: Map<number, string>, now = Date.now()): void {
    this.producers.clear();
    for (const [pid, s] of stored) {
      const e = decodeProducer(s);
      if (e && !expired(e, now, this.expirationMs)) this.producers.set(pid, e);
    }
  }

  /** Ids of producers silent for producer.id.expiration.ms at `now` (removed from the table). */
  expire(now = Date.now()): number[] {
    const out: number[] = [];
    for (const [pid, e] of this.producers) {
      if (expired(e, now, this.expirationMs)) {
        this.producers.delete(pid);
        out.push(pid);
      }
    }
    return out;
  }

  /** Producers currently known, for DescribeProducers. */
  describe(): Array<{ producerId: number; epoch: number; lastSequence: number; baseOffset: number; lastTimestamp: number; coordinatorEpoch: number; txnFirstOffset: number }> {
    return [...this.producers].map(([producerId, e]) => {
      const newest = e.batches[e.batches.length - 1];
      return {
        producerId, epoch: e.epoch, lastSequence: newest?.lastSeq ?? -1, baseOffset: newest?.baseOffset ?? -1, lastTimestamp: e.lastAppendMs,
        coordinatorEpoch: e.coordinatorEpoch, txnFirstOffset: e.txnFirstOffset,
      };
    });
  }
}
