// DeleteGroups (key 42), v0-v2.
//   v0-v1: deletes groups and their offsets, one error per group; v1 is answered
//       before throttling.
//   v2: flexible encoding.
// Needs DELETE on each group. The group coordinator refuses a group with members
// (NON_EMPTY_GROUP); a group this broker does not coordinate is NOT_COORDINATOR.
// An empty share group (KIP-932) goes with its share-partitions' state.
import { DeleteGroups } from '../protocol/messages/delete-groups.js';
import { ErrorCode } from '../../../common/errors.js';
import { coordinatesGroup, groupErrorCode } from './support/group-common.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';

export const deleteGroupsHandler: HandlerOf<typeof DeleteGroups> = {
  api: DeleteGroups,
  minVersion: 0,
  maxVersion: 2,
  async handle(req, ctx, b) {
    const results = await Promise.all(req.groupsNames.map(async (groupId) => {
      if (!authorize(ctx, b, Op.DELETE, Resource.GROUP, groupId)) return { groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED }; // Kafka: DELETE on the group
      if (!coordinatesGroup(b, groupId)) return { groupId, errorCode: ErrorCode.NOT_COORDINATOR };
      try {
        if (b.shares && await b.shares.admin.exists(groupId)) return { groupId, errorCode: await b.shares.admin.deleteGroup(groupId) };
        return { groupId, errorCode: await b.groups.deleteGroup(groupId) };
      } catch (e) {
        return { groupId, errorCode: groupErrorCode(e) };
      }
    }));
    return { throttleTimeMs: 0, results };
  },
};
