// OffsetCommit (key 8), v0-v9.
//   v0: commits outside group management (no generation or member).
//   v1: generation and member id; a commit timestamp per partition.
//   v2-v4: a retention time instead of the timestamp; v3 adds the throttle time, v4
//       is answered before throttling.
//   v5: no retention time: the broker's offsets.retention.minutes alone decides.
//   v6: the leader epoch of each offset (KIP-320).
//   v7: group.instance.id (static membership, KIP-345).
//   v8: flexible encoding.
//   v9: GenerationIdOrMemberEpoch may carry a consumer-protocol member's epoch
//       (KIP-848): a stale one is STALE_MEMBER_EPOCH; such members need v9+
//       (UNSUPPORTED_VERSION below).
// Needs READ on the group and on each topic. The retention time of v2-v4 is ignored.
import { OffsetCommit } from '../protocol/messages/offset-commit.js';
import { ErrorCode } from '../../../common/errors.js';
import { commitPartitions } from './support/group-common.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';

export const offsetCommitHandler: HandlerOf<typeof OffsetCommit> = {
  api: OffsetCommit,
  minVersion: 0,
  maxVersion: 9,
  async handle(req, ctx, b) {
    const v = ctx.apiVersion;
    // Kafka: READ on the group (every partition fails without it), READ on each topic.
    const refused = !authorize(ctx, b, Op.READ, Resource.GROUP, req.groupId) ? ErrorCode.GROUP_AUTHORIZATION_FAILED : null;
    return commitPartitions(
      ctx,
      b,
      req,
      refused,
      (topic, p) => ({
        topic,
        partition: p.partitionIndex,
        offset: p.committedOffset,
        leaderEpoch: v >= 6 ? p.committedLeaderEpoch : -1,
        metadata: p.committedMetadata,
        commitTimestamp: v === 1 && p.commitTimestamp !== -1 ? p.commitTimestamp : undefined,
      }),
      (offsets) =>
        b.groups.commitOffsets({
          groupId: req.groupId,
          // v0: no generation or member (commits outside group management).
          generationId: v >= 1 ? req.generationIdOrMemberEpoch : -1,
          memberId: v >= 1 ? req.memberId : '',
          groupInstanceId: v >= 7 ? req.groupInstanceId : null,
          offsets,
          apiVersion: v,
        }),
    );
  },
};
