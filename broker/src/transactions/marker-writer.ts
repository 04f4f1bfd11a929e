// MarkerWriter (types.ts): a marker goes into the partition on this broker
// when it leads the partition, else to the partition's leader as
// WriteTxnMarkers (api key 27) over the Kafka protocol. The leader of a
// `__consumer_offsets` partition is its coordinator slot's holder.
import { ErrorCode, kafkaErrorCodeOf, type KafkaErrorCode } from '../../../common/errors.js';
import type { Logger } from '../../../common/logger/logger.js';
import { WriteTxnMarkers } from '../protocol/messages/write-txn-markers.js';
import type { TopicPartition } from '../storage/log-store.js';
import type { BrokerAddress, BrokerClient } from './broker-client.js';
import type { MarkerWriter } from './types.js';
import type { TxnMarker } from '../log/txn-marker.js';

export interface MarkerRouting {
  nodeId: number;
  /** The partition's leader as last observed, null when none. */
  leaderOf(tp: TopicPartition): number | null;
  addressOf(nodeId: number): BrokerAddress | null;
  /** Appends the marker locally (the partition side); absent: markers to this broker's own partitions go over the wire too. */
  local?: (tp: TopicPartition, marker: TxnMarker) => Promise<KafkaErrorCode>;
}

export class KafkaMarkerWriter implements MarkerWriter {
  constructor(private readonly routing: MarkerRouting, private readonly client: BrokerClient, private readonly logger?: Logger) {}

  async writeMarker(tp: TopicPartition, marker: TxnMarker): Promise<KafkaErrorCode> {
    const leader = this.routing.leaderOf(tp);
    if (leader === null) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
    if (leader === this.routing.nodeId && this.routing.local) return this.routing.local(tp, marker);
    const addr = this.routing.addressOf(leader);
    if (!addr) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
    try {
      const res = await this.client.request(addr, WriteTxnMarkers, 1, {
        markers: [{
          producerId: marker.producerId, producerEpoch: marker.producerEpoch, transactionResult: marker.commit,
          topics: [{ name: tp.topic, partitionIndexes: [tp.partition] }], coordinatorEpoch: marker.coordinatorEpoch,
        }],
      });
      const code = res.markers?.[0]?.topics?.[0]?.partitions?.find((p) => p.partitionIndex === tp.partition)?.errorCode;
      return kafkaErrorCodeOf(code);
    } catch (e) {
      this.logger?.debug('WriteTxnMarkers failed', { topic: tp.topic, partition: tp.partition, leader, err: String(e) });
      return ErrorCode.NOT_LEADER_OR_FOLLOWER;
    }
  }
}
