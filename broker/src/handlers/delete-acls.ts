// DeleteAcls (key 31), v0-v3.
//   v0: filters; every ACL one matches is deleted and listed under that filter.
//   v1: pattern type in filters and matches (KIP-290); answered before throttling.
//   v2: flexible encoding.
//   v3: the USER resource type.
// Needs ALTER on the cluster; without an authorizer every filter answers
// SECURITY_DISABLED. An invalid filter is INVALID_REQUEST and deletes nothing.
import { DeleteAcls } from '../protocol/messages/delete-acls.js';
import { ErrorCode } from '../../../common/errors.js';
import { filterProblem } from '../security/acl/model.js';
import { NO_AUTHORIZER, aclsOn, entryOf, filterOf } from './support/acl-common.js';
import { Op, authorizeCluster } from './support/authorize.js';
import type { HandlerOf } from './support/types.js';

/** DeleteAcls: removes every ACL some filter matches and answers, per filter, those it matched; needs ALTER on the cluster. */
export const deleteAclsHandler: HandlerOf<typeof DeleteAcls> = {
  api: DeleteAcls,
  minVersion: 0,
  maxVersion: 3,
  async handle(req, ctx, b) {
    const filters = req.filters.map(filterOf);
    const all = (errorCode: number, errorMessage: string) => ({ throttleTimeMs: 0, filterResults: filters.map(() => ({ errorCode, errorMessage, matchingAcls: [] })) });
    if (!authorizeCluster(ctx, b, Op.ALTER)) return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.');
    const acls = aclsOn(b);
    if (!acls) return all(ErrorCode.SECURITY_DISABLED, NO_AUTHORIZER);
    const problems = filters.map(filterProblem);
    const matched = await acls.delete(filters.filter((_, i) => problems[i] === null));
    let next = 0;
    return {
      throttleTimeMs: 0,
      filterResults: problems.map((p) => {
        if (p !== null) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: p, matchingAcls: [] };
        const matchingAcls = matched[next++]!.map((a) => ({
          errorCode: ErrorCode.NONE, errorMessage: null, resourceType: a.resourceType, resourceName: a.resourceName, patternType: a.patternType, ...entryOf(a),
        }));
        return { errorCode: ErrorCode.NONE, errorMessage: null, matchingAcls };
      }),
    };
  },
};
