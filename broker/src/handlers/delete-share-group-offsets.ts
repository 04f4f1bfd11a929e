// DeleteShareGroupOffsets (key 92), v0.
//   v0: removes the state of whole topics from an empty share group (KIP-932,
//       kafka-share-groups --delete-offsets); the share-partitions start again
//       by share.auto.offset.reset when next fetched. A group with members is
//       NON_EMPTY_GROUP.
// Needs DELETE on the group and READ on each topic; a group this broker does
// not coordinate is NOT_COORDINATOR.
import { DeleteShareGroupOffsets } from '../protocol/messages/delete-share-group-offsets.js';
import { ErrorCode } from '../../../common/errors.js';
import { coordinatesGroup } from './support/group-common.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';
import { ZERO_UUID } from '../protocol/uuid.js';
import { codeOf } from './support/share-common.js';

export const deleteShareGroupOffsetsHandler: HandlerOf<typeof DeleteShareGroupOffsets> = {
  api: DeleteShareGroupOffsets,
  minVersion: 0,
  maxVersion: 0,
  async handle(req, ctx, b) {
    const fail = (errorCode: number, errorMessage: string | null = null) => ({ throttleTimeMs: 0, errorCode, errorMessage, responses: [] });
    if (!authorize(ctx, b, Op.DELETE, Resource.GROUP, req.groupId)) return fail(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    if (!b.shares) return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    if (!coordinatesGroup(b, req.groupId)) return fail(ErrorCode.NOT_COORDINATOR);
    const admin = b.shares.admin;
    if (!(await admin.exists(req.groupId))) return fail(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${req.groupId} not found.`);
    const busy = await admin.emptyOrError(req.groupId);
    if (busy !== null) return fail(busy, 'The share group has members: offsets can only be deleted in an empty group.');
    const responses = [];
    for (const rt of req.topics) {
      const t = await b.log.topic(rt.topicName);
      let errorCode: number = ErrorCode.NONE;
      if (!authorize(ctx, b, Op.READ, Resource.TOPIC, rt.topicName)) errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
      else if (!t) errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      else {
        try {
          await admin.deleteTopic(req.groupId, t.id);
        } catch (e) {
          errorCode = codeOf(e);
        }
      }
      responses.push({ topicName: rt.topicName, topicId: t?.id ?? ZERO_UUID, errorCode, errorMessage: null });
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, responses };
  },
};
