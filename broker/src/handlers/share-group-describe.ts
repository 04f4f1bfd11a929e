// ShareGroupDescribe (key 77), v1.
//   v1: share groups (KIP-932; v0 was Kafka 4.0's early access): each
//       group's state, epochs, assignor and members with their assignments.
// Needs DESCRIBE on each group; an unknown group (or one of another type) is
// GROUP_ID_NOT_FOUND; one with stored state and no member here is Empty.
import { ShareGroupDescribe } from '../protocol/messages/share-group-describe.js';
import { ErrorCode } from '../../../common/errors.js';
import { coordinatesGroup } from './support/group-common.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';

export const shareGroupDescribeHandler: HandlerOf<typeof ShareGroupDescribe> = {
  api: ShareGroupDescribe,
  minVersion: 1,
  maxVersion: 1,
  async handle(req, ctx, b) {
    const groups = await Promise.all(req.groupIds.map(async (groupId) => {
      const none = { groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [], authorizedOperations: -2147483648 };
      if (!authorize(ctx, b, Op.DESCRIBE, Resource.GROUP, groupId)) return { ...none, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: null };
      if (!b.shares) return { ...none, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: null };
      if (!coordinatesGroup(b, groupId)) return { ...none, errorCode: ErrorCode.NOT_COORDINATOR, errorMessage: null };
      let d = await b.shares.coordinator.describe(groupId);
      // A share group with stored state and no member here (its members left, or this coordinator restarted): Empty.
      if (d.errorCode === ErrorCode.GROUP_ID_NOT_FOUND && await b.shares.admin.exists(groupId)) {
        d = { ...d, errorCode: ErrorCode.NONE, errorMessage: null, state: 'Empty', groupEpoch: 0, assignmentEpoch: 0, assignorName: 'simple' };
      }
      return {
        errorCode: d.errorCode, errorMessage: d.errorMessage, groupId, groupState: d.state, groupEpoch: d.groupEpoch, assignmentEpoch: d.assignmentEpoch,
        assignorName: d.assignorName, authorizedOperations: -2147483648,
        members: d.members.map((m) => ({
          memberId: m.memberId, rackId: m.rackId, memberEpoch: m.memberEpoch, clientId: m.clientId, clientHost: m.clientHost,
          subscribedTopicNames: m.subscribedTopicNames, assignment: { topicPartitions: m.assignment },
        })),
      };
    }));
    return { throttleTimeMs: 0, groups };
  },
};
