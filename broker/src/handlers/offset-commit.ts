import { OffsetCommit } from '../protocol/messages/offset-commit.js';
import { ErrorCode } from '../../../common/errors.js';
import type { CommitPartition } from '../groups/coordinator.js';
import { coordinatesGroup, groupErrorCode } from './group-common.js';
import type { HandlerOf } from './types.js';
import { Op, Resource, authorize } from './authorize.js';


export const offsetCommitHandler: HandlerOf<typeof OffsetCommit> = {
  api: OffsetCommit,
  minVersion: 0,
  maxVersion: 8,
  async handle(req, ctx, b) {
    const v = ctx.apiVersion;
    const topics = req.topics;
    // One result slot per requested partition, in request order.
    const codes: number[][] = topics.map((t) => t.partitions.map(() => ErrorCode.NONE));
    const respond = () => ({
      throttleTimeMs: 0,
      topics: topics.map((t, i) => ({ name: t.name, partitions: t.partitions.map((p, j) => ({ partitionIndex: p.partitionIndex, errorCode: codes[i]![j]! })) })),
    });
    const fillAll = (code: number): void => { for (const c of codes) c.fill(code); };

    // Kafka: READ on the group (every partition fails without it), READ on each topic.
    if (!authorize(ctx, b, Op.READ, Resource.GROUP, req.groupId)) {
      fillAll(ErrorCode.GROUP_AUTHORIZATION_FAILED);
      return respond();
    }
    if (!coordinatesGroup(b, req.groupId)) {
      fillAll(ErrorCode.NOT_COORDINATOR);
      return respond();
    }
    const offsets: CommitPartition[] = [];
    const slots: Array<[number, number]> = [];
    for (let i = 0; i < topics.length; i++) {
      const t = topics[i]!;
      const topic = b.log.cachedTopic(t.name) ?? (await b.log.topic(t.name));
      const topicDenied = !authorize(ctx, b, Op.READ, Resource.TOPIC, t.name);
      t.partitions.forEach((p, j) => {
        if (topicDenied) {
          codes[i]![j] = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
          return;
        }
        if (!topic || p.partitionIndex < 0 || p.partitionIndex >= topic.partitions) {
          codes[i]![j] = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
          return;
        }
        offsets.push({
          topic: t.name,
          partition: p.partitionIndex,
          offset: p.committedOffset,
          leaderEpoch: v >= 6 ? p.committedLeaderEpoch : -1,
          metadata: p.committedMetadata,
          commitTimestamp: v === 1 && p.commitTimestamp !== -1 ? p.commitTimestamp : undefined,
        });
        slots.push([i, j]);
      });
    }
    if (offsets.length === 0) return respond();
    try {
      const results = await b.groups.commitOffsets({
        groupId: req.groupId,
        // v0: no generation or member (commits outside group management).
        generationId: v >= 1 ? req.generationIdOrMemberEpoch : -1,
        memberId: v >= 1 ? req.memberId : '',
        groupInstanceId: v >= 7 ? req.groupInstanceId : null,
        offsets,
      });
      results.forEach((code, k) => { const [i, j] = slots[k]!; codes[i]![j] = code; });
    } catch (e) {
      const code = groupErrorCode(e);
      for (const [i, j] of slots) codes[i]![j] = code;
    }
    return respond();
  },
};
