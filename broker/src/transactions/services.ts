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
    const addr = this.coordinatorOf(transactionalId);
    if (!addr) return ErrorCode.NOT_COORDINATOR;
    try {
      const res = await this.client.request(addr, AddPartitionsToTxn, 4, {
        transactions: [{ transactionalId, producerId, producerEpoch, verifyOnly: true, topics: [{ name: tp.topic, partitions: [tp.partition] }] }],
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
