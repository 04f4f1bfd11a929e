// Shared by the transaction coordinator handlers.
import { ErrorCode, type KafkaErrorCode } from '../../../../common/errors.js';
import type { TransactionCoordinator } from '../../transactions/coordinator.js';
import type { BrokerServices } from './types.js';

/**
 * PRODUCER_FENCED exists from InitProducerId v4 and AddPartitionsToTxn,
 * AddOffsetsToTxn, EndTxn v2 on; older clients get INVALID_PRODUCER_EPOCH
 * instead, as Kafka answers them.
 */
export function fencedFor(code: KafkaErrorCode, version: number, since: number): KafkaErrorCode {
  return code === ErrorCode.PRODUCER_FENCED && version < since ? ErrorCode.INVALID_PRODUCER_EPOCH : code;
}

/** The coordinator, if this broker has one and coordinates `transactionalId`; else the error to answer. */
export function txnCoordinatorFor(b: BrokerServices, transactionalId: string): TransactionCoordinator | KafkaErrorCode {
  const t = b.transactions;
  if (!t) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  if (!t.isLocal(transactionalId)) return ErrorCode.NOT_COORDINATOR;
  return t;
}
