// The state of one transactional id, as Kafka's TransactionMetadata keeps it
// in `__transaction_state`; Runnel stores it in Redis (txn-store.ts).
import type { TopicPartition } from '../storage/log-store.js';

/**
 * Kafka's transaction states. Prepare* is persisted before any marker is
 * written, so a coordinator that takes the id over finishes the outcome that
 * was decided; Complete* once every partition has its marker.
 */
export type TxnState = 'Empty' | 'Ongoing' | 'PrepareCommit' | 'PrepareAbort' | 'CompleteCommit' | 'CompleteAbort';

export const TXN_STATES: readonly TxnState[] = ['Empty', 'Ongoing', 'PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort'];

/** Whether `s` names a transaction state (a stored or requested one). */
export function isTxnState(s: string | null | undefined): s is TxnState {
  return TXN_STATES.some((t) => t === s);
}

export interface TxnMetadata {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  /** The producer id/epoch before the last bump (-1 when none): a retried InitProducerId or a fenced client re-initialising is recognised by it (KIP-360). */
  lastProducerId: number;
  lastProducerEpoch: number;
  timeoutMs: number;
  state: TxnState;
  /** Partitions of the ongoing (or completing) transaction, `<topic>/<partition>`. */
  partitions: string[];
  /** Groups added by AddOffsetsToTxn (their `__consumer_offsets` partition is in `partitions`). */
  groups: string[];
  /** When the ongoing transaction started (its first AddPartitionsToTxn), -1 when none. */
  txnStartMs: number;
  lastUpdateMs: number;
  /**
   * Kafka's clientTransactionVersion: 2 when the current (or last) transaction
   * used transactions v2 (KIP-890 part 2: partitions added by Produce v12 or
   * TxnOffsetCommit v5, ended by EndTxn v5, an epoch bump at every end), else 0.
   */
  txnVersion: number;
  /**
   * Transactions v2 with the epoch exhausted: the producer id the transaction
   * ends with (epoch 0), taken when it is prepared and moved in at Complete*;
   * -1 when none. The markers still carry the old id.
   */
  nextProducerId: number;
}

/** Kafka's TransactionVersion.TV_2: the first that bumps the epoch at every transaction end. */
export const TXN_V2 = 2;

/** Kafka's Short.MaxValue: an epoch at MAX_EPOCH - 1 cannot be bumped; the producer gets a new id. */
export const MAX_EPOCH = 32767;

export const tpKey = (tp: TopicPartition): string => `${tp.topic}/${tp.partition}`;

export function parseTp(k: string): TopicPartition {
  const i = k.lastIndexOf('/');
  return { topic: k.slice(0, i), partition: Number(k.slice(i + 1)) };
}

export function isPrepare(s: TxnState): s is 'PrepareCommit' | 'PrepareAbort' {
  return s === 'PrepareCommit' || s === 'PrepareAbort';
}

export function isComplete(s: TxnState): boolean {
  return s === 'CompleteCommit' || s === 'CompleteAbort' || s === 'Empty';
}
