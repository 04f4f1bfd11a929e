// The narrow storage interface of the transaction coordinator. The Redis
// implementation (redis/redis-txn-store.ts) owns the key names.
//
// Fencing, as for groups: every call carries the coordinator epoch of the
// slot lease under which this broker coordinates the transactional id. The
// store keeps the epoch of the newest coordinator that loaded or wrote the id
// and refuses an older one (TxnCoordinatorFencedError), so a coordinator that
// lost its slot can never overwrite what its successor decided.
import { ErrorCode, KafkaError } from '../../../common/errors.js';
import type { TxnMetadata } from './txn-metadata.js';

export class TxnCoordinatorFencedError extends KafkaError {
  constructor(readonly transactionalId: string, readonly epoch: number, readonly storedEpoch: number) {
    super(ErrorCode.NOT_COORDINATOR, `transactional id ${transactionalId}: coordinator epoch ${epoch} is fenced by epoch ${storedEpoch}`);
    this.name = 'TxnCoordinatorFencedError';
  }
}

export interface TxnStore {
  /** The stored state (null if none); records the caller's epoch on an existing id. */
  load(transactionalId: string, epoch: number): Promise<TxnMetadata | null>;
  /** Replaces the stored state and records the id in its slot's index. */
  save(meta: TxnMetadata, slot: number, epoch: number): Promise<void>;
  /** Every transactional id recorded in a coordinator slot's index. */
  idsOfSlot(slot: number): Promise<string[]>;
  /** A fresh producer id (shared with idempotent producers). */
  nextProducerId(): Promise<number>;
}
