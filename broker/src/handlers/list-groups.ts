// ListGroups (key 16), v0-v5.
//   v0-v2: the groups of this broker's coordinator; v1 adds the throttle time, v2 is
//       answered before throttling.
//   v3: flexible encoding.
//   v4: a filter on group states; each group's state in the answer (KIP-518).
//   v5: a filter on group types and each group's type: classic, consumer (KIP-848) or share (KIP-932).
// DESCRIBE on the cluster lists every group, else only the groups the principal may
// DESCRIBE (Kafka). Admin clients ask every broker.
import { ListGroups } from '../protocol/messages/list-groups.js';
import { ErrorCode } from '../../../common/errors.js';
import { coordinatesGroup, groupErrorCode } from './support/group-common.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize, authorizeCluster } from './support/authorize.js';

export const listGroupsHandler: HandlerOf<typeof ListGroups> = {
  api: ListGroups,
  minVersion: 0,
  maxVersion: 5,
  async handle(req, ctx, b) {
    try {
      // The coordinator lists only the groups this broker coordinates.
      const states = ctx.apiVersion >= 4 ? req.statesFilter : [];
      let groups: Array<{ groupId: string; protocolType: string; state: string; type: string }> = await b.groups.listGroups(states);
      // Share groups (KIP-932): protocol type and type "share".
      if (b.shares) {
        const wanted = new Set(states.map((s) => s.toLowerCase()));
        const shares = (await b.shares.listGroups((g) => coordinatesGroup(b, g))).filter((g) => wanted.size === 0 || wanted.has(g.state.toLowerCase()));
        groups = [...groups, ...shares.map((g) => ({ groupId: g.groupId, protocolType: 'share', state: g.state, type: 'share' }))].sort((x, y) => (x.groupId < y.groupId ? -1 : x.groupId > y.groupId ? 1 : 0));
      }
      // Kafka: DESCRIBE on the cluster lists every group, else those the principal may DESCRIBE.
      if (!authorizeCluster(ctx, b, Op.DESCRIBE)) groups = groups.filter((g) => authorize(ctx, b, Op.DESCRIBE, Resource.GROUP, g.groupId));
      const types = new Set(ctx.apiVersion >= 5 ? req.typesFilter.map((t) => t.toLowerCase()) : []);
      if (types.size > 0) groups = groups.filter((g) => types.has(g.type));
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, groups: groups.map((g) => ({ groupId: g.groupId, protocolType: g.protocolType, groupState: g.state, groupType: g.type })) };
    } catch (e) {
      return { throttleTimeMs: 0, errorCode: groupErrorCode(e), groups: [] };
    }
  },
};
