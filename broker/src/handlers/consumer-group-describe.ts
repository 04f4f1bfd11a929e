// ConsumerGroupDescribe (key 69), v0-v1.
//   v0: consumer-protocol groups (KIP-848): state, group and assignment epochs, the
//       assignor, and each member's epoch, subscription, current and target
//       assignment. A classic or unknown group is GROUP_ID_NOT_FOUND (the admin
//       client then falls back to DescribeGroups).
//   v1: each member's type (KIP-1099): 0 a classic member of a converted group, 1 a consumer-protocol one.
// Needs DESCRIBE on each group; a group this broker does not coordinate is NOT_COORDINATOR.
import { ConsumerGroupDescribe } from '../protocol/messages/consumer-group-describe.js';
import { ErrorCode } from '../../../common/errors.js';
import { coordinatesGroup, groupErrorCode } from './support/group-common.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize, authorizedOperations as operationsOn } from './support/authorize.js';

/** What a group supports (Kafka's AclOperation codes): READ, DELETE, DESCRIBE. */
const GROUP_OPERATIONS = [Op.READ, Op.DELETE, Op.DESCRIBE];
const OMITTED = -2147483648;

export const consumerGroupDescribeHandler: HandlerOf<typeof ConsumerGroupDescribe> = {
  api: ConsumerGroupDescribe,
  minVersion: 0,
  maxVersion: 1,
  async handle(req, ctx, b) {
    const groups = await Promise.all(req.groupIds.map(async (groupId) => {
      const authorizedOperations = req.includeAuthorizedOperations ? operationsOn(ctx, b, Resource.GROUP, groupId, GROUP_OPERATIONS) : OMITTED;
      const failed = (errorCode: number, errorMessage: string | null = null) => ({
        errorCode, errorMessage, groupId, groupState: '', groupEpoch: -1, assignmentEpoch: -1, assignorName: '', members: [], authorizedOperations,
      });
      if (!authorize(ctx, b, Op.DESCRIBE, Resource.GROUP, groupId)) return failed(ErrorCode.GROUP_AUTHORIZATION_FAILED); // Kafka: DESCRIBE on the group
      if (!coordinatesGroup(b, groupId)) return failed(ErrorCode.NOT_COORDINATOR);
      try {
        const d = await b.groups.describeConsumerGroup(groupId);
        if (d.errorCode !== ErrorCode.NONE) return failed(d.errorCode, d.errorMessage);
        return {
          errorCode: ErrorCode.NONE, errorMessage: null, groupId, groupState: d.state, groupEpoch: d.groupEpoch, assignmentEpoch: d.assignmentEpoch,
          assignorName: d.assignorName, authorizedOperations,
          members: d.members.map((m) => ({
            memberId: m.memberId, instanceId: m.instanceId, rackId: m.rackId, memberEpoch: m.memberEpoch, clientId: m.clientId, clientHost: m.clientHost,
            subscribedTopicNames: m.subscribedTopicNames, subscribedTopicRegex: m.subscribedTopicRegex, memberType: m.memberType,
            assignment: { topicPartitions: m.assignment }, targetAssignment: { topicPartitions: m.targetAssignment },
          })),
        };
      } catch (e) {
        return failed(groupErrorCode(e));
      }
    }));
    return { throttleTimeMs: 0, groups };
  },
};
