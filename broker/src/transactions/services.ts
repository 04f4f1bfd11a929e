// TransactionServices (types.ts) for the partition side: KIP-890
// verification at the transactional id's coordinator (this broker, or
// another one through AddPartitionsToTxn v4 with VerifyOnly), and completion
// of transactional offset commits when a marker reaches `__consumer_offsets`.
import { ErrorCode, kafkaErrorCodeOf, type KafkaErrorCode } from '../../../common/errors.js';
import type { GroupCoordinator } from '../groups/coordinator.js';
import { AddPartitionsToTxn } from '../protocol/messages/add-partitions-to-txn.js';
import type { TopicPartition } from '../storage/log-store.js';
import type { BrokerAddress, BrokerClient } from './broker-client.js';
import type { TransactionCoordinator } from './coordinator.js';
import type { TransactionServices } from './types.js';
import type { TxnMarker } from '../log/txn-marker.js';

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
    return this.remote(transactionalId, producerId, producerEpoch, tp, true);
  }

  async addPartition(transactionalId: string, producerId: number, producerEpoch: number, tp: TopicPartition): Promise<KafkaErrorCode> {
    if (this.coordinator.isLocal(transactionalId)) return this.coordinator.addPartition(transactionalId, producerId, producerEpoch, tp);
    return this.remote(transactionalId, producerId, producerEpoch, tp, false);
  }

  /**
   * The id's coordinator on another broker, as Kafka's brokers ask it:
   * AddPartitionsToTxn v4 with VerifyOnly (KIP-890 part 1), v5 without it for
   * the implicit add of transactions v2 (the coordinator takes v4+ without
   * VerifyOnly for a v2 client's).
   */
  private async remote(transactionalId: string, producerId: number, producerEpoch: number, tp: TopicPartition, verifyOnly: boolean): Promise<KafkaErrorCode> {
    const addr = this.coordinatorOf(transactionalId);
    if (!addr) return ErrorCode.NOT_COORDINATOR;
    try {
      const res = await this.client.request(addr, AddPartitionsToTxn, verifyOnly ? 4 : 5, {
        transactions: [{ transactionalId, producerId, producerEpoch, verifyOnly, topics: [{ name: tp.topic, partitions: [tp.partition] }] }],
      });
      if (res.errorCode !== ErrorCode.NONE) return kafkaErrorCodeOf(res.errorCode);
      const code = res.resultsByTransaction?.[0]?.topicResults?.[0]?.resultsByPartition?.[0]?.partitionErrorCode;
      return kafkaErrorCodeOf(code);
    } catch {
      return ErrorCode.NOT_COORDINATOR;
    }
  }

  completeTxnOffsets(slot: number, marker: TxnMarker): Promise<void> {
    return this.groups.completeTxnOffsets(slot, marker.producerId, marker.commit);
  }
}
