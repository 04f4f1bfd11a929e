// The authorization checks handlers make: one call per check, answering as
// Kafka's AuthHelper does. With authorization off (or no ACL service, as in
// unit tests of other handlers) every check passes.
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl/model.js';
import type { BrokerServices, RequestContext } from './types.js';

export { AclOperation as Op, ResourceType as Resource } from '../../security/acl/model.js';

/** May the request's principal perform `op` on the resource? */
export function authorize(ctx: RequestContext, b: BrokerServices, op: number, resourceType: number, name: string): boolean {
  return b.acls?.allowed(ctx.session, op, resourceType, name) ?? true;
}

/** May the request's principal perform `op` on the cluster? */
export function authorizeCluster(ctx: RequestContext, b: BrokerServices, op: number): boolean {
  return authorize(ctx, b, op, ResourceType.CLUSTER, CLUSTER_NAME);
}

/** The names (topics, groups, transactional ids) the principal may perform `op` on. */
export function authorizedNames(ctx: RequestContext, b: BrokerServices, op: number, resourceType: number, names: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const n of names) if (authorize(ctx, b, op, resourceType, n)) out.add(n);
  return out;
}

/**
 * InitProducerId of an idempotent (non-transactional) producer: IDEMPOTENT_WRITE
 * on the cluster, or WRITE on some topic (Kafka 3.0+, KIP-679).
 */
export function authorizeIdempotentWrite(ctx: RequestContext, b: BrokerServices): boolean {
  return authorizeCluster(ctx, b, AclOperation.IDEMPOTENT_WRITE) || (b.acls?.allowedAnyOfType(ctx.session, AclOperation.WRITE, ResourceType.TOPIC) ?? true);
}

/** Kafka's authorized-operations bit field (bit n = AclOperation code n) of the operations the principal may perform on the resource. */
export function authorizedOperations(ctx: RequestContext, b: BrokerServices, resourceType: number, name: string, ops: readonly number[]): number {
  return ops.reduce((bits, op) => (authorize(ctx, b, op, resourceType, name) ? bits | (1 << op) : bits), 0);
}
