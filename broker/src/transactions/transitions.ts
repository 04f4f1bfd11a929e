// Kafka's transaction coordinator rules as pure functions of a transactional
// id's state: what a request does to it and which error it is answered with
// (TransactionCoordinator.handleInitProducerId, handleAddPartitionsToTransaction,
// handleEndTransaction in Apache Kafka). No I/O: the coordinator persists the
// returned state and writes markers.
import { ErrorCode, type KafkaErrorCode } from '../../../common/errors.js';
import { isPrepare, MAX_EPOCH, type TxnMetadata, type TxnState } from './txn-metadata.js';

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
    timeoutMs: req.timeoutMs, state: 'Empty', partitions: [], groups: [], txnStartMs: -1, lastUpdateMs: now,
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
 */
export function fenced(m: TxnMetadata, now: number): TxnMetadata {
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

/** AddPartitionsToTxn / AddOffsetsToTxn: `partitions` (and `group`) join the transaction. */
export function decideAdd(m: TxnMetadata | null, producerId: number, producerEpoch: number, partitions: string[], now: number, group?: string): Decision {
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

/** EndTxn: Ongoing moves to Prepare*; a retry of a decided outcome is answered as Kafka does. */
export function decideEnd(m: TxnMetadata | null, producerId: number, producerEpoch: number, commit: boolean, now: number): Decision {
  if (!m || m.producerId !== producerId) return err(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  // A client whose transaction was aborted by the coordinator (timeout, fence) carries the old epoch.
  if (m.producerEpoch !== producerEpoch) return err(ErrorCode.PRODUCER_FENCED);
  const same = (s: TxnState): boolean => (commit ? s === 'PrepareCommit' || s === 'CompleteCommit' : s === 'PrepareAbort' || s === 'CompleteAbort');
  switch (m.state) {
    case 'Ongoing':
      return { kind: 'store', meta: { ...m, state: commit ? 'PrepareCommit' : 'PrepareAbort', lastUpdateMs: now } };
    case 'PrepareCommit':
    case 'PrepareAbort':
      return err(same(m.state) ? ErrorCode.CONCURRENT_TRANSACTIONS : ErrorCode.INVALID_TXN_STATE);
    case 'CompleteCommit':
    case 'CompleteAbort':
      return same(m.state) ? { kind: 'reply' } : err(ErrorCode.INVALID_TXN_STATE);
    default:
      return err(ErrorCode.INVALID_TXN_STATE);
  }
}

/**
 * The state once every marker of a Prepare* transaction is written. The start
 * time stays, as in Kafka (TransactionMetadata.prepareComplete keeps
 * txnStartTimestamp): DescribeTransactions of a completed transaction reports
 * when it started; only an InitProducerId bump clears it.
 */
export function completed(m: TxnMetadata, now: number): TxnMetadata {
  return { ...m, state: m.state === 'PrepareCommit' ? 'CompleteCommit' : 'CompleteAbort', partitions: [], groups: [], lastUpdateMs: now };
}

/** Ongoing past its timeout (Kafka: txnStartTimestamp + txnTimeoutMs < now). */
export function timedOut(m: TxnMetadata, now: number): boolean {
  return m.state === 'Ongoing' && m.txnStartMs >= 0 && m.txnStartMs + m.timeoutMs < now;
}
