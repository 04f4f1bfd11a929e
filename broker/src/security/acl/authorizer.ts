// The authorization decision, as Kafka's StandardAuthorizer takes it, as pure
// functions over a set of ACL bindings (no I/O):
//  - super users are always allowed;
//  - the bindings that apply to a resource are its LITERAL ones, the LITERAL
//    "*" one and every PREFIXED one whose name begins the resource's name;
//  - of those, the ones for the principal (or "<type>:*") and host (or "*")
//    count: any DENY of the operation (or ALL) denies, whatever allows it;
//  - otherwise an ALLOW of the operation or ALL allows, and so do the implied
//    ones: READ, WRITE, DELETE or ALTER allow DESCRIBE, ALTER_CONFIGS allows
//    DESCRIBE_CONFIGS;
//  - with no binding at all on the resource (for anybody),
//    allow.everyone.if.no.acl.found decides.
import { AclOperation, AclPermission, PatternType, WILDCARD, patternMatchesResource, type AclBinding } from './model.js';

export interface AuthorizerSettings {
  /** Principals ("User:admin") allowed everything (Kafka's super.users). */
  superUsers: ReadonlySet<string>;
  /** Kafka's allow.everyone.if.no.acl.found. */
  allowEveryoneIfNoAclFound: boolean;
}

export interface Requester {
  principal: string;
  /** The client's IP address. */
  host: string;
}

/** Operations an ALLOW of `op` also grants (Kafka's implied operations). */
const IMPLIED_BY: Readonly<Record<number, readonly number[]>> = {
  [AclOperation.DESCRIBE]: [AclOperation.READ, AclOperation.WRITE, AclOperation.DELETE, AclOperation.ALTER],
  [AclOperation.DESCRIBE_CONFIGS]: [AclOperation.ALTER_CONFIGS],
};

/** Node reports IPv4 peers of a dual-stack socket as "::ffff:a.b.c.d"; Kafka's hosts are plain IPv4. */
export function normalizeHost(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

function principalMatches(aclPrincipal: string, principal: string): boolean {
  if (aclPrincipal === principal) return true;
  const colon = principal.indexOf(':');
  return colon > 0 && aclPrincipal === `${principal.slice(0, colon)}:${WILDCARD}`;
}

function entryApplies(a: AclBinding, who: Requester): boolean {
  return principalMatches(a.principal, who.principal) && (a.host === WILDCARD || normalizeHost(a.host) === normalizeHost(who.host));
}

function grants(aclOp: number, op: number): boolean {
  return aclOp === AclOperation.ALL || aclOp === op || (IMPLIED_BY[op]?.includes(aclOp) ?? false);
}

/** May `who` perform `op` on the resource (type, name)? */
export function authorize(acls: readonly AclBinding[], settings: AuthorizerSettings, who: Requester, op: number, resourceType: number, name: string): boolean {
  if (settings.superUsers.has(who.principal)) return true;
  let any = false;
  let allowed = false;
  for (const a of acls) {
    if (a.resourceType !== resourceType || !patternMatchesResource(a.patternType, a.resourceName, name)) continue;
    any = true;
    if (!entryApplies(a, who)) continue;
    if (a.permissionType === AclPermission.DENY && (a.operation === AclOperation.ALL || a.operation === op)) return false;
    if (a.permissionType === AclPermission.ALLOW && grants(a.operation, op)) allowed = true;
  }
  return allowed || (!any && settings.allowEveryoneIfNoAclFound);
}

/**
 * May `who` perform `op` on at least one resource of the type (Kafka's
 * Authorizer.authorizeByResourceType, used by InitProducerId: WRITE on any
 * topic stands in for IDEMPOTENT_WRITE). Like Kafka's default, a resource
 * named "hardcode" is tried first (super users, allow.everyone.if.no.acl.found,
 * LITERAL "*" allows); then an ALLOW counts unless a DENY covers it.
 */
export function authorizeAnyOfType(acls: readonly AclBinding[], settings: AuthorizerSettings, who: Requester, op: number, resourceType: number): boolean {
  if (authorize(acls, settings, who, op, resourceType, 'hardcode')) return true;
  const mine = acls.filter((a) => a.resourceType === resourceType && entryApplies(a, who) && (a.operation === op || a.operation === AclOperation.ALL));
  const denies = mine.filter((a) => a.permissionType === AclPermission.DENY);
  if (denies.some((d) => d.patternType === PatternType.LITERAL && d.resourceName === WILDCARD)) return false;
  const deniedPrefix = (name: string) => denies.some((d) => d.patternType === PatternType.PREFIXED && name.startsWith(d.resourceName));
  return mine.some((a) => {
    if (a.permissionType !== AclPermission.ALLOW) return false;
    if (a.patternType === PatternType.LITERAL) {
      return a.resourceName === WILDCARD || (!deniedPrefix(a.resourceName) && !denies.some((d) => d.patternType === PatternType.LITERAL && d.resourceName === a.resourceName));
    }
    return a.patternType === PatternType.PREFIXED && !deniedPrefix(a.resourceName);
  });
}
