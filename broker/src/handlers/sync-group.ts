// SyncGroup (key 14), v0-v5.
//   v0-v2: the leader hands out assignments and every member gets its own; v1 adds the
//       throttle time, v2 is answered before throttling.
//   v3: group.instance.id (static membership, KIP-345).
//   v4: flexible encoding.
//   v5: protocol type and name both ways, refused when they differ from the group's (KIP-559).
// Needs READ on the group; a group this broker does not coordinate is NOT_COORDINATOR.
import { SyncGroup } from '../protocol/messages/sync-group.js';
import { ErrorCode } from '../../../common/errors.js';
import { coordinatesGroup, groupErrorCode } from './support/group-common.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';

export const syncGroupHandler: HandlerOf<typeof SyncGroup> = {
  api: SyncGroup,
  minVersion: 0,
  maxVersion: 5,
  async handle(req, ctx, b) {
    const v = ctx.apiVersion;
    const error = (errorCode: number) => ({ throttleTimeMs: 0, errorCode, protocolType: null, protocolName: null, assignment: Buffer.alloc(0) });
    if (!authorize(ctx, b, Op.READ, Resource.GROUP, req.groupId)) return error(ErrorCode.GROUP_AUTHORIZATION_FAILED); // Kafka: READ on the group
    if (!coordinatesGroup(b, req.groupId)) return error(ErrorCode.NOT_COORDINATOR);
    try {
      const r = await b.groups.sync({
        groupId: req.groupId,
        generationId: req.generationId,
        memberId: req.memberId,
        groupInstanceId: v >= 3 ? req.groupInstanceId : null,
        protocolType: v >= 5 ? req.protocolType : null,
        protocolName: v >= 5 ? req.protocolName : null,
        assignments: req.assignments.map((a) => ({ memberId: a.memberId, assignment: a.assignment })),
      });
      return { throttleTimeMs: 0, errorCode: r.errorCode, protocolType: r.protocolType, protocolName: r.protocolName, assignment: r.assignment };
    } catch (e) {
      return error(groupErrorCode(e));
    }
  },
};
