// OffsetForLeaderEpoch (key 23), v2-v4.
//   v2: the oldest served: the current leader epoch, for fencing; the end offset and
//       leader epoch in the answer (from v1); the throttle time.
//   v3: a replica id (-2 for a consumer).
//   v4: flexible encoding.
// Needs CLUSTER_ACTION on the cluster or DESCRIBE on the topic (KIP-320); the end
// offset comes from the partition's leader epoch history.
import { OffsetForLeaderEpoch } from '../protocol/messages/offset-for-leader-epoch.js';
import { ErrorCode, KafkaError } from '../../../common/errors.js';
import type { HandlerOf } from './support/types.js';
import type { Element, ResponseOf } from '../protocol/typed.js';

type PartitionAnswer = Element<Element<ResponseOf<typeof OffsetForLeaderEpoch>['topics']>['partitions']>;
import { Op, Resource, authorize, authorizeCluster } from './support/authorize.js';

export const offsetForLeaderEpochHandler: HandlerOf<typeof OffsetForLeaderEpoch> = {
  api: OffsetForLeaderEpoch,
  minVersion: 2,
  maxVersion: 4,
  async handle(req, ctx, b) {
    const topics = [];
    for (const rt of req.topics) {
      const partitions = [];
      // Kafka (KIP-320): CLUSTER_ACTION on the cluster (brokers) or DESCRIBE on the topic (consumers).
      const allowed = authorizeCluster(ctx, b, Op.CLUSTER_ACTION) || authorize(ctx, b, Op.DESCRIBE, Resource.TOPIC, rt.topic);
      for (const rp of rt.partitions) {
        const out: PartitionAnswer = { errorCode: ErrorCode.NONE, partition: rp.partition, leaderEpoch: -1, endOffset: -1 };
        try {
          if (!allowed) throw new KafkaError(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
          const p = await b.log.partition(rt.topic, rp.partition);
          await p.ensureLoaded();
          if (rp.currentLeaderEpoch >= 0 && rp.currentLeaderEpoch !== p.leaderEpoch) {
            out.errorCode = rp.currentLeaderEpoch > p.leaderEpoch ? ErrorCode.UNKNOWN_LEADER_EPOCH : ErrorCode.FENCED_LEADER_EPOCH;
          } else {
            const r = p.endOffsetForEpoch(rp.leaderEpoch);
            out.leaderEpoch = r.epoch;
            out.endOffset = r.endOffset;
          }
        } catch (e) {
          if (!(e instanceof KafkaError)) throw e;
          out.errorCode = e.code;
        }
        partitions.push(out);
      }
      topics.push({ topic: rt.topic, partitions });
    }
    return { throttleTimeMs: 0, topics };
  },
};
