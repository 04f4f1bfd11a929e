// ConsumerGroupHeartbeat (key 68), v0-v1.
//   v0: the consumer group protocol (KIP-848): a member joins with epoch 0 (the
//       coordinator generates its member id), heartbeats with its member epoch,
//       leaves with -1 (-2: a static member leaving for now); the answer carries
//       its epoch, the heartbeat interval and, when it changed, its assignment,
//       computed by a server-side assignor (uniform, range).
//   v1: SubscribedTopicRegex (regular-expression subscriptions); the member
//       generates its own member id, which must be set when it joins (KIP-1082).
// Needs READ on the group; a group this broker does not coordinate is NOT_COORDINATOR.
import { ConsumerGroupHeartbeat } from '../protocol/messages/consumer-group-heartbeat.js';
import { ErrorCode } from '../../../common/errors.js';
import { coordinatesGroup, groupErrorCode, isShareGroup } from './support/group-common.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';
import type { RequestOf } from '../protocol/typed.js';

type Req = RequestOf<typeof ConsumerGroupHeartbeat>;

/** Kafka's throwIfConsumerGroupHeartbeatRequestIsInvalid: the message of an INVALID_REQUEST, or null. */
export function invalidHeartbeat(req: Req, version: number): string | null {
  if (req.groupId === '') return 'GroupId can\'t be empty.';
  if (req.memberEpoch > 0 || req.memberEpoch === -1 || req.memberEpoch === -2 || version >= 1) {
    if (req.memberId === '') return 'MemberId can\'t be empty.';
  }
  if (req.memberEpoch === 0) {
    if (req.rebalanceTimeoutMs === -1) return 'RebalanceTimeoutMs must be provided in first request.';
    if (req.topicPartitions === null || req.topicPartitions.length > 0) return 'TopicPartitions must be empty when (re-)joining.';
    if (req.subscribedTopicNames === null && (version < 1 || req.subscribedTopicRegex === null)) return 'SubscribedTopicNames or SubscribedTopicRegex must be set in first request.';
  } else if (req.memberEpoch === -2) {
    if (req.instanceId === null) return 'InstanceId can\'t be null.';
  } else if (req.memberEpoch < -2) {
    return `MemberEpoch is invalid: ${req.memberEpoch}.`;
  }
  return null;
}

export const consumerGroupHeartbeatHandler: HandlerOf<typeof ConsumerGroupHeartbeat> = {
  api: ConsumerGroupHeartbeat,
  minVersion: 0,
  maxVersion: 1,
  async handle(req, ctx, b) {
    const failed = (errorCode: number, errorMessage: string | null = null) =>
      ({ throttleTimeMs: 0, errorCode, errorMessage, memberId: null, memberEpoch: -1, heartbeatIntervalMs: 0, assignment: null });
    if (!authorize(ctx, b, Op.READ, Resource.GROUP, req.groupId)) return failed(ErrorCode.GROUP_AUTHORIZATION_FAILED); // Kafka: READ on the group
    const invalid = invalidHeartbeat(req, ctx.apiVersion);
    if (invalid !== null) return failed(ErrorCode.INVALID_REQUEST, invalid);
    if (!coordinatesGroup(b, req.groupId)) return failed(ErrorCode.NOT_COORDINATOR);
    try {
      if (req.memberEpoch === 0 && await isShareGroup(b, req.groupId)) return failed(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${req.groupId} is not a consumer group.`);
      const r = await b.groups.consumerGroupHeartbeat(req.groupId, {
        memberId: req.memberId,
        memberEpoch: req.memberEpoch,
        instanceId: req.instanceId,
        rackId: req.rackId,
        rebalanceTimeoutMs: req.rebalanceTimeoutMs,
        subscribedTopicNames: req.subscribedTopicNames,
        subscribedTopicRegex: ctx.apiVersion >= 1 ? req.subscribedTopicRegex : null,
        serverAssignor: req.serverAssignor,
        ownedPartitions: req.topicPartitions,
        clientId: ctx.clientId ?? '',
        clientHost: `/${ctx.session.clientAddress}`,
      });
      return {
        throttleTimeMs: 0, errorCode: r.errorCode, errorMessage: r.errorMessage, memberId: r.memberId, memberEpoch: r.memberEpoch,
        heartbeatIntervalMs: r.heartbeatIntervalMs, assignment: r.assignment === null ? null : { topicPartitions: r.assignment },
      };
    } catch (e) {
      return failed(groupErrorCode(e));
    }
  },
};
