// Heartbeat (key 12), v0-v4.
//   v0-v2: a member keeps its place in the group's generation; v1 adds the throttle
//       time, v2 is answered before throttling.
//   v3: group.instance.id (static membership, KIP-345).
//   v4: flexible encoding.
// Needs READ on the group; a group this broker does not coordinate is NOT_COORDINATOR.
import { Heartbeat } from '../protocol/messages/heartbeat.js';
import { ErrorCode } from '../../../common/errors.js';
import { coordinatesGroup, groupErrorCode } from './support/group-common.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';

export const heartbeatHandler: HandlerOf<typeof Heartbeat> = {
  api: Heartbeat,
  minVersion: 0,
  maxVersion: 4,
  async handle(req, ctx, b) {
    if (!authorize(ctx, b, Op.READ, Resource.GROUP, req.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED }; // Kafka: READ on the group
    if (!coordinatesGroup(b, req.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.NOT_COORDINATOR };
    try {
      const errorCode = await b.groups.heartbeat(req.groupId, req.generationId, req.memberId, ctx.apiVersion >= 3 ? req.groupInstanceId : null);
      return { throttleTimeMs: 0, errorCode };
    } catch (e) {
      return { throttleTimeMs: 0, errorCode: groupErrorCode(e) };
    }
  },
};
