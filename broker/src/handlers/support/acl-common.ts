// Shared by the three ACL handlers: Kafka's answers when authorization is off,
// the wire shape of filters and bindings.
import type { AclService } from '../../security/acl/acl-service.js';
import type { AclBinding, AclFilter } from '../../security/acl/model.js';
import type { BrokerServices } from './types.js';
import type { DescribeAcls } from '../../protocol/messages/describe-acls.js';
import type { RequestOf } from '../../protocol/typed.js';

/** Kafka's message with SECURITY_DISABLED when no authorizer is configured. */
export const NO_AUTHORIZER = 'No Authorizer is configured.';

/** The ACL service when authorization is on, else null (the handler answers SECURITY_DISABLED). */
export function aclsOn(b: BrokerServices): AclService | null {
  return b.acls?.enabled ? b.acls : null;
}

/** DescribeAcls' request, each DeleteAcls filter: the same fields (acl-fields.ts aclFilterFields). */
export type AclFilterRequest = RequestOf<typeof DescribeAcls>;

/** DescribeAcls / DeleteAcls filter fields (both requests spell them alike). */
export function filterOf(r: AclFilterRequest): AclFilter {
  return {
    resourceType: r.resourceTypeFilter, resourceName: r.resourceNameFilter, patternType: r.patternTypeFilter,
    principal: r.principalFilter, host: r.hostFilter, operation: r.operation, permissionType: r.permissionType,
  };
}

/** A binding's access control entry as DescribeAcls and DeleteAcls write it. */
export function entryOf(a: AclBinding): { principal: string; host: string; operation: number; permissionType: number } {
  return { principal: a.principal, host: a.host, operation: a.operation, permissionType: a.permissionType };
}
