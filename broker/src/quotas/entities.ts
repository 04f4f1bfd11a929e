// Client quota entities and keys as Kafka defines them (KIP-55, KIP-257):
// an entity is a user, a client id, both, or an IP; a name of null is the
// entity type's default. A connection's quota is the most specific entity
// that sets the key, in Kafka's order:
//   /users/<user>/clients/<client-id>   /users/<user>/clients/<default>
//   /users/<user>                        /users/<default>/clients/<client-id>
//   /users/<default>/clients/<default>   /users/<default>
//   /clients/<client-id>                 /clients/<default>
// Sans-IO: validation, matching for DescribeClientQuotas, resolution.
import { ErrorCode } from '../../../common/errors.js';

export type EntityType = 'user' | 'client-id' | 'ip';

/** Entity type -> name (null: the default entity of that type). */
export type QuotaEntity = Partial<Record<EntityType, string | null>>;

export const PRODUCER_BYTE_RATE = 'producer_byte_rate';
export const CONSUMER_BYTE_RATE = 'consumer_byte_rate';
export const REQUEST_PERCENTAGE = 'request_percentage';

/** Keys for user/client-id entities and their types (Kafka's QuotaConfig). */
const CLIENT_KEYS: Record<string, 'long' | 'double'> = {
  [PRODUCER_BYTE_RATE]: 'long',
  [CONSUMER_BYTE_RATE]: 'long',
  [REQUEST_PERCENTAGE]: 'double',
  controller_mutation_rate: 'double',
};
/** Keys for IP entities. */
const IP_KEYS: Record<string, 'int'> = { connection_creation_rate: 'int' };

export interface QuotaError { errorCode: number; message: string }

const invalid = (message: string): QuotaError => ({ errorCode: ErrorCode.INVALID_REQUEST, message });

/** The entity from a request's (EntityType, EntityName) list, or why it is refused (Kafka's checks and messages). */
export function parseEntity(parts: Array<{ entityType: string; entityName: string | null }>): QuotaEntity | QuotaError {
  if (parts.length === 0) return invalid('Invalid empty client quota entity');
  const out: QuotaEntity = {};
  for (const { entityType, entityName } of parts) {
    if (entityType in out) return invalid(`Invalid client quota entity, duplicate entity entry ${entityType}`);
    if (entityType !== 'user' && entityType !== 'client-id' && entityType !== 'ip') return invalid(`Unhandled client quota entity type: ${entityType}`);
    if (entityName !== null && entityName === '') return invalid(`Empty ${entityType} not supported`);
    out[entityType] = entityName;
  }
  if ('ip' in out && ('user' in out || 'client-id' in out)) return invalid('Invalid quota entity combination, IP entity should not be combined with User or ClientId');
  return out;
}

/** Checks one key and value for the entity (null when valid). */
export function validateQuota(entity: QuotaEntity, key: string, value: number): QuotaError | null {
  const type = 'ip' in entity ? IP_KEYS[key] : CLIENT_KEYS[key];
  if (!type) return invalid(`Invalid configuration key ${key}`);
  if (!(value > 0)) return invalid(`Quota ${key} must be greater than 0`);
  if (type !== 'double' && !Number.isInteger(value)) return invalid(`${key} must be a whole number`);
  if (type === 'int' && value > 2147483647) return invalid(`Proposed value for ${key} is too large for an INT.`);
  return null;
}

/** A stable text for the entity (the storage key): types in a fixed order, names URI-encoded, defaults as <default>. */
export function entityKey(e: QuotaEntity): string {
  const parts: string[] = [];
  for (const t of ['user', 'client-id', 'ip'] as const) {
    if (!(t in e)) continue;
    const name = e[t];
    parts.push(`${t}=${name === null || name === undefined ? '<default>' : encodeURIComponent(name)}`);
  }
  return parts.join(',');
}

export function entityFromKey(key: string): QuotaEntity {
  const out: QuotaEntity = {};
  for (const part of key.split(',')) {
    const at = part.indexOf('=');
    const t = part.slice(0, at) as EntityType;
    const v = part.slice(at + 1);
    out[t] = v === '<default>' ? null : decodeURIComponent(v);
  }
  return out;
}

/** A DescribeClientQuotas filter component: 0 exact name, 1 the default, 2 any specified (non-default) name. */
export interface FilterComponent { entityType: string; matchType: number; match: string | null }

/** Kafka's DescribeClientQuotas matching; strict: the entity has no types beyond the components'. */
export function matchesFilter(e: QuotaEntity, components: FilterComponent[], strict: boolean): boolean {
  for (const c of components) {
    const t = c.entityType as EntityType;
    if (!(t in e)) return false;
    const name = e[t];
    if (c.matchType === 0 && name !== c.match) return false;
    if (c.matchType === 1 && name !== null) return false;
    if (c.matchType === 2 && name === null) return false;
  }
  if (strict && Object.keys(e).length !== components.length) return false;
  return true;
}

/** The quota that applies, and the sensor tags it is measured under (Kafka's DefaultQuotaCallback). */
export interface ResolvedQuota { bound: number; user: string; clientId: string }

/**
 * The quota `key` for a connection of `user` (principal name) and `clientId`,
 * from `quotas` (entity key -> key -> value); null when no entity sets it.
 * Defaults apply per user or client: each gets its own sensor.
 */
export function resolveQuota(quotas: ReadonlyMap<string, ReadonlyMap<string, number>>, key: string, user: string, clientId: string): ResolvedQuota | null {
  const get = (e: QuotaEntity): number | undefined => quotas.get(entityKey(e))?.get(key);
  const order: Array<[QuotaEntity, string, string]> = [
    [{ user, 'client-id': clientId }, user, clientId],
    [{ user, 'client-id': null }, user, clientId],
    [{ user }, user, ''],
    [{ user: null, 'client-id': clientId }, user, clientId],
    [{ user: null, 'client-id': null }, user, clientId],
    [{ user: null }, user, ''],
    [{ 'client-id': clientId }, '', clientId],
    [{ 'client-id': null }, '', clientId],
  ];
  for (const [e, u, c] of order) {
    const bound = get(e);
    if (bound !== undefined) return { bound, user: u, clientId: c };
  }
  return null;
}
