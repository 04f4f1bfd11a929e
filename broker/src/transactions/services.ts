// TransactionServices (types.ts) for the partition side: KIP-890
// verification at the transactional id's coordinator (this broker, or
// another one through AddPartitionsToTxn v4 with VerifyOnly), and completion
// of transactional offset commits when a marker reaches `__consumer_offsets`.
import { ErrorCode, KafkaError, RunnelError, type KafkaErrorCode } from '../errors.js';
import type { BrokerServices } from '../handlers/types.js';
import { OFFSETS_TOPIC } from '../log/internal-topics.js';
import type { GroupCoordinator } from '../groups/coordinator.js';
import { AddPartitionsToTxn } from '../protocol/messages/add-partitions-to-txn.js';
import type { TopicPartition } from '../storage/log-store.js';
import type { BrokerAddress, BrokerClient } from './broker-client.js';
import type { TransactionCoordinator } from './coordinator.js';
import type { TransactionServices, TxnMarker } from './types.js';

export class CoordinatorTransactionServices implements TransactionServices {
  constructor(
    private readonly coordinator: TransactionCoordinator,
    private readonly groups: GroupCoordinator,
    private readonly client: BrokerClient,
    /** Address of the broker that coordinates the transactional id, null when none is known. */
    private readonly coordinatorOf: (transactionalId: string) => BrokerAddress | null,
  ) {}

  async verify(transactionalId: string, producerId: number, producerEpoch: number, tp: TopicPartition): Promise<KafkaErrorCode> {
    if (this.coordinator.isLocal(transactionalId)) return this.coordinator.verify(transactionalId, producerId, producerEpoch, tp);
    const addr = this.coordinatorOf(transactionalId);
    if (!addr) return ErrorCode.NOT_COORDINATOR;
    try {
      const res = await this.client.request(addr, AddPartitionsToTxn, 4, {
        transactions: [{ transactionalId, producerId, producerEpoch, verifyOnly: true, topics: [{ name: tp.topic, partitions: [tp.partition] }] }],
      });
      if (res.errorCode !== ErrorCode.NONE) return res.errorCode as KafkaErrorCode;
      const code = (res.resultsByTransaction as any[])?.[0]?.topicResults?.[0]?.resultsByPartition?.[0]?.partitionErrorCode;
      return typeof code === 'number' ? (code as KafkaErrorCode) : ErrorCode.UNKNOWN_SERVER_ERROR;
    } catch {
      return ErrorCode.NOT_COORDINATOR;
    }
  }

  completeTxnOffsets(slot: number, marker: TxnMarker): Promise<void> {
    return this.groups.completeTxnOffsets(slot, marker.producerId, marker.commit);
  }
}

/**
 * A marker for a partition this broker leads, without the round trip through
 * WriteTxnMarkers: the same steps as its handler (the partition side's
 * Partition.appendMarker, then the pending transactional offsets of a
 * `__consumer_offsets` partition).
 */
export async function writeMarkerLocally(b: BrokerServices, tp: TopicPartition, marker: TxnMarker): Promise<KafkaErrorCode> {
  try {
    const p = await b.log.partition(tp.topic, tp.partition);
    const out = await p.appendMarker(marker);
    if (out.errorCode !== ErrorCode.NONE) {
      b.logger.warn('transaction marker refused', { topic: tp.topic, partition: tp.partition, producerId: marker.producerId, code: out.errorCode, reason: out.errorMessage });
      return out.errorCode;
    }
    if (tp.topic === OFFSETS_TOPIC) await b.txn.completeTxnOffsets(tp.partition, marker);
    return ErrorCode.NONE;
  } catch (e) {
    if (e instanceof KafkaError) return e.code;
    if (e instanceof RunnelError && e.kind === 'STORAGE_UNAVAILABLE') return ErrorCode.KAFKA_STORAGE_ERROR;
    throw e;
  }
}
