// JoinGroup (key 11), v0-v9.
//   v0: a member joins with its protocols; the session timeout is also the rebalance timeout.
//   v1: a rebalance timeout of its own.
//   v2-v3: the throttle time; v3 is answered before throttling.
//   v4: a new member joins twice: first to get its member id (MEMBER_ID_REQUIRED).
//   v5: group.instance.id (static membership, KIP-345).
//   v6: flexible encoding.
//   v7: the answer carries the protocol type; the protocol name may be null (KIP-559).
//   v8: a reason for joining (KIP-800).
//   v9: skip_assignment in the answer (KIP-814).
// Needs READ on the group; a group this broker does not coordinate is NOT_COORDINATOR;
// a share group's id is INCONSISTENT_GROUP_PROTOCOL (what Kafka 4.4 answers).
// The member's client host is reported as Kafka does, "/<address>".
import { JoinGroup } from '../protocol/messages/join-group.js';
import { ErrorCode } from '../../../common/errors.js';
import type { JoinResult } from '../groups/group.js';
import { coordinatesGroup, groupErrorCode, isShareGroup } from './support/group-common.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';

export const joinGroupHandler: HandlerOf<typeof JoinGroup> = {
  api: JoinGroup,
  minVersion: 0,
  maxVersion: 9,
  async handle(req, ctx, b) {
    const v = ctx.apiVersion;
    const respond = (r: JoinResult) => ({
      throttleTimeMs: 0,
      errorCode: r.errorCode,
      generationId: r.generationId,
      protocolType: r.protocolType,
      // Non-nullable before v7.
      protocolName: r.protocolName ?? (v < 7 ? '' : null),
      leader: r.leader,
      skipAssignment: r.skipAssignment,
      memberId: r.memberId,
      members: r.members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, metadata: m.metadata })),
    });
    const error = (code: number): JoinResult => ({ errorCode: code, generationId: -1, protocolType: null, protocolName: null, leader: '', skipAssignment: false, memberId: req.memberId, members: [] });
    if (!authorize(ctx, b, Op.READ, Resource.GROUP, req.groupId)) return respond(error(ErrorCode.GROUP_AUTHORIZATION_FAILED)); // Kafka: READ on the group
    if (!coordinatesGroup(b, req.groupId)) return respond(error(ErrorCode.NOT_COORDINATOR));
    const groupInstanceId: string | null = v >= 5 ? req.groupInstanceId : null;
    try {
      // A member's first join (no member id yet) into a share group's id is refused, as Kafka does.
      if (req.memberId === '' && await isShareGroup(b, req.groupId)) return respond(error(ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
      return respond(await b.groups.join({
        groupId: req.groupId,
        memberId: req.memberId,
        groupInstanceId,
        sessionTimeoutMs: req.sessionTimeoutMs,
        // v0 has no rebalance timeout: the session timeout doubles as one.
        rebalanceTimeoutMs: v >= 1 ? req.rebalanceTimeoutMs : req.sessionTimeoutMs,
        protocolType: req.protocolType,
        protocols: req.protocols.map((p) => ({ name: p.name, metadata: p.metadata })),
        clientId: ctx.clientId ?? '',
        // Kafka reports the peer as "/<address>" (DescribeGroups).
        clientHost: `/${ctx.session.clientAddress}`,
        requireKnownMemberId: v >= 4 && groupInstanceId === null,
        supportSkipAssignment: v >= 9,
      }));
    } catch (e) {
      return respond(error(groupErrorCode(e)));
    }
  },
};
