// `runnel quota describe|alter`: client quotas over DescribeClientQuotas and
// AlterClientQuotas (KIP-546), as kafka-configs --entity-type users|clients|ips
// does. An entity is a user, a client id, a user and a client id, or an IP; a
// name of null stands for that type's default entity (kafka-configs
// --entity-default), as in Kafka's ClientQuotaEntity.
//
// The entity is given by flags (--user U, --user-default, --client-id C,
// --client-id-default, --ip I, --ip-default), not by a positional as the other
// commands name their resource: an entity has up to two parts, each a name or
// the default, which one positional cannot say without a syntax of its own;
// flags read like kafka-configs' --entity-type/--entity-name pairs and like
// `runnel acl`'s --topic/--group. The quota keys are kafka-configs'
// --add-config k=v,k=v and --delete-config k,k; the broker checks them (an
// unknown key or a fractional byte rate is INVALID_REQUEST).
import { AlterClientQuotas } from '../../broker/src/protocol/messages/alter-client-quotas.js';
import { DescribeClientQuotas } from '../../broker/src/protocol/messages/describe-client-quotas.js';
import { check, CliUsageError } from '../kafka/errors.js';
import type { KafkaClient } from '../kafka/client.js';
import { CONNECTION_USAGE, json, list, out, parse, str, subcommand, table, withClient, type Values } from './common.js';

export const QUOTA_USAGE = `usage: runnel quota describe [ENTITY] [--json]
       runnel quota alter ENTITY [--add-config k=v[,k=v...]] [--delete-config k[,k...]] [--validate-only]

ENTITY: (--user U | --user-default) [--client-id C | --client-id-default]
      | (--client-id C | --client-id-default)
      | (--ip I | --ip-default)

Client quotas over the Kafka protocol, as kafka-configs --entity-type users|clients|ips does.
describe without an entity shows every quota; with one, the quotas of exactly that entity (as
kafka-configs --describe: --user alice shows neither alice's per-client quotas nor the default
user's). alter sets the --add-config keys and removes the --delete-config keys of one entity.

quota keys (Kafka's):
  producer_byte_rate        produce bytes per second (user, client id)
  consumer_byte_rate        fetch bytes per second (user, client id)
  request_percentage        request thread time, percent of one thread (user, client id)
  controller_mutation_rate  topic/partition mutations per second (user, client id)
  connection_creation_rate  new connections per second (ip)

options:
  --user U | --user-default           a user (the principal's name) or the default user
  --client-id C | --client-id-default a client id or the default client
  --ip I | --ip-default               a client IP or the default IP
  --add-config k=v[,k=v...]           alter: set these quotas; repeatable
  --delete-config k[,k...]            alter: remove these quotas; repeatable
  --validate-only                     alter: have the broker check the change, not make it
  --json                              describe: JSON instead of a table (a default entity's name is null)
${CONNECTION_USAGE}`;

export const QUOTA_OPTIONS = {
  user: { type: 'string' },
  'user-default': { type: 'boolean' },
  'client-id': { type: 'string' },
  'client-id-default': { type: 'boolean' },
  ip: { type: 'string' },
  'ip-default': { type: 'boolean' },
  'add-config': { type: 'string', multiple: true },
  'delete-config': { type: 'string', multiple: true },
  'validate-only': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

const SUBCOMMANDS = ['describe', 'alter'] as const;

/** Kafka's ClientQuotaEntity types, in the order entities are shown. */
export const ENTITY_TYPES = ['user', 'client-id', 'ip'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];
/** One part of an entity: its type and name (null: the default entity). */
export interface EntityPart { entityType: EntityType; entityName: string | null }

/** DescribeClientQuotas match types: an exact name, the default entity. */
const MATCH_EXACT = 0;
const MATCH_DEFAULT = 1;

/** The entity the flags name, in ENTITY_TYPES order; empty when none is given. */
export function entityOf(v: Values): EntityPart[] {
  const parts: EntityPart[] = [];
  for (const t of ENTITY_TYPES) {
    const name = str(v, t);
    const dflt = v[`${t}-default`] === true;
    if (name !== undefined && dflt) throw new CliUsageError(`--${t} and --${t}-default together`);
    if (name === '') throw new CliUsageError(`--${t}: empty name (the default entity is --${t}-default)`);
    if (name !== undefined || dflt) parts.push({ entityType: t, entityName: name ?? null });
  }
  if (parts.some((p) => p.entityType === 'ip') && parts.length > 1) throw new CliUsageError('an IP entity cannot be combined with --user or --client-id');
  return parts;
}

/** A quota value as kafka-configs reads one (a decimal number, Java's Double.parseDouble without hex or NaN). */
function quotaValue(key: string, s: string): number {
  const n = Number(s);
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s.trim()) || !Number.isFinite(n)) throw new CliUsageError(`--add-config ${key}=${s}: expected a number`);
  return n;
}

/** AlterClientQuotas ops: --add-config k=v,k=v (repeatable) then --delete-config k,k (remove: true, value 0 as Kafka's admin client sends). */
export function quotaOps(v: Values): Array<{ key: string; value: number; remove: boolean }> {
  const items = (flag: string): string[] => list(v, flag).flatMap((x) => x.split(',')).map((x) => x.trim()).filter((x) => x !== '');
  const adds = items('add-config').map((it) => {
    const eq = it.indexOf('=');
    if (eq <= 0) throw new CliUsageError(`--add-config ${it}: expected key=value`);
    const key = it.slice(0, eq).trim();
    return { key, value: quotaValue(key, it.slice(eq + 1).trim()), remove: false };
  });
  const deletes = items('delete-config').map((key) => {
    if (key.includes('=')) throw new CliUsageError(`--delete-config ${key}: expected a key without a value`);
    return { key, value: 0, remove: true };
  });
  if (adds.length + deletes.length === 0) throw new CliUsageError('alter needs --add-config or --delete-config');
  const seen = new Set<string>();
  for (const op of [...adds, ...deletes]) {
    if (seen.has(op.key)) throw new CliUsageError(`${op.key}: given twice (add or delete a key once)`);
    seen.add(op.key);
  }
  return [...adds, ...deletes];
}

/** DescribeClientQuotas' request: no entity, every quota (no components, not strict); one, exactly that entity (strict, as kafka-configs). */
export function describeFilter(parts: EntityPart[]): { components: Array<{ entityType: string; matchType: number; match: string | null }>; strict: boolean } {
  return {
    components: parts.map((p) => ({ entityType: p.entityType, matchType: p.entityName === null ? MATCH_DEFAULT : MATCH_EXACT, match: p.entityName })),
    strict: parts.length > 0,
  };
}

/** An entity for messages: `user alice, client-id <default>`. */
export function entityText(parts: ReadonlyArray<{ entityType: string; entityName: string | null }>): string {
  return parts.map((p) => `${p.entityType} ${p.entityName ?? '<default>'}`).join(', ');
}

export interface QuotaEntry {
  /** entity type -> name (null: the default) */
  entity: Partial<Record<EntityType, string | null>>;
  quotas: Record<string, number>;
}

/** The table of `describe`: one row per entity and key; an entity type the entity lacks is blank, a default is <default>. */
export function quotaTable(entries: QuotaEntry[]): string {
  const rows: string[][] = [];
  for (const e of entries) {
    for (const [key, value] of Object.entries(e.quotas)) {
      rows.push([...ENTITY_TYPES.map((t) => (t in e.entity ? e.entity[t] ?? '<default>' : '')), key, String(value)]);
    }
  }
  return table([...ENTITY_TYPES, 'quota', 'value'], rows, new Set([4]));
}

export async function quotaCommand(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, QUOTA_OPTIONS);
  const sub = subcommand(positionals, SUBCOMMANDS, 'quota');
  if (positionals.length > 1) throw new CliUsageError(`unexpected argument ${positionals[1]} (name the entity with --user, --client-id or --ip)`);
  const entity = entityOf(values);
  if (sub === 'describe') {
    for (const f of ['add-config', 'delete-config', 'validate-only']) if (values[f] !== undefined) throw new CliUsageError(`--${f} is for alter`);
    return withClient(values, (c) => describeQuotas(c, entity, values));
  }
  if (entity.length === 0) throw new CliUsageError('alter needs an entity: --user, --client-id or --ip (or their -default)');
  if (values.json) throw new CliUsageError('--json is for describe');
  const ops = quotaOps(values);
  return withClient(values, (c) => alterQuotas(c, entity, ops, values['validate-only'] === true));
}

/** Entities with a user first, then those with a client id alone, then IPs; within them by type, an absent type before the default before names in order. */
export function compareEntities(a: QuotaEntry, b: QuotaEntry): number {
  const group = (e: QuotaEntry): number => ENTITY_TYPES.findIndex((t) => t in e.entity);
  if (group(a) !== group(b)) return group(a) - group(b);
  for (const t of ENTITY_TYPES) {
    const rank = (e: QuotaEntry): number => (!(t in e.entity) ? 0 : e.entity[t] === null ? 1 : 2);
    const d = rank(a) - rank(b);
    if (d !== 0) return d;
    const x = a.entity[t] ?? '';
    const y = b.entity[t] ?? '';
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

async function describeQuotas(c: KafkaClient, parts: EntityPart[], v: Values): Promise<void> {
  const conn = await c.any();
  const r = await conn.request(DescribeClientQuotas, describeFilter(parts));
  check(r.errorCode, parts.length ? `describe quotas of ${entityText(parts)}` : 'describe quotas', r.errorMessage);
  const entries: QuotaEntry[] = (r.entries ?? []).map((e) => ({
    entity: Object.fromEntries(e.entity.map((p) => [p.entityType, p.entityName])) as QuotaEntry['entity'],
    quotas: Object.fromEntries([...e.values].sort((a, b) => a.key.localeCompare(b.key)).map((x) => [x.key, x.value])),
  }));
  entries.sort(compareEntities);
  await out(v.json ? json(entries) : quotaTable(entries));
}

async function alterQuotas(c: KafkaClient, parts: EntityPart[], ops: Array<{ key: string; value: number; remove: boolean }>, validateOnly: boolean): Promise<void> {
  const conn = await c.any();
  const r = await conn.request(AlterClientQuotas, { entries: [{ entity: parts, ops }], validateOnly });
  const res = r.entries[0];
  if (!res) throw new Error('AlterClientQuotas: no result for the entity');
  check(res.errorCode, `alter quotas of ${entityText(parts)}`, res.errorMessage);
  await out(`${validateOnly ? 'Validated (not altered)' : 'Altered'} quotas of ${entityText(parts)}.\n`);
}
