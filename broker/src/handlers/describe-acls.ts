// DescribeAcls (key 29), v0-v3.
//   v0: the ACLs one filter matches, grouped by resource.
//   v1: pattern type (KIP-290); answered before throttling.
//   v2: flexible encoding.
//   v3: the USER resource type.
// Needs DESCRIBE on the cluster; without an authorizer the answer is SECURITY_DISABLED.
import { DescribeAcls } from '../protocol/messages/describe-acls.js';
import { ErrorCode } from '../../../common/errors.js';
import { filterProblem } from '../security/acl/model.js';
import { NO_AUTHORIZER, aclsOn, entryOf, filterOf } from './support/acl-common.js';
import { Op, authorizeCluster } from './support/authorize.js';
import type { HandlerOf } from './support/types.js';
import type { ResponseOf } from '../protocol/typed.js';

type Answer = ResponseOf<typeof DescribeAcls>;

const answer = (errorCode: number, errorMessage: string | null, resources: Answer['resources'] = []): Answer => ({ throttleTimeMs: 0, errorCode, errorMessage, resources });

/** DescribeAcls: the stored ACLs matching one filter, grouped by resource pattern; needs DESCRIBE on the cluster. */
export const describeAclsHandler: HandlerOf<typeof DescribeAcls> = {
  api: DescribeAcls,
  minVersion: 0,
  maxVersion: 3,
  async handle(req, ctx, b) {
    if (!authorizeCluster(ctx, b, Op.DESCRIBE)) return answer(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.');
    const acls = aclsOn(b);
    if (!acls) return answer(ErrorCode.SECURITY_DISABLED, NO_AUTHORIZER);
    const filter = filterOf(req);
    const problem = filterProblem(filter);
    if (problem) return answer(ErrorCode.INVALID_REQUEST, problem);
    const byResource = new Map<string, { resourceType: number; resourceName: string; patternType: number; acls: Array<ReturnType<typeof entryOf>> }>();
    for (const a of await acls.describe(filter)) {
      const key = JSON.stringify([a.resourceType, a.resourceName, a.patternType]);
      let r = byResource.get(key);
      if (!r) byResource.set(key, (r = { resourceType: a.resourceType, resourceName: a.resourceName, patternType: a.patternType, acls: [] }));
      r.acls.push(entryOf(a));
    }
    return answer(ErrorCode.NONE, null, [...byResource.values()]);
  },
};
