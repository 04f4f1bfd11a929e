// Kafka's ACL model (org.apache.kafka.common.acl / resource): the wire codes of
// resource types, pattern types, operations and permissions, one binding, and
// the filters DescribeAcls and DeleteAcls match bindings with.

/** ResourceType codes (Kafka's ResourceType.code()). */
export const ResourceType = { UNKNOWN: 0, ANY: 1, TOPIC: 2, GROUP: 3, CLUSTER: 4, TRANSACTIONAL_ID: 5, DELEGATION_TOKEN: 6, USER: 7 } as const;
/** PatternType codes: MATCH and ANY only occur in filters. */
export const PatternType = { UNKNOWN: 0, ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 } as const;
/** AclOperation codes. */
export const AclOperation = {
  UNKNOWN: 0, ANY: 1, ALL: 2, READ: 3, WRITE: 4, CREATE: 5, DELETE: 6, ALTER: 7, DESCRIBE: 8,
  CLUSTER_ACTION: 9, DESCRIBE_CONFIGS: 10, ALTER_CONFIGS: 11, IDEMPOTENT_WRITE: 12, CREATE_TOKENS: 13, DESCRIBE_TOKENS: 14,
} as const;
/** AclPermissionType codes. */
export const AclPermission = { UNKNOWN: 0, ANY: 1, DENY: 2, ALLOW: 3 } as const;

export type ResourceTypeCode = (typeof ResourceType)[keyof typeof ResourceType];
export type OperationCode = (typeof AclOperation)[keyof typeof AclOperation];

/** Kafka's name of the one CLUSTER resource. */
export const CLUSTER_NAME = 'kafka-cluster';
/** A literal resource name, principal or host that matches every one. */
export const WILDCARD = '*';

/** One ACL: a resource pattern plus an access control entry. */
export interface AclBinding {
  resourceType: number;
  resourceName: string;
  patternType: number;
  principal: string;
  host: string;
  operation: number;
  permissionType: number;
}

/** A DescribeAcls / DeleteAcls filter: null strings and ANY codes match everything. */
export interface AclFilter {
  resourceType: number;
  resourceName: string | null;
  patternType: number;
  principal: string | null;
  host: string | null;
  operation: number;
  permissionType: number;
}

/** The stable identity of a binding (its storage field). */
export function bindingKey(a: AclBinding): string {
  return JSON.stringify([a.resourceType, a.resourceName, a.patternType, a.principal, a.host, a.operation, a.permissionType]);
}

export function parseBindingKey(key: string): AclBinding | null {
  try {
    const v = JSON.parse(key) as unknown;
    if (!Array.isArray(v) || v.length !== 7) return null;
    const [resourceType, resourceName, patternType, principal, host, operation, permissionType] = v as unknown[];
    const nums = [resourceType, patternType, operation, permissionType];
    const strs = [resourceName, principal, host];
    if (!nums.every((n) => Number.isInteger(n)) || !strs.every((s) => typeof s === 'string')) return null;
    return { resourceType, resourceName, patternType, principal, host, operation, permissionType } as AclBinding;
  } catch {
    return null;
  }
}

/** Does a resource pattern (type, name, pattern type) of a binding match a concrete resource name? */
export function patternMatchesResource(patternType: number, patternName: string, name: string): boolean {
  if (patternType === PatternType.LITERAL) return patternName === WILDCARD || patternName === name;
  if (patternType === PatternType.PREFIXED) return name.startsWith(patternName);
  return false;
}

function resourceFilterMatches(f: AclFilter, a: AclBinding): boolean {
  if (f.resourceType !== ResourceType.ANY && f.resourceType !== a.resourceType) return false;
  switch (f.patternType) {
    case PatternType.ANY:
      return f.resourceName === null || f.resourceName === a.resourceName;
    case PatternType.MATCH:
      // Kafka's MATCH: every binding that would apply to the named resource.
      return f.resourceName === null || (a.patternType === PatternType.LITERAL && (a.resourceName === f.resourceName || a.resourceName === WILDCARD))
        || (a.patternType === PatternType.PREFIXED && f.resourceName.startsWith(a.resourceName));
    default:
      return f.patternType === a.patternType && (f.resourceName === null || f.resourceName === a.resourceName);
  }
}

/** Kafka's AclBindingFilter.matches. */
export function filterMatches(f: AclFilter, a: AclBinding): boolean {
  return resourceFilterMatches(f, a)
    && (f.principal === null || f.principal === a.principal)
    && (f.host === null || f.host === a.host)
    && (f.operation === AclOperation.ANY || f.operation === a.operation)
    && (f.permissionType === AclPermission.ANY || f.permissionType === a.permissionType);
}

const known = (o: Record<string, number>, v: number, exclude: number[]): boolean => Object.values(o).includes(v) && !exclude.includes(v);

/** Kafka's checks on a filter (AclBindingFilter.findIndefiniteField): UNKNOWN anywhere is refused. */
export function filterProblem(f: AclFilter): string | null {
  if (!known(ResourceType, f.resourceType, [ResourceType.UNKNOWN])) return `Unknown resource type ${f.resourceType}`;
  if (!known(PatternType, f.patternType, [PatternType.UNKNOWN])) return `Unknown pattern type ${f.patternType}`;
  if (!known(AclOperation, f.operation, [AclOperation.UNKNOWN])) return `Unknown operation ${f.operation}`;
  if (!known(AclPermission, f.permissionType, [AclPermission.UNKNOWN])) return `Unknown permission type ${f.permissionType}`;
  return null;
}

/** Kafka's checks on a binding to create (AclControlManager.validateNewAcl); null when it may be stored. */
export function creationProblem(a: AclBinding): string | null {
  if (!known(ResourceType, a.resourceType, [ResourceType.UNKNOWN, ResourceType.ANY])) return `Invalid resource type ${a.resourceType}`;
  if (a.patternType !== PatternType.LITERAL && a.patternType !== PatternType.PREFIXED) return `Invalid pattern type ${a.patternType}`;
  if (!known(AclOperation, a.operation, [AclOperation.UNKNOWN, AclOperation.ANY])) return `Invalid operation ${a.operation}`;
  if (!known(AclPermission, a.permissionType, [AclPermission.UNKNOWN, AclPermission.ANY])) return `Invalid permission type ${a.permissionType}`;
  if (a.resourceName === '') return 'Resource name should not be empty';
  if (a.resourceType === ResourceType.CLUSTER && a.resourceName !== CLUSTER_NAME) return `The only valid name for the CLUSTER resource is ${CLUSTER_NAME}`;
  if (a.host === '') return 'Invalid empty host';
  const colon = a.principal.indexOf(':');
  if (colon <= 0) return `Could not parse principal from \`${a.principal}\` (no colon is present separating the principal type from the principal name)`;
  return null;
}
