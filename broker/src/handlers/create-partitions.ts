// CreatePartitions (key 37), v0-v3.
//   v0-v1: raises topics' partition counts, or only validates (validateOnly); v1 is
//       answered before throttling.
//   v2: flexible encoding.
//   v3: THROTTLING_QUOTA_EXCEEDED becomes a possible error (KIP-599).
// Needs ALTER on each topic. Internal topics follow offsets.topic.num.partitions and
// are refused; the partition limits are checked before anything is written.
import { CreatePartitions } from '../protocol/messages/create-partitions.js';
import { isInternalTopic } from '../log/internal-topics.js';
import { ErrorCode } from '../../../common/errors.js';
import { partitionLimitError, quarantinedCount, totalPartitions } from '../topics/partition-limits.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';


export const createPartitionsHandler: HandlerOf<typeof CreatePartitions> = {
  api: CreatePartitions,
  minVersion: 0,
  maxVersion: 3,
  async handle(req, ctx, b) {
    const results = [];
    for (const rt of req.topics) {
      const result = (errorCode: number, errorMessage: string | null) => ({ name: rt.name, errorCode, errorMessage });
      // Kafka: ALTER on the topic.
      if (!authorize(ctx, b, Op.ALTER, Resource.TOPIC, rt.name)) {
        results.push(result(ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Authorization failed.'));
        continue;
      }
      const t = await b.log.topic(rt.name);
      if (!t) {
        results.push(result(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${rt.name}' does not exist.`));
        continue;
      }
      if (isInternalTopic(t.name)) {
        // One partition per coordinator slot (offsets.topic.num.partitions): its count is not the client's to change.
        results.push(result(ErrorCode.INVALID_REQUEST, `Topic ${t.name} is an internal topic; its partition count follows offsets.topic.num.partitions`));
        continue;
      }
      if (quarantinedCount(t) !== null) {
        results.push(result(ErrorCode.INVALID_PARTITIONS, `Topic '${rt.name}' has an unusable stored partition count; delete it.`));
        continue;
      }
      if (rt.count <= t.partitions) {
        results.push(result(ErrorCode.INVALID_PARTITIONS, `Topic currently has ${t.partitions} partitions, which is higher than the requested ${rt.count}.`));
        continue;
      }
      // The limits are checked before anything is written; the cluster total is read only for plausible counts.
      const others = rt.count > b.config.topicMaxPartitions ? 0 : totalPartitions((await b.log.allTopics()).filter((x) => !isInternalTopic(x.name)));
      const limit = partitionLimitError(b.config, rt.name, rt.count, rt.count - t.partitions, others);
      if (limit) {
        results.push(result(limit.code, limit.message));
        continue;
      }
      if (!req.validateOnly) await b.log.updateTopic({ ...t, partitions: rt.count });
      results.push(result(ErrorCode.NONE, null));
    }
    return { throttleTimeMs: 0, results };
  },
};
