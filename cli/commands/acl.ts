// `runnel acl list|create|delete`: DescribeAcls, CreateAcls and DeleteAcls with
// kafka-acls' semantics. Resource types, pattern types, operations and
// permissions by Kafka's numbers (ResourceType, PatternType, AclOperation,
// AclPermissionType); operations are accepted as kafka-acls spells them
// (Read, IdempotentWrite) or as Kafka prints them (READ, IDEMPOTENT_WRITE).
import { CreateAcls } from '../../broker/src/protocol/messages/create-acls.js';
import { DeleteAcls } from '../../broker/src/protocol/messages/delete-acls.js';
import { DescribeAcls } from '../../broker/src/protocol/messages/describe-acls.js';
import { check, CliUsageError } from '../kafka/errors.js';
import type { KafkaClient } from '../kafka/client.js';
import { CONNECTION_USAGE, json, list, out, parse, str, subcommand, table, withClient, type Values } from './common.js';

export const ACL_USAGE = `usage: runnel acl list [--topic T | --group G | --cluster | --transactional-id X] [--prefixed] [--principal P] [--json]
       runnel acl create --allow|--deny --principal User:NAME --operation OP [--operation OP ...]
                         (--topic T [--prefixed] | --group G | --cluster | --transactional-id X) [--host H]
       runnel acl delete (--topic T [--prefixed] | --group G | --cluster | --transactional-id X)
                         [--allow|--deny] [--principal P] [--operation OP ...] [--host H] [--json]

ACLs over the Kafka protocol, as kafka-acls does. list without a resource shows every ACL; with one,
ACLs of any pattern type on that name (--prefixed: only PREFIXED ones). create adds one ACL per
--operation (pattern LITERAL, or PREFIXED with --prefixed; host * by default). delete removes the
ACLs matching the filter: a missing --allow/--deny, --principal, --operation or --host matches any.

options:
  --topic T | --group G | --transactional-id X | --cluster    the resource (the cluster is kafka-cluster)
  --prefixed                the resource name is a prefix (pattern type PREFIXED)
  --principal P             the principal, e.g. User:alice
  --allow | --deny          the permission type
  --operation OP            Read, Write, Create, Delete, Alter, Describe, ClusterAction, DescribeConfigs,
                            AlterConfigs, IdempotentWrite, CreateTokens, DescribeTokens, All; repeatable
  --host H                  the client host (default *)
  --json                    JSON instead of a table
${CONNECTION_USAGE}`;

export const ACL_OPTIONS = {
  topic: { type: 'string' },
  group: { type: 'string' },
  cluster: { type: 'boolean' },
  'transactional-id': { type: 'string' },
  prefixed: { type: 'boolean' },
  principal: { type: 'string' },
  allow: { type: 'boolean' },
  deny: { type: 'boolean' },
  operation: { type: 'string', multiple: true },
  host: { type: 'string' },
  json: { type: 'boolean' },
} as const;

const SUBCOMMANDS = ['list', 'create', 'delete'] as const;

export const RESOURCE_TYPES = ['UNKNOWN', 'ANY', 'TOPIC', 'GROUP', 'CLUSTER', 'TRANSACTIONAL_ID', 'DELEGATION_TOKEN', 'USER'];
export const PATTERN_TYPES = ['UNKNOWN', 'ANY', 'MATCH', 'LITERAL', 'PREFIXED'];
export const OPERATIONS = ['UNKNOWN', 'ANY', 'ALL', 'READ', 'WRITE', 'CREATE', 'DELETE', 'ALTER', 'DESCRIBE', 'CLUSTER_ACTION', 'DESCRIBE_CONFIGS', 'ALTER_CONFIGS', 'IDEMPOTENT_WRITE', 'CREATE_TOKENS', 'DESCRIBE_TOKENS'];
export const PERMISSIONS = ['UNKNOWN', 'ANY', 'DENY', 'ALLOW'];
const ANY = 1;
const LITERAL = 3;
const PREFIXED = 4;

/** An ACL filter (DescribeAcls' request, one DeleteAcls filter) by Kafka's numbers. */
export interface AclFilter {
  resourceTypeFilter: number;
  resourceNameFilter: string | null;
  patternTypeFilter: number;
  principalFilter: string | null;
  hostFilter: string | null;
  operation: number;
  permissionType: number;
}

export interface AclBinding {
  resourceType: string;
  resourceName: string;
  patternType: string;
  principal: string;
  host: string;
  operation: string;
  permission: string;
}

/** An operation by kafka-acls' name (Read, IdempotentWrite) or Kafka's enum name (READ, IDEMPOTENT_WRITE). */
export function operationCode(name: string): number {
  const key = name.replace(/[_-]/g, '').toUpperCase();
  const i = OPERATIONS.findIndex((o, n) => n >= 2 && o.replace(/_/g, '') === key);
  if (i < 0) throw new CliUsageError(`--operation ${name}: unknown; expected one of ${OPERATIONS.slice(2).join(', ')}`);
  return i;
}

/** The resource flag given: its type and name; none is null, two are a usage error. */
export function resourceOf(v: Values): { type: number; name: string } | null {
  const given: Array<{ type: number; name: string }> = [];
  const topic = str(v, 'topic');
  const group = str(v, 'group');
  const txn = str(v, 'transactional-id');
  if (topic !== undefined) given.push({ type: 2, name: topic });
  if (group !== undefined) given.push({ type: 3, name: group });
  if (v.cluster) given.push({ type: 4, name: 'kafka-cluster' });
  if (txn !== undefined) given.push({ type: 5, name: txn });
  if (given.length > 1) throw new CliUsageError('give one resource: --topic, --group, --cluster or --transactional-id');
  if (given[0]?.name === '') throw new CliUsageError('the resource name is empty');
  return given[0] ?? null;
}

function permissionOf(v: Values, required: boolean): number {
  if (v.allow && v.deny) throw new CliUsageError('--allow and --deny together');
  if (v.allow) return 3;
  if (v.deny) return 2;
  if (required) throw new CliUsageError('create needs --allow or --deny');
  return ANY;
}

/** The filter of `acl list` (pattern ANY unless --prefixed) or `acl delete` (LITERAL unless --prefixed; a resource is required). */
export function aclFilters(v: Values, sub: 'list' | 'delete'): AclFilter[] {
  const r = resourceOf(v);
  if (!r && sub === 'delete') throw new CliUsageError('delete needs a resource: --topic, --group, --cluster or --transactional-id');
  if (!r && v.prefixed) throw new CliUsageError('--prefixed needs --topic, --group or --transactional-id');
  const ops = list(v, 'operation').map(operationCode);
  const base = {
    resourceTypeFilter: r ? r.type : ANY,
    resourceNameFilter: r ? r.name : null,
    patternTypeFilter: v.prefixed ? PREFIXED : sub === 'list' ? ANY : LITERAL,
    principalFilter: str(v, 'principal') ?? null,
    hostFilter: str(v, 'host') ?? null,
    permissionType: permissionOf(v, false),
  };
  return (ops.length ? ops : [ANY]).map((operation) => ({ ...base, operation }));
}

/** One CreateAcls creation per --operation. */
export function aclCreations(v: Values): Array<{ resourceType: number; resourceName: string; resourcePatternType: number; principal: string; host: string; operation: number; permissionType: number }> {
  const r = resourceOf(v);
  if (!r) throw new CliUsageError('create needs a resource: --topic, --group, --cluster or --transactional-id');
  const principal = str(v, 'principal');
  if (!principal) throw new CliUsageError('create needs --principal (e.g. User:alice)');
  if (!/^[^:]+:.+$/.test(principal)) throw new CliUsageError(`--principal ${principal}: expected TYPE:NAME (User:alice)`);
  const ops = list(v, 'operation').map(operationCode);
  if (ops.length === 0) throw new CliUsageError('create needs --operation');
  const permissionType = permissionOf(v, true);
  return ops.map((operation) => ({
    resourceType: r.type, resourceName: r.name, resourcePatternType: v.prefixed ? PREFIXED : LITERAL,
    principal, host: str(v, 'host') ?? '*', operation, permissionType,
  }));
}

const name = (names: string[], n: number): string => names[n] ?? String(n);

export async function aclCommand(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, ACL_OPTIONS);
  const sub = subcommand(positionals, SUBCOMMANDS, 'acl');
  if (positionals.length > 1) throw new CliUsageError(`unexpected argument ${positionals[1]}`);
  if (sub === 'create') {
    const creations = aclCreations(values);
    return withClient(values, (c) => createAcls(c, creations));
  }
  const filters = aclFilters(values, sub === 'list' ? 'list' : 'delete');
  return withClient(values, (c) => (sub === 'list' ? listAcls(c, filters, values) : deleteAcls(c, filters, values)));
}

async function createAcls(c: KafkaClient, creations: ReturnType<typeof aclCreations>): Promise<void> {
  const conn = await c.any();
  const r = await conn.request(CreateAcls, { creations });
  creations.forEach((x, i) => {
    const res = r.results[i];
    if (!res) throw new Error('CreateAcls: short response');
    check(res.errorCode, `create ACL ${name(PERMISSIONS, x.permissionType)} ${x.principal} ${name(OPERATIONS, x.operation)} on ${name(RESOURCE_TYPES, x.resourceType)} ${x.resourceName}`, res.errorMessage);
  });
  await out(`Created ${creations.length} ACL${creations.length === 1 ? '' : 's'}.\n`);
}

async function listAcls(c: KafkaClient, filters: AclFilter[], v: Values): Promise<void> {
  const conn = await c.any();
  const seen = new Map<string, AclBinding>();
  for (const filter of filters) {
    const r = await conn.request(DescribeAcls, filter);
    check(r.errorCode, 'describe ACLs', r.errorMessage);
    for (const res of r.resources) {
      for (const a of res.acls) {
        const b: AclBinding = {
          resourceType: name(RESOURCE_TYPES, res.resourceType), resourceName: res.resourceName, patternType: name(PATTERN_TYPES, res.patternType),
          principal: a.principal, host: a.host, operation: name(OPERATIONS, a.operation), permission: name(PERMISSIONS, a.permissionType),
        };
        seen.set(JSON.stringify(b), b);
      }
    }
  }
  await printBindings([...seen.values()], v);
}

async function deleteAcls(c: KafkaClient, filters: AclFilter[], v: Values): Promise<void> {
  const conn = await c.any();
  const r = await conn.request(DeleteAcls, { filters });
  const deleted: AclBinding[] = [];
  for (const fr of r.filterResults) {
    check(fr.errorCode, 'delete ACLs', fr.errorMessage);
    for (const m of fr.matchingAcls) {
      check(m.errorCode, `delete ACL on ${name(RESOURCE_TYPES, m.resourceType)} ${m.resourceName}`, m.errorMessage);
      deleted.push({
        resourceType: name(RESOURCE_TYPES, m.resourceType), resourceName: m.resourceName, patternType: name(PATTERN_TYPES, m.patternType),
        principal: m.principal, host: m.host, operation: name(OPERATIONS, m.operation), permission: name(PERMISSIONS, m.permissionType),
      });
    }
  }
  if (v.json) return out(json(deleted));
  await out(`Deleted ${deleted.length} ACL${deleted.length === 1 ? '' : 's'}.\n`);
  if (deleted.length) await printBindings(deleted, v);
}

function printBindings(bs: AclBinding[], v: Values): Promise<void> {
  const sorted = [...bs].sort((a, b) => `${a.resourceType} ${a.resourceName} ${a.principal} ${a.operation}`.localeCompare(`${b.resourceType} ${b.resourceName} ${b.principal} ${b.operation}`));
  if (v.json) return out(json(sorted));
  return out(table(['resource', 'name', 'pattern', 'principal', 'host', 'operation', 'permission'],
    sorted.map((b) => [b.resourceType, b.resourceName, b.patternType, b.principal, b.host, b.operation, b.permission])));
}
