// CreateAcls (key 30), v0-v3.
//   v0: ACL bindings to create, one result each.
//   v1: resource pattern type, LITERAL or PREFIXED (KIP-290); answered before throttling.
//   v2: flexible encoding.
//   v3: the USER resource type.
// Needs ALTER on the cluster; without an authorizer every creation answers
// SECURITY_DISABLED. An invalid binding is INVALID_REQUEST, the valid ones are stored.
import { CreateAcls } from '../protocol/messages/create-acls.js';
import { ErrorCode } from '../../../common/errors.js';
import { creationProblem, type AclBinding } from '../security/acl/model.js';
import { NO_AUTHORIZER, aclsOn } from './support/acl-common.js';
import { Op, authorizeCluster } from './support/authorize.js';
import type { HandlerOf } from './support/types.js';


/** CreateAcls: stores the valid creations, answers each one; needs ALTER on the cluster. */
export const createAclsHandler: HandlerOf<typeof CreateAcls> = {
  api: CreateAcls,
  minVersion: 0,
  maxVersion: 3,
  async handle(req, ctx, b) {
    const creations = req.creations;
    const all = (errorCode: number, errorMessage: string) => ({ throttleTimeMs: 0, results: creations.map(() => ({ errorCode, errorMessage })) });
    if (!authorizeCluster(ctx, b, Op.ALTER)) return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.');
    const acls = aclsOn(b);
    if (!acls) return all(ErrorCode.SECURITY_DISABLED, NO_AUTHORIZER);
    const bindings: AclBinding[] = creations.map((c) => ({
      resourceType: c.resourceType, resourceName: c.resourceName, patternType: c.resourcePatternType,
      principal: c.principal, host: c.host, operation: c.operation, permissionType: c.permissionType,
    }));
    const problems = bindings.map(creationProblem);
    await acls.create(bindings.filter((_, i) => problems[i] === null));
    return {
      throttleTimeMs: 0,
      results: problems.map((p) => (p === null ? { errorCode: ErrorCode.NONE, errorMessage: null } : { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: p })),
    };
  },
};
