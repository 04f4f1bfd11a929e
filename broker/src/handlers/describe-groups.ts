// DescribeGroups (key 15), v0-v5.
//   v0-v2: each group's state, protocol and members; v1 adds the throttle time, v2
//       is answered before throttling.
//   v3: the principal's operations on the group, when asked.
//   v4: each member's group.instance.id.
//   v5: flexible encoding.
// Needs DESCRIBE on each group; a group this broker does not coordinate is
// NOT_COORDINATOR.
import { DescribeGroups } from '../protocol/messages/describe-groups.js';
import { ErrorCode } from '../../../common/errors.js';
import { coordinatesGroup, groupErrorCode } from './support/group-common.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize, authorizedOperations as operationsOn } from './support/authorize.js';

/** What a group supports (Kafka's AclOperation codes): READ, DELETE, DESCRIBE. */
const GROUP_OPERATIONS = [Op.READ, Op.DELETE, Op.DESCRIBE];
const OMITTED = -2147483648;

export const describeGroupsHandler: HandlerOf<typeof DescribeGroups> = {
  api: DescribeGroups,
  minVersion: 0,
  maxVersion: 5,
  async handle(req, ctx, b) {
    const withOperations = ctx.apiVersion >= 3 && req.includeAuthorizedOperations;
    const groups = await Promise.all(req.groups.map(async (groupId) => {
      // v3+: the operations the principal may perform on the group, when asked (all of them with authorization off).
      const authorizedOperations = withOperations ? operationsOn(ctx, b, Resource.GROUP, groupId, GROUP_OPERATIONS) : OMITTED;
      const failed = (errorCode: number) => ({ errorCode, groupId, groupState: '', protocolType: '', protocolData: '', members: [], authorizedOperations });
      if (!authorize(ctx, b, Op.DESCRIBE, Resource.GROUP, groupId)) return failed(ErrorCode.GROUP_AUTHORIZATION_FAILED); // Kafka: DESCRIBE on the group
      if (!coordinatesGroup(b, groupId)) return failed(ErrorCode.NOT_COORDINATOR);
      try {
        const d = await b.groups.describeGroup(groupId);
        return {
          errorCode: ErrorCode.NONE,
          groupId,
          groupState: d.state,
          protocolType: d.protocolType,
          protocolData: d.protocolData,
          members: d.members.map((m) => ({
            memberId: m.memberId, groupInstanceId: m.groupInstanceId, clientId: m.clientId, clientHost: m.clientHost,
            memberMetadata: m.metadata, memberAssignment: m.assignment,
          })),
          authorizedOperations,
        };
      } catch (e) {
        return failed(groupErrorCode(e));
      }
    }));
    return { throttleTimeMs: 0, groups };
  },
};
