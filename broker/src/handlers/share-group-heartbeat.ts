// ShareGroupHeartbeat (key 76), v1.
//   v1: share groups (KIP-932; v0 was Kafka 4.0's early access, removed in
//       4.1): a member joins with epoch 0 and its own member id, heartbeats
//       with its epoch and leaves with -1; the answer carries its epoch, the
//       heartbeat interval and, when it changed, its assignment (the simple
//       assignor: several members may share a partition).
// Needs READ on the group; a group this broker does not coordinate is NOT_COORDINATOR;
// a group id a classic or consumer group has is GROUP_ID_NOT_FOUND (not a share group).
import { ShareGroupHeartbeat } from '../protocol/messages/share-group-heartbeat.js';
import { ErrorCode } from '../../../common/errors.js';
import { coordinatesGroup, groupErrorCode } from './support/group-common.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';
import { invalidShareHeartbeat } from '../groups/share/share-group.js';
import type { BrokerServices } from './support/types.js';

/** Whether a classic group (with members or offsets) or a consumer group has the id. */
async function isOtherGroup(b: BrokerServices, groupId: string): Promise<boolean> {
  if ((await b.groups.describeGroup(groupId)).state !== 'Dead') return true;
  return (await b.groups.describeConsumerGroup(groupId)).errorCode === ErrorCode.NONE;
}

export const shareGroupHeartbeatHandler: HandlerOf<typeof ShareGroupHeartbeat> = {
  api: ShareGroupHeartbeat,
  minVersion: 1,
  maxVersion: 1,
  async handle(req, ctx, b) {
    const failed = (errorCode: number, errorMessage: string | null = null) =>
      ({ throttleTimeMs: 0, errorCode, errorMessage, memberId: null, memberEpoch: -1, heartbeatIntervalMs: 0, assignment: null });
    if (!b.shares) return failed(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    if (!authorize(ctx, b, Op.READ, Resource.GROUP, req.groupId)) return failed(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    const invalid = invalidShareHeartbeat(req);
    if (invalid !== null) return failed(ErrorCode.INVALID_REQUEST, invalid);
    if (!coordinatesGroup(b, req.groupId)) return failed(ErrorCode.NOT_COORDINATOR);
    try {
      // Kafka: a group of another type is not made a share group.
      if (req.memberEpoch === 0 && !(await b.shares.admin.exists(req.groupId)) && await isOtherGroup(b, req.groupId)) {
        return failed(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${req.groupId} is not a share group.`);
      }
      await b.shares.configs.load(req.groupId); // its group configs (session timeout, heartbeat interval)
      const r = await b.shares.coordinator.heartbeat(req.groupId, {
        memberId: req.memberId, memberEpoch: req.memberEpoch, rackId: req.rackId, subscribedTopicNames: req.subscribedTopicNames,
        clientId: ctx.clientId ?? '', clientHost: `/${ctx.session.clientAddress}`,
      });
      return {
        throttleTimeMs: 0, errorCode: r.errorCode, errorMessage: r.errorMessage, memberId: r.memberId, memberEpoch: r.memberEpoch, heartbeatIntervalMs: r.heartbeatIntervalMs,
        assignment: r.assignment === null ? null : { topicPartitions: [...r.assignment].map(([topicId, partitions]) => ({ topicId, partitions })) },
      };
    } catch (e) {
      return failed(groupErrorCode(e));
    }
  },
};
