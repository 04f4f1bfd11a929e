// OffsetDelete (key 47), v0.
//   v0: deletes a group's committed offsets of some partitions (KIP-496).
// Needs DELETE on the group and READ on each topic; the group coordinator answers
// per partition.
import { OffsetDelete } from '../protocol/messages/offset-delete.js';
import { ErrorCode } from '../../../common/errors.js';
import { coordinatesGroup, groupErrorCode } from './support/group-common.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';

export const offsetDeleteHandler: HandlerOf<typeof OffsetDelete> = {
  api: OffsetDelete,
  minVersion: 0,
  maxVersion: 0,
  async handle(req, ctx, b) {
    const topics = req.topics;
    const groupError = (errorCode: number) => ({ errorCode, throttleTimeMs: 0, topics: [] });
    // Kafka: DELETE on the group, READ on each topic.
    if (!authorize(ctx, b, Op.DELETE, Resource.GROUP, req.groupId)) return groupError(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    if (!coordinatesGroup(b, req.groupId)) return groupError(ErrorCode.NOT_COORDINATOR);
    const codes: number[][] = [];
    const known: Array<{ topic: string; partition: number; slot: [number, number] }> = [];
    for (let i = 0; i < topics.length; i++) {
      const t = topics[i]!;
      const topic = b.log.cachedTopic(t.name) ?? (await b.log.topic(t.name));
      const topicDenied = !authorize(ctx, b, Op.READ, Resource.TOPIC, t.name);
      codes.push(t.partitions.map((p, j) => {
        if (topicDenied) return ErrorCode.TOPIC_AUTHORIZATION_FAILED;
        if (!topic || p.partitionIndex < 0 || p.partitionIndex >= topic.partitions) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        known.push({ topic: t.name, partition: p.partitionIndex, slot: [i, j] });
        return ErrorCode.NONE;
      }));
    }
    try {
      const r = await b.groups.deleteOffsets(req.groupId, known.map(({ topic, partition }) => ({ topic, partition })));
      if (r.errorCode !== ErrorCode.NONE) return groupError(r.errorCode);
      r.partitions.forEach((code, k) => { const [i, j] = known[k]!.slot; codes[i]![j] = code; });
    } catch (e) {
      return groupError(groupErrorCode(e));
    }
    return {
      errorCode: ErrorCode.NONE,
      throttleTimeMs: 0,
      topics: topics.map((t, i) => ({ name: t.name, partitions: t.partitions.map((p, j) => ({ partitionIndex: p.partitionIndex, errorCode: codes[i]![j]! })) })),
    };
  },
};
