// AlterShareGroupOffsets (key 91), v0.
//   v0: sets the start offset (SPSO) of share-partitions of an empty share
//       group (KIP-932, kafka-share-groups --reset-offsets); nothing is in
//       flight afterwards. A group with members is NON_EMPTY_GROUP.
// Needs READ on the group and on each topic; a group this broker does not
// coordinate is NOT_COORDINATOR.
import { AlterShareGroupOffsets } from '../protocol/messages/alter-share-group-offsets.js';
import { ErrorCode } from '../../../common/errors.js';
import { coordinatesGroup } from './support/group-common.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';
import { ZERO_UUID } from '../protocol/uuid.js';
import { codeOf } from './support/share-common.js';

export const alterShareGroupOffsetsHandler: HandlerOf<typeof AlterShareGroupOffsets> = {
  api: AlterShareGroupOffsets,
  minVersion: 0,
  maxVersion: 0,
  async handle(req, ctx, b) {
    const fail = (errorCode: number, errorMessage: string | null = null) => ({ throttleTimeMs: 0, errorCode, errorMessage, responses: [] });
    if (!authorize(ctx, b, Op.READ, Resource.GROUP, req.groupId)) return fail(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    if (!b.shares) return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    if (!coordinatesGroup(b, req.groupId)) return fail(ErrorCode.NOT_COORDINATOR);
    const admin = b.shares.admin;
    const busy = await admin.emptyOrError(req.groupId);
    if (busy !== null) return fail(busy, 'The share group has members: offsets can only be altered in an empty group.');
    const responses = [];
    for (const rt of req.topics) {
      const t = await b.log.topic(rt.topicName);
      const denied = !authorize(ctx, b, Op.READ, Resource.TOPIC, rt.topicName);
      const partitions = [];
      for (const rp of rt.partitions) {
        let errorCode: number = ErrorCode.NONE;
        if (denied) errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
        else if (!t || rp.partitionIndex < 0 || rp.partitionIndex >= t.partitions) errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        else {
          try {
            await admin.alter(req.groupId, t.id, rp.partitionIndex, rp.startOffset);
          } catch (e) {
            errorCode = codeOf(e);
          }
        }
        partitions.push({ partitionIndex: rp.partitionIndex, errorCode, errorMessage: null });
      }
      responses.push({ topicName: rt.topicName, topicId: t?.id ?? ZERO_UUID, partitions });
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, responses };
  },
};
