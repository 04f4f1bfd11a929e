// WriteTxnMarkers (key 27), v0-v1.
//   v0: commit or abort markers of producers' transactions, for partitions.
//   v1: flexible encoding.
// Sent by a transaction coordinator, or by `kafka-transactions abort`
// (Admin.abortTransaction), to each partition's leader; needs CLUSTER_ACTION. Kafka's
// handleWriteTxnMarkersRequest: the markers of one request are written in request
// order, the partitions of one marker in parallel; a partition this broker does not
// lead answers NOT_LEADER_OR_FOLLOWER (the coordinator finds the leader again and
// retries). For a `__consumer_offsets` partition the group coordinator's pending
// transactional offsets of that producer are completed after the marker is stored.
import { ErrorCode } from '../../../common/errors.js';
import { WriteTxnMarkers } from '../protocol/messages/write-txn-markers.js';
import type { TxnMarker } from '../log/txn-marker.js';
import { writeMarkerHere } from '../transactions/local-marker.js';
import type { HandlerOf } from './support/types.js';
import { Op, authorizeCluster } from './support/authorize.js';

export const writeTxnMarkersHandler: HandlerOf<typeof WriteTxnMarkers> = {
  api: WriteTxnMarkers,
  minVersion: 0,
  maxVersion: 1,
  async handle(req, ctx, b) {
    const markers = [];
    // Kafka: CLUSTER_ACTION on the cluster (brokers and admins only); every partition fails without it.
    const allowed = authorizeCluster(ctx, b, Op.CLUSTER_ACTION);
    for (const m of req.markers) {
      const marker: TxnMarker = { producerId: m.producerId, producerEpoch: m.producerEpoch, commit: m.transactionResult, coordinatorEpoch: m.coordinatorEpoch };
      const topics = [];
      for (const t of m.topics) {
        const partitions = await Promise.all(t.partitionIndexes.map(async (index) => ({
          partitionIndex: index, errorCode: allowed ? await writeMarkerHere(b, t.name, index, marker) : ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        })));
        topics.push({ name: t.name, partitions });
      }
      markers.push({ producerId: m.producerId, topics });
    }
    return { markers };
  },
};
