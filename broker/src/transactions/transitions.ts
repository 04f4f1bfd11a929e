// Kafka's transaction coordinator rules as pure functions of a transactional
// id's state: what a request does to it and which error it is answered with
// (TransactionCoordinator.handleInitProducerId, handleAddPartitionsToTransaction,
// handleEndTransaction in Apache Kafka). No I/O: the coordinator persists the
// returned state and writes markers.
import { ErrorCode, type KafkaErrorCode } from '../../../common/errors.js';
import { isPrepare, MAX_EPOCH, TXN_V2, type TxnMetadata, type TxnState } from './txn-metadata.js';

export type Decision =
  | { kind: 'error'; errorCode: KafkaErrorCode }
  /** Answer with the current producer id/epoch, nothing to store (a retried InitProducerId). */
  | { kind: 'reply' }
  /** Store `meta` and answer NONE. */
  | { kind: 'store'; meta: TxnMetadata };

const err = (errorCode: KafkaErrorCode): Decision => ({ kind: 'error', errorCode });

/** The request's producer id/epoch against the stored ones: NONE, INVALID_PRODUCER_ID_MAPPING or PRODUCER_FENCED. */
export function checkProducer(m: TxnMetadata | null, producerId: number, producerEpoch: number): KafkaErrorCode {
  if (!m || m.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
  if (m.producerEpoch !== producerEpoch) return ErrorCode.PRODUCER_FENCED;
  return ErrorCode.NONE;
}

export interface InitRequest {
  transactionalId: string;
  timeoutMs: number;
  /** KIP-360: the producer's current id/epoch when it re-initialises, else -1/-1. */
  producerId: number;
  producerEpoch: number;
}

export type InitDecision =
  | Decision
  /** Bump the epoch (a new producer id when `newProducerId`), state Empty. */
  | { kind: 'bump'; newProducerId: boolean }
  /** An ongoing transaction: abort it with a bumped epoch first (fencing the old producer); answer CONCURRENT_TRANSACTIONS. */
  | { kind: 'fence' };

export function decideInit(m: TxnMetadata | null, req: InitRequest, maxTimeoutMs: number): InitDecision {
  if (req.timeoutMs <= 0 || req.timeoutMs > maxTimeoutMs) return err(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
  if (!m) return { kind: 'bump', newProducerId: true };
  if (req.producerId >= 0) {
    const current = req.producerId === m.producerId && req.producerEpoch === m.producerEpoch;
    const retry = req.producerId === m.lastProducerId && req.producerEpoch === m.lastProducerEpoch;
    if (!current && !retry) return err(ErrorCode.PRODUCER_FENCED);
    // A retry of the init that produced the current epoch (its answer was lost), or a producer fenced by a
    // timeout abort re-initialising with the epoch it had: the current epoch is already newer than its own.
    if (retry && !current && !isPrepare(m.state) && m.state !== 'Ongoing') return { kind: 'reply' };
  }
  switch (m.state) {
    case 'PrepareCommit':
    case 'PrepareAbort':
      return err(ErrorCode.CONCURRENT_TRANSACTIONS);
    case 'Ongoing':
      return { kind: 'fence' };
    default:
      return { kind: 'bump', newProducerId: m.producerEpoch >= MAX_EPOCH - 1 };
  }
}

/** The state after an InitProducerId bump: no transaction, next epoch (or epoch 0 of a new producer id). */
export function bumped(m: TxnMetadata | null, req: InitRequest, newProducerId: number | null, now: number): TxnMetadata {
  const base: TxnMetadata = m ?? {
    transactionalId: req.transactionalId, producerId: -1, producerEpoch: -1, lastProducerId: -1, lastProducerEpoch: -1,
    timeoutMs: req.timeoutMs, state: 'Empty', partitions: [], groups: [], txnStartMs: -1, lastUpdateMs: now, txnVersion: 0, nextProducerId: -1,
  };
  const next = newProducerId !== null ? { producerId: newProducerId, producerEpoch: 0 } : { producerId: base.producerId, producerEpoch: base.producerEpoch + 1 };
  return {
    ...base, ...next,
    lastProducerId: base.producerId, lastProducerEpoch: base.producerEpoch,
    timeoutMs: req.timeoutMs, state: 'Empty', partitions: [], groups: [], txnStartMs: -1, lastUpdateMs: now,
  };
}

/**
 * The state that aborts an ongoing transaction with the epoch bumped (Kafka's
 * epoch fence, used for InitProducerId over an ongoing transaction and for
 * timeouts): the markers carry the new epoch, so the old producer's late
 * writes and EndTxn are refused. An exhausted epoch is not bumped.
 *
 * A transactions-v2 transaction is bumped twice, as Kafka's fence followed by
 * its v2 abort does (PrepareEpochFence, then prepareAbortOrCommit): the old
 * producer's EndTxn then carries neither the current epoch nor the one just
 * before it, so it is PRODUCER_FENCED rather than taken for a retry of an
 * EndTxn that bumped the epoch.
 */
export function fenced(m: TxnMetadata, now: number): TxnMetadata {
  if (m.txnVersion >= TXN_V2) {
    const fence = Math.min(m.producerEpoch + 1, MAX_EPOCH);
    return {
      ...m,
      lastProducerId: m.producerId,
      lastProducerEpoch: fence,
      producerEpoch: Math.min(fence + 1, MAX_EPOCH),
      nextProducerId: -1,
      state: 'PrepareAbort',
      lastUpdateMs: now,
    };
  }
  const bump = m.producerEpoch < MAX_EPOCH - 1;
  return {
    ...m,
    lastProducerId: m.producerId,
    lastProducerEpoch: bump ? m.producerEpoch : m.lastProducerEpoch,
    producerEpoch: bump ? m.producerEpoch + 1 : m.producerEpoch,
    state: 'PrepareAbort',
    lastUpdateMs: now,
  };
}

/**
 * AddPartitionsToTxn / AddOffsetsToTxn: `partitions` (and `group`) join the
 * transaction. `txnVersion` is the client's transaction version (Kafka's
 * clientTransactionVersion): 2 for the implicit adds of transactions v2
 * (Produce v12, TxnOffsetCommit v5, AddPartitionsToTxn v4+ without
 * VerifyOnly), else 0; the transaction keeps it (it decides the fence).
 */
export function decideAdd(m: TxnMetadata | null, producerId: number, producerEpoch: number, partitions: string[], now: number, group?: string, txnVersion = 0): Decision {
  const e = checkProducer(m, producerId, producerEpoch);
  if (e !== ErrorCode.NONE) return err(e);
  const cur = m!;
  if (isPrepare(cur.state)) return err(ErrorCode.CONCURRENT_TRANSACTIONS);
  const have = new Set(cur.partitions);
  const fresh = partitions.filter((p) => !have.has(p));
  const newGroup = group !== undefined && !cur.groups.includes(group);
  if (cur.state === 'Ongoing' && fresh.length === 0 && !newGroup) return { kind: 'reply' };
  const starting = cur.state !== 'Ongoing';
  return {
    kind: 'store',
    meta: {
      ...cur,
      state: 'Ongoing',
      partitions: starting ? [...new Set(partitions)] : [...cur.partitions, ...new Set(fresh)],
      groups: starting ? (group !== undefined ? [group] : []) : newGroup ? [...cur.groups, group!] : cur.groups,
      txnStartMs: starting ? now : cur.txnStartMs,
      lastUpdateMs: now,
      txnVersion,
    },
  };
}

/** KIP-890 verification: is `partition` in the ongoing transaction of this producer? */
export function verifyPartition(m: TxnMetadata | null, producerId: number, producerEpoch: number, partition: string): KafkaErrorCode {
  const e = checkProducer(m, producerId, producerEpoch);
  if (e !== ErrorCode.NONE) return e;
  if (m!.state !== 'Ongoing' || !m!.partitions.includes(partition)) return ErrorCode.INVALID_TXN_STATE;
  return ErrorCode.NONE;
}

export type EndDecision =
  | { kind: 'error'; errorCode: KafkaErrorCode }
  /** Already done (a retry): answer with the current producer id/epoch, store nothing. */
  | { kind: 'reply' }
  /**
   * Store Prepare* (prepared()) and write the markers. `newProducerId`: the
   * v2 epoch bump would exhaust the epoch, so a producer id is taken first.
   * `noPartitionAdded`: a v2 abort of a transaction that added nothing.
   */
  | { kind: 'end'; newProducerId: boolean; noPartitionAdded: boolean };

const endErr = (errorCode: KafkaErrorCode): EndDecision => ({ kind: 'error', errorCode });

/**
 * EndTxn: Ongoing moves to Prepare*; a retry of a decided outcome is answered
 * as Kafka does. `txnVersion` is 2 for EndTxn v5+ (Kafka's
 * TransactionVersion.transactionVersionForEndTxn), which bumps the epoch at
 * every end; below it Kafka's transactions v1 rules hold.
 */
export function decideEnd(m: TxnMetadata | null, producerId: number, producerEpoch: number, commit: boolean, txnVersion = 0): EndDecision {
  if (txnVersion >= TXN_V2) return decideEndV2(m, producerId, producerEpoch, commit);
  if (!m || m.producerId !== producerId) return endErr(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  // A client whose transaction was aborted by the coordinator (timeout, fence) carries the old epoch.
  if (m.producerEpoch !== producerEpoch) return endErr(ErrorCode.PRODUCER_FENCED);
  const same = (s: TxnState): boolean => (commit ? s === 'PrepareCommit' || s === 'CompleteCommit' : s === 'PrepareAbort' || s === 'CompleteAbort');
  switch (m.state) {
    case 'Ongoing':
      return { kind: 'end', newProducerId: false, noPartitionAdded: false };
    case 'PrepareCommit':
    case 'PrepareAbort':
      return endErr(same(m.state) ? ErrorCode.CONCURRENT_TRANSACTIONS : ErrorCode.INVALID_TXN_STATE);
    case 'CompleteCommit':
    case 'CompleteAbort':
      return same(m.state) ? { kind: 'reply' } : endErr(ErrorCode.INVALID_TXN_STATE);
    default:
      return endErr(ErrorCode.INVALID_TXN_STATE);
  }
}

/**
 * Kafka's endTransaction for transactions v2 (TransactionCoordinator, its
 * table above endTransaction). "Retry" is the epoch just before the stored
 * one (the EndTxn that bumped it is sent again), "current" the stored one:
 *
 *   state           abort retry / current   commit retry / current
 *   Empty           PRODUCER_FENCED / bump   PRODUCER_FENCED / INVALID_TXN_STATE
 *   CompleteAbort   NONE / bump              INVALID_TXN_STATE / INVALID_TXN_STATE
 *   CompleteCommit  INVALID_TXN_STATE / bump NONE / INVALID_TXN_STATE
 *
 * "bump" aborts a transaction that added no partition (nothing to mark) and
 * bumps the epoch. Ongoing needs the current epoch; Prepare* answers a retry
 * CONCURRENT_TRANSACTIONS (same outcome) or INVALID_TXN_STATE.
 */
function decideEndV2(m: TxnMetadata | null, producerId: number, producerEpoch: number, commit: boolean): EndDecision {
  if (!m) return endErr(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  // The EndTxn that rotated an exhausted epoch onto a new producer id, sent again.
  const retryOnOverflow = m.lastProducerId === producerId && producerEpoch === MAX_EPOCH - 1 && m.producerEpoch === 0 && m.producerId !== producerId;
  const retryOnBump = m.producerId === producerId && m.producerEpoch === producerEpoch + 1;
  if (m.producerId !== producerId && !retryOnOverflow) return endErr(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  const current = m.producerEpoch === producerEpoch;
  const retry = retryOnBump || retryOnOverflow;
  const valid = m.state === 'Ongoing' || m.state === 'Empty' ? current : isPrepare(m.state) ? retryOnBump : retry || current;
  if (!valid) return endErr(ErrorCode.PRODUCER_FENCED);
  const exhausted = m.producerEpoch >= MAX_EPOCH - 1;
  const end = (noPartitionAdded: boolean): EndDecision => ({ kind: 'end', newProducerId: exhausted, noPartitionAdded });
  switch (m.state) {
    case 'Ongoing':
      return end(false);
    case 'PrepareCommit':
      return endErr(commit ? ErrorCode.CONCURRENT_TRANSACTIONS : ErrorCode.INVALID_TXN_STATE);
    case 'PrepareAbort':
      return endErr(commit ? ErrorCode.INVALID_TXN_STATE : ErrorCode.CONCURRENT_TRANSACTIONS);
    case 'CompleteCommit':
      if (commit) return retry ? { kind: 'reply' } : endErr(ErrorCode.INVALID_TXN_STATE);
      return retry ? endErr(ErrorCode.INVALID_TXN_STATE) : end(true);
    case 'CompleteAbort':
      if (!commit) return retry ? { kind: 'reply' } : end(true);
      return endErr(ErrorCode.INVALID_TXN_STATE);
    case 'Empty':
      return commit ? endErr(ErrorCode.INVALID_TXN_STATE) : end(true);
    default:
      return endErr(ErrorCode.INVALID_TXN_STATE);
  }
}

/**
 * The Prepare* state EndTxn stores (Kafka's prepareAbortOrCommit). Transactions
 * v2 bump the epoch, so the markers carry the new one and fence every write of
 * the old (the zombie and hanging transactions of KIP-890); `nextProducerId`
 * (>= 0) is where an exhausted epoch moves at Complete*. A v2 abort of a
 * transaction that added no partition starts now and has nothing to mark.
 */
export function prepared(m: TxnMetadata, commit: boolean, txnVersion: number, nextProducerId: number, noPartitionAdded: boolean, now: number): TxnMetadata {
  const v2 = txnVersion >= TXN_V2;
  return {
    ...m,
    state: commit ? 'PrepareCommit' : 'PrepareAbort',
    producerEpoch: v2 ? Math.min(m.producerEpoch + 1, MAX_EPOCH) : m.producerEpoch,
    lastProducerId: v2 ? m.producerId : m.lastProducerId,
    lastProducerEpoch: v2 ? m.producerEpoch : m.lastProducerEpoch,
    partitions: noPartitionAdded ? [] : m.partitions,
    groups: noPartitionAdded ? [] : m.groups,
    txnStartMs: noPartitionAdded ? now : m.txnStartMs,
    txnVersion: v2 ? TXN_V2 : m.txnVersion,
    nextProducerId: v2 ? nextProducerId : -1,
    lastUpdateMs: now,
  };
}

/** The producer id and epoch EndTxn v5 answers with: those the transaction completes with (Kafka answers from prepareComplete). */
export function endedWith(m: TxnMetadata): { producerId: number; producerEpoch: number } {
  return m.nextProducerId >= 0 ? { producerId: m.nextProducerId, producerEpoch: 0 } : { producerId: m.producerId, producerEpoch: m.producerEpoch };
}

/**
 * The state once every marker of a Prepare* transaction is written. The start
 * time stays, as in Kafka (TransactionMetadata.prepareComplete keeps
 * txnStartTimestamp): DescribeTransactions of a completed transaction reports
 * when it started; only an InitProducerId bump clears it. A v2 transaction
 * that exhausted its epoch moves to its next producer id, epoch 0.
 */
export function completed(m: TxnMetadata, now: number): TxnMetadata {
  const state = m.state === 'PrepareCommit' ? 'CompleteCommit' : 'CompleteAbort';
  const rotated = m.nextProducerId >= 0
    ? { producerId: m.nextProducerId, producerEpoch: 0, lastProducerId: m.producerId, lastProducerEpoch: m.producerEpoch, nextProducerId: -1 }
    : {};
  return { ...m, ...rotated, state, partitions: [], groups: [], lastUpdateMs: now };
}

/** Ongoing past its timeout (Kafka: txnStartTimestamp + txnTimeoutMs < now). */
export function timedOut(m: TxnMetadata, now: number): boolean {
  return m.state === 'Ongoing' && m.txnStartMs >= 0 && m.txnStartMs + m.timeoutMs < now;
}
