import { ListGroups } from '../protocol/messages/list-groups.js';
import { ErrorCode } from '../errors.js';
import { groupErrorCode } from './group-common.js';
import type { Handler } from './types.js';

export const listGroupsHandler: Handler = {
  api: ListGroups,
  minVersion: 0,
  maxVersion: 4,
  async handle(req, ctx, b) {
    try {
      // The coordinator lists only the groups this broker coordinates.
      const groups = await b.groups.listGroups(ctx.apiVersion >= 4 ? (req.statesFilter as string[]) : []);
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, groups: groups.map((g) => ({ groupId: g.groupId, protocolType: g.protocolType, groupState: g.state })) };
    } catch (e) {
      return { throttleTimeMs: 0, errorCode: groupErrorCode(e), groups: [] };
    }
  },
};
