// DeleteRecords (key 21), v0-v2.
//   v0-v1: moves partitions' log start offset up to an offset (-1: the high
//       watermark) and answers the new low watermark; v1 is answered before throttling.
//   v2: flexible encoding.
// Needs DELETE on the topic. Internal topics are refused (INVALID_TOPIC_EXCEPTION, as
// Kafka's ReplicaManager); an offset above the high watermark is OFFSET_OUT_OF_RANGE.
import { DeleteRecords } from '../protocol/messages/delete-records.js';
import { isInternalTopic } from '../log/internal-topics.js';
import { ErrorCode, KafkaError } from '../../../common/errors.js';
import type { HandlerOf } from './support/types.js';
import type { Element, ResponseOf } from '../protocol/typed.js';

type PartitionAnswer = Element<Element<ResponseOf<typeof DeleteRecords>['topics']>['partitions']>;
import { Op, Resource, authorize } from './support/authorize.js';


export const deleteRecordsHandler: HandlerOf<typeof DeleteRecords> = {
  api: DeleteRecords,
  minVersion: 0,
  maxVersion: 2,
  async handle(req, ctx, b) {
    const topics = [];
    for (const rt of req.topics) {
      const partitions = [];
      const allowed = authorize(ctx, b, Op.DELETE, Resource.TOPIC, rt.name); // Kafka: DELETE on the topic
      for (const rp of rt.partitions) {
        const out: PartitionAnswer = { partitionIndex: rp.partitionIndex, lowWatermark: -1, errorCode: ErrorCode.NONE };
        try {
          if (!allowed) throw new KafkaError(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
          // Kafka (ReplicaManager): "Cannot delete records of internal topic".
          if (isInternalTopic(rt.name)) throw new KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, `Cannot delete records of internal topic ${rt.name}`);
          const p = await b.log.partition(rt.name, rp.partitionIndex);
          await p.ensureLoaded();
          const target = rp.offset === -1 ? p.highWatermark : rp.offset;
          if (target < 0 || target > p.highWatermark) out.errorCode = ErrorCode.OFFSET_OUT_OF_RANGE;
          else {
            // A tiered partition's log start may move within the lake (the Redis part stays); past it, both starts move.
            if (p.remoteLogStartOffset !== null) await b.log.advanceRemoteLogStart(p, target);
            else await b.log.advanceLogStart(p, target);
            out.lowWatermark = p.earliestOffset;
          }
        } catch (e) {
          if (!(e instanceof KafkaError)) throw e;
          out.errorCode = e.code;
        }
        partitions.push(out);
      }
      topics.push({ name: rt.name, partitions });
    }
    return { throttleTimeMs: 0, topics };
  },
};
