// The seam between the two halves of Kafka transactions in Runnel (issue 11):
//  - the partition side (broker/src/log, the produce/fetch/list-offsets
//    handlers, WriteTxnMarkers): transactional batches, control batches
//    (markers), the last stable offset (LSO) and the aborted-transaction index;
//  - the transaction coordinator (broker/src/transactions): transactional ids,
//    their state in Redis, InitProducerId/AddPartitionsToTxn/AddOffsetsToTxn/
//    EndTxn/TxnOffsetCommit/DescribeTransactions/ListTransactions, timeouts,
//    and sending markers to partition leaders.
import type { KafkaErrorCode } from '../../../common/errors.js';
import type { TopicPartition } from '../storage/log-store.js';
import type { TxnMarker } from '../log/txn-marker.js';

/** What the partition side needs from the transaction coordinator. */
export interface TransactionServices {
  /**
   * KIP-890 part 1: may `producerId`/`producerEpoch` of `transactionalId`
   * append transactional data to `tp` now (the partition is in its ongoing
   * transaction)? NONE, or the error the produce answers with
   * (INVALID_TXN_STATE, PRODUCER_FENCED / INVALID_PRODUCER_EPOCH,
   * INVALID_PRODUCER_ID_MAPPING, NOT_COORDINATOR...). Asked only for the
   * first transactional batch of a transaction on a partition.
   */
  verify(transactionalId: string, producerId: number, producerEpoch: number, tp: TopicPartition): Promise<KafkaErrorCode>;
  /**
   * KIP-890 part 2 (transactions v2): `tp` joins the ongoing transaction of
   * `producerId`/`producerEpoch` (an implicit AddPartitionsToTxn, for Produce
   * v12 and TxnOffsetCommit v5). NONE, or the error to answer with
   * (CONCURRENT_TRANSACTIONS while the previous transaction completes,
   * PRODUCER_FENCED, INVALID_PRODUCER_ID_MAPPING, NOT_COORDINATOR...).
   */
  addPartition(transactionalId: string, producerId: number, producerEpoch: number, tp: TopicPartition): Promise<KafkaErrorCode>;
  /**
   * A marker reached partition `partition` of `__consumer_offsets` (the
   * group coordinator's partition): commit or drop the pending transactional
   * offset commits (TxnOffsetCommit) of that producer for the groups of that
   * coordinator slot.
   */
  completeTxnOffsets(slot: number, marker: TxnMarker): Promise<void>;
}

/** What the transaction coordinator needs from the partition side. */
export interface MarkerWriter {
  /**
   * Appends the marker as a control batch to `tp`, on this broker if it leads
   * the partition, else through WriteTxnMarkers to the leader. Resolves with
   * the error code of that partition (NONE when written).
   */
  writeMarker(tp: TopicPartition, marker: TxnMarker): Promise<KafkaErrorCode>;
}
