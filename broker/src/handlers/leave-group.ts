// LeaveGroup (key 13), v0-v5.
//   v0-v2: one member leaves; v1 adds the throttle time, v2 is answered before throttling.
//   v3: a batch of members, by member id or group.instance.id, one error each (KIP-345).
//   v4: flexible encoding.
//   v5: a reason per member (KIP-800).
// Needs READ on the group. Below v3 the member's error is the answer's error.
import { LeaveGroup } from '../protocol/messages/leave-group.js';
import { ErrorCode } from '../../../common/errors.js';
import type { MemberRef } from '../groups/coordinator.js';
import { coordinatesGroup, groupErrorCode } from './support/group-common.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';

export const leaveGroupHandler: HandlerOf<typeof LeaveGroup> = {
  api: LeaveGroup,
  minVersion: 0,
  maxVersion: 5,
  async handle(req, ctx, b) {
    const v = ctx.apiVersion;
    // v0-2 name one member; v3+ (KIP-345) a batch, possibly by group.instance.id only.
    const members: MemberRef[] = v >= 3
      ? req.members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId }))
      : [{ memberId: req.memberId, groupInstanceId: null }];
    let r: { errorCode: number; members: Array<MemberRef & { errorCode: number }> };
    if (!authorize(ctx, b, Op.READ, Resource.GROUP, req.groupId)) r = { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, members: [] }; // Kafka: READ on the group
    else if (!coordinatesGroup(b, req.groupId)) r = { errorCode: ErrorCode.NOT_COORDINATOR, members: [] };
    else {
      try {
        r = await b.groups.leave(req.groupId, members);
      } catch (e) {
        r = { errorCode: groupErrorCode(e), members: [] };
      }
    }
    if (v < 3) {
      const errorCode = r.errorCode !== ErrorCode.NONE ? r.errorCode : r.members[0]?.errorCode ?? ErrorCode.NONE;
      return { throttleTimeMs: 0, errorCode, members: [] };
    }
    return { throttleTimeMs: 0, errorCode: r.errorCode, members: r.members };
  },
};
