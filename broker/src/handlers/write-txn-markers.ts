// WriteTxnMarkers (api 27): a transaction coordinator, or `kafka-transactions
// abort` (Admin.abortTransaction), asks the leader of each partition to write
// the commit or abort marker of a producer's transaction. Kafka's
// handleWriteTxnMarkersRequest: the markers of one request are written in
// request order, the partitions of one marker in parallel; a partition this
// broker does not lead answers NOT_LEADER_OR_FOLLOWER (the coordinator looks
// the leader up again and retries). For a partition of `__consumer_offsets`
// the group coordinator's pending transactional offset commits of that
// producer are completed after the marker is stored.
import { WriteTxnMarkers } from '../protocol/messages/write-txn-markers.js';
import { ErrorCode, KafkaError, RunnelError, type KafkaErrorCode } from '../errors.js';
import { OFFSETS_TOPIC } from '../log/internal-topics.js';
import type { TxnMarker } from '../transactions/types.js';
import type { BrokerServices, Handler } from './types.js';

interface MarkerReq {
  producerId: number;
  producerEpoch: number;
  transactionResult: boolean;
  topics: Array<{ name: string; partitionIndexes: number[] }>;
  coordinatorEpoch: number;
}

export const writeTxnMarkersHandler: Handler = {
  api: WriteTxnMarkers,
  minVersion: 0,
  maxVersion: 1,
  async handle(req, _ctx, b) {
    const markers = [];
    for (const m of req.markers as MarkerReq[]) {
      const marker: TxnMarker = { producerId: m.producerId, producerEpoch: m.producerEpoch, commit: m.transactionResult, coordinatorEpoch: m.coordinatorEpoch };
      const topics = [];
      for (const t of m.topics) {
        const partitions = await Promise.all(t.partitionIndexes.map(async (index) => ({ partitionIndex: index, errorCode: await writeOne(b, t.name, index, marker) })));
        topics.push({ name: t.name, partitions });
      }
      markers.push({ producerId: m.producerId, topics });
    }
    return { markers };
  },
};

async function writeOne(b: BrokerServices, topic: string, index: number, marker: TxnMarker): Promise<KafkaErrorCode> {
  try {
    const p = await b.log.partition(topic, index);
    const out = await p.appendMarker(marker);
    if (out.errorCode !== ErrorCode.NONE) {
      b.logger.warn('transaction marker refused', { topic, partition: index, producerId: marker.producerId, code: out.errorCode, reason: out.errorMessage });
      return out.errorCode;
    }
    if (topic === OFFSETS_TOPIC) await b.txn.completeTxnOffsets(index, marker);
    return ErrorCode.NONE;
  } catch (e) {
    if (e instanceof KafkaError) return e.code;
    if (e instanceof RunnelError && e.kind === 'STORAGE_UNAVAILABLE') return ErrorCode.KAFKA_STORAGE_ERROR;
    throw e;
  }
}
