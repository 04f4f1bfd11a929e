// Stand-in TransactionServices until the transaction coordinator exists
// (branch txn-coord replaces it in broker.ts): every transactional batch is
// accepted without asking a coordinator (no KIP-890 verification), and a
// marker on `__consumer_offsets` has no pending transactional offset commits
// to complete. Never use it where a coordinator runs.
import { ErrorCode, type KafkaErrorCode } from '../errors.js';
import type { TopicPartition } from '../storage/log-store.js';
import type { TransactionServices, TxnMarker } from './types.js';

export class PermissiveTransactionServices implements TransactionServices {
  async verify(_transactionalId: string, _producerId: number, _producerEpoch: number, _tp: TopicPartition): Promise<KafkaErrorCode> {
    return ErrorCode.NONE;
  }

  async completeTxnOffsets(_slot: number, _marker: TxnMarker): Promise<void> {}
}
