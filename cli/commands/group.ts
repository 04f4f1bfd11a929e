// `runnel group list|describe|reset-offsets|delete`, as kafka-consumer-groups.sh,
// and `runnel group config|alter-config` (group-config.ts), as kafka-configs.sh --entity-type groups:
// ListGroups on every broker; DescribeGroups (ConsumerGroupDescribe for a consumer-protocol group), OffsetFetch and the log ends
// (ListOffsets) for lag; OffsetCommit outside any generation to reset an
// inactive group's offsets; DeleteGroups.
import { ListGroups } from '../../broker/src/protocol/messages/list-groups.js';
import { DescribeGroups } from '../../broker/src/protocol/messages/describe-groups.js';
import { ConsumerGroupDescribe } from '../../broker/src/protocol/messages/consumer-group-describe.js';
import { DeleteGroups } from '../../broker/src/protocol/messages/delete-groups.js';
import { OffsetCommit } from '../../broker/src/protocol/messages/offset-commit.js';
import { ErrorCode } from '../../common/errors.js';
import { check, CliUsageError, KafkaResponseError } from '../kafka/errors.js';
import type { KafkaClient } from '../kafka/client.js';
import { decodeAssignment } from '../kafka/consumer-protocol.js';
import { fetchCommittedAll } from '../kafka/group-member.js';
import { EARLIEST, LATEST, listOffsets } from '../kafka/fetcher.js';
import { CONNECTION_USAGE, int, json, list, nameArg, out, parse, subcommand, table, withClient, type Values } from './common.js';
import { alterGroupConfig, describeGroupConfig } from './group-config.js';

export const GROUP_USAGE = `usage: runnel group list [--json]
       runnel group describe GROUP [--json]
       runnel group reset-offsets GROUP (--topic T[:P,P...] ... | --all-topics)
                  (--to-earliest | --to-latest | --to-offset N | --shift-by N) [--execute] [--json]
       runnel group delete GROUP
       runnel group config GROUP [--all-configs] [--json]
       runnel group alter-config GROUP [--config k=v ...] [--delete-config k ...]

Consumer groups over the Kafka protocol. describe prints the group's state and members and, per
partition, the committed offset, the log end and the lag (log end - committed). reset-offsets
moves the committed offsets of an inactive group (no members); without --execute it only prints
the plan. --to-offset and --shift-by stay within [earliest, latest] of each partition.
config prints the group configs set for the group (Kafka's names: consumer.session.timeout.ms,
consumer.heartbeat.interval.ms, share.record.lock.duration.ms, ...); the group need not exist.

options:
  --topic T[:P,P...]        reset-offsets: topic T (all its partitions, or those listed); repeatable
  --all-topics              reset-offsets: every topic the group has committed offsets for
  --to-earliest             reset-offsets: to the log start
  --to-latest               reset-offsets: to the log end
  --to-offset N             reset-offsets: to offset N
  --shift-by N              reset-offsets: the committed offset plus N (back: --shift-by=-N)
  --execute                 reset-offsets: commit the new offsets (default: print the plan only)
  --config k=v              alter-config: set group config k; repeatable
  --delete-config k         alter-config: reset k to the broker's setting; repeatable
  --all-configs             config: every group config with its source, not only those set
  --json                    JSON instead of a table
${CONNECTION_USAGE}`;

export const GROUP_OPTIONS = {
  topic: { type: 'string', multiple: true },
  'all-topics': { type: 'boolean' },
  'to-earliest': { type: 'boolean' },
  'to-latest': { type: 'boolean' },
  'to-offset': { type: 'string' },
  'shift-by': { type: 'string' },
  execute: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
  config: { type: 'string', multiple: true },
  'delete-config': { type: 'string', multiple: true },
  'all-configs': { type: 'boolean' },
} as const;

const SUBCOMMANDS = ['list', 'describe', 'reset-offsets', 'delete', 'config', 'alter-config'] as const;

export async function groupCommand(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, GROUP_OPTIONS);
  const sub = subcommand(positionals, SUBCOMMANDS, 'group');
  if (sub === 'list') {
    if (positionals.length > 1) throw new CliUsageError(`unexpected argument ${positionals[1]}`);
    return withClient(values, (c) => listGroups(c, values));
  }
  const group = nameArg(positionals, 'group id');
  if (sub === 'describe') return withClient(values, (c) => describeGroup(c, group, values));
  if (sub === 'delete') return withClient(values, (c) => deleteGroup(c, group));
  if (sub === 'config') return withClient(values, (c) => describeGroupConfig(c, group, values));
  if (sub === 'alter-config') return withClient(values, (c) => alterGroupConfig(c, group, values));
  const plan = resetPlan(values);
  return withClient(values, (c) => resetOffsets(c, group, plan, values));
}

export interface ListedGroup { groupId: string; state: string; protocolType: string }

async function listGroups(c: KafkaClient, v: Values): Promise<void> {
  const md = await c.metadata([]);
  const seen = new Map<string, ListedGroup>();
  await Promise.all(md.brokers.map(async (b) => {
    const conn = await c.broker(b.nodeId);
    const r = await conn.request(ListGroups, { statesFilter: [] });
    check(r.errorCode, `ListGroups on node ${b.nodeId}`);
    for (const g of r.groups) seen.set(g.groupId, { groupId: g.groupId, state: g.groupState || '-', protocolType: g.protocolType });
  }));
  const groups = [...seen.values()].sort((a, b) => a.groupId.localeCompare(b.groupId));
  if (v.json) return out(json(groups));
  await out(table(['group', 'state', 'protocol type'], groups.map((g) => [g.groupId, g.state, g.protocolType || '-'])));
}

export interface GroupMemberInfo { memberId: string; clientId: string; clientHost: string; assignment: Array<{ topic: string; partitions: number[] }> }
export interface GroupPartition { topic: string; partition: number; committed: number | null; logEnd: number | null; lag: number | null; memberId: string | null }
export interface GroupDescription { groupId: string; state: string; protocolType: string; protocol: string; members: GroupMemberInfo[]; partitions: GroupPartition[] }

export async function describe(c: KafkaClient, groupId: string): Promise<GroupDescription> {
  const conn = await c.coordinator(groupId);
  const r = await conn.request(DescribeGroups, { groups: [groupId], includeAuthorizedOperations: false });
  const g = r.groups[0];
  if (!g) throw new Error('DescribeGroups: empty response');
  // A consumer-protocol group (KIP-848) is Dead to DescribeGroups: ConsumerGroupDescribe describes it, as kafka-consumer-groups does.
  const modern = g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND || g.groupState === 'Dead' ? await consumerGroupDescribe(conn, groupId) : undefined;
  if (modern && modern.errorCode === ErrorCode.NONE) {
    return withOffsets(c, groupId, { state: modern.groupState, protocolType: 'consumer', protocol: modern.assignorName }, modern.members.map((m) => ({
      memberId: m.memberId, clientId: m.clientId, clientHost: m.clientHost,
      assignment: m.assignment.topicPartitions.map((t) => ({ topic: t.topicName, partitions: t.partitions })),
    })));
  }
  check(g.errorCode, `describe group ${groupId}`);
  const members: GroupMemberInfo[] = g.members.map((m) => {
    let assignment: GroupMemberInfo['assignment'] = [];
    if (g.protocolType === 'consumer') {
      try {
        assignment = [...decodeAssignment(m.memberAssignment)].map(([topic, partitions]) => ({ topic, partitions }));
      } catch {
        assignment = [];
      }
    }
    return { memberId: m.memberId, clientId: m.clientId, clientHost: m.clientHost, assignment };
  });
  return withOffsets(c, groupId, { state: g.groupState, protocolType: g.protocolType, protocol: g.protocolData }, members);
}

/** The ConsumerGroupDescribe answer for the group; undefined from a broker without the API. */
async function consumerGroupDescribe(conn: Awaited<ReturnType<KafkaClient['coordinator']>>, groupId: string) {
  try {
    return (await conn.request(ConsumerGroupDescribe, { groupIds: [groupId], includeAuthorizedOperations: false })).groups[0];
  } catch (e) {
    if (e instanceof KafkaResponseError) return undefined; // UNSUPPORTED_VERSION: a broker before KIP-848
    throw e;
  }
}

/** The description with committed offsets, log ends and lag of every committed or assigned partition. */
async function withOffsets(c: KafkaClient, groupId: string, head: Pick<GroupDescription, 'state' | 'protocolType' | 'protocol'>, members: GroupMemberInfo[]): Promise<GroupDescription> {
  const owner = new Map<string, string>();
  for (const m of members) for (const a of m.assignment) for (const p of a.partitions) owner.set(`${a.topic}\0${p}`, m.memberId);
  const committed = await fetchCommittedAll(c, groupId, null);
  const keys = new Map<string, Set<number>>();
  for (const [t, ps] of committed) for (const p of ps.keys()) (keys.get(t) ?? keys.set(t, new Set()).get(t)!).add(p);
  for (const m of members) for (const a of m.assignment) for (const p of a.partitions) (keys.get(a.topic) ?? keys.set(a.topic, new Set()).get(a.topic)!).add(p);
  const partitions: GroupPartition[] = [];
  for (const [t, ps] of [...keys].sort(([a], [b]) => a.localeCompare(b))) {
    let ends = new Map<number, number>();
    try {
      ends = await listOffsets(c, await c.topic(t), [...ps], LATEST);
    } catch (e) {
      if (!(e instanceof KafkaResponseError)) throw e; // a deleted topic: no log end
    }
    for (const p of [...ps].sort((a, b) => a - b)) {
      const com = committed.get(t)?.get(p);
      const cOff = com === undefined || com < 0 ? null : com;
      const end = ends.get(p) ?? null;
      partitions.push({ topic: t, partition: p, committed: cOff, logEnd: end, lag: cOff !== null && end !== null ? Math.max(0, end - cOff) : null, memberId: owner.get(`${t}\0${p}`) ?? null });
    }
  }
  return { groupId, ...head, members, partitions };
}

export function describeText(d: GroupDescription): string {
  const totalLag = d.partitions.reduce((s, p) => s + (p.lag ?? 0), 0);
  const head = `group ${d.groupId}  state ${d.state}  protocol ${d.protocolType || '-'}/${d.protocol || '-'}  members ${d.members.length}  lag ${totalLag}\n`;
  const members = new Map(d.members.map((m) => [m.memberId, m]));
  const parts = table(['topic', 'partition', 'committed', 'log end', 'lag', 'consumer id', 'host', 'client id'], d.partitions.map((p) => {
    const m = p.memberId ? members.get(p.memberId) : undefined;
    return [p.topic, String(p.partition), p.committed === null ? '-' : String(p.committed), p.logEnd === null ? '-' : String(p.logEnd), p.lag === null ? '-' : String(p.lag), p.memberId ?? '-', m?.clientHost ?? '-', m?.clientId ?? '-'];
  }), new Set([1, 2, 3, 4]));
  return `${head}${parts}`;
}

async function describeGroup(c: KafkaClient, groupId: string, v: Values): Promise<void> {
  const d = await describe(c, groupId);
  if (d.state === 'Dead' && d.partitions.length === 0) throw new KafkaResponseError(ErrorCode.GROUP_ID_NOT_FOUND, `describe group ${groupId}`);
  await out(v.json ? json(d) : describeText(d));
}

export type ResetTo = { kind: 'earliest' } | { kind: 'latest' } | { kind: 'offset'; offset: number } | { kind: 'shift'; by: number };
export interface ResetPlan { topics: Array<{ name: string; partitions: number[] | null }> | null; to: ResetTo; execute: boolean }

export function resetPlan(v: Values): ResetPlan {
  const picks: ResetTo[] = [];
  if (v['to-earliest']) picks.push({ kind: 'earliest' });
  if (v['to-latest']) picks.push({ kind: 'latest' });
  const off = int(v, 'to-offset', 0);
  if (off !== undefined) picks.push({ kind: 'offset', offset: off });
  const shift = int(v, 'shift-by', -Number.MAX_SAFE_INTEGER);
  if (shift !== undefined) picks.push({ kind: 'shift', by: shift });
  if (picks.length !== 1) throw new CliUsageError('reset-offsets needs exactly one of --to-earliest, --to-latest, --to-offset N, --shift-by N');
  const topics = list(v, 'topic').map((t) => {
    const colon = t.lastIndexOf(':');
    if (colon < 0) return { name: t, partitions: null };
    const ps = t.slice(colon + 1).split(',').map((x) => Number(x));
    if (ps.some((p) => !Number.isInteger(p) || p < 0)) throw new CliUsageError(`--topic ${t}: expected TOPIC or TOPIC:P,P...`);
    return { name: t.slice(0, colon), partitions: ps };
  });
  if (topics.length > 0 === (v['all-topics'] === true)) throw new CliUsageError('reset-offsets needs --topic T (repeatable) or --all-topics');
  if (v.execute && v['dry-run']) throw new CliUsageError('--execute and --dry-run cannot be used together');
  return { topics: topics.length > 0 ? topics : null, to: picks[0]!, execute: v.execute === true };
}

async function resetOffsets(c: KafkaClient, groupId: string, plan: ResetPlan, v: Values): Promise<void> {
  const conn = await c.coordinator(groupId);
  const d = await conn.request(DescribeGroups, { groups: [groupId], includeAuthorizedOperations: false });
  const g = d.groups[0];
  if (g && g.errorCode === ErrorCode.NONE && g.groupState !== 'Empty' && g.groupState !== 'Dead') {
    throw new KafkaResponseError(ErrorCode.NON_EMPTY_GROUP, `reset offsets of group ${groupId}`, `it can be reset only while inactive; it is ${g.groupState} with ${g.members.length} member(s)`);
  }
  const committed = await fetchCommittedAll(c, groupId, null);
  const targets = plan.topics ?? [...committed.keys()].map((name) => ({ name, partitions: null }));
  const rows: Array<{ topic: string; partition: number; offset: number }> = [];
  for (const t of targets) {
    const info = await c.topic(t.name);
    const ps = t.partitions ?? info.partitions.map((p) => p.partition);
    const [starts, ends] = await Promise.all([listOffsets(c, info, ps, EARLIEST), listOffsets(c, info, ps, LATEST)]);
    for (const p of ps) {
      const lo = starts.get(p)!;
      const hi = ends.get(p)!;
      const cur = committed.get(t.name)?.get(p) ?? -1;
      const want = plan.to.kind === 'earliest' ? lo : plan.to.kind === 'latest' ? hi : plan.to.kind === 'offset' ? plan.to.offset : (cur >= 0 ? cur : hi) + plan.to.by;
      rows.push({ topic: t.name, partition: p, offset: Math.min(hi, Math.max(lo, want)) });
    }
  }
  if (plan.execute && rows.length > 0) {
    const byTopic = new Map<string, typeof rows>();
    for (const r of rows) byTopic.set(r.topic, [...(byTopic.get(r.topic) ?? []), r]);
    const r = await conn.request(OffsetCommit, {
      groupId, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null,
      topics: [...byTopic].map(([name, rs]) => ({ name, partitions: rs.map((x) => ({ partitionIndex: x.partition, committedOffset: x.offset, committedLeaderEpoch: -1, committedMetadata: '' })) })),
    });
    for (const t of r.topics) for (const p of t.partitions) check(p.errorCode, `OffsetCommit ${groupId} ${t.name}-${p.partitionIndex}`);
  }
  if (v.json) return out(json({ groupId, executed: plan.execute, offsets: rows }));
  const note = plan.execute ? '' : '(dry run: add --execute to commit these offsets)\n';
  await out(`${table(['group', 'topic', 'partition', 'new offset'], rows.map((r) => [groupId, r.topic, String(r.partition), String(r.offset)]), new Set([2, 3]))}${note}`);
}

async function deleteGroup(c: KafkaClient, groupId: string): Promise<void> {
  const conn = await c.coordinator(groupId);
  const r = await conn.request(DeleteGroups, { groupsNames: [groupId] });
  const res = r.results[0];
  if (!res) throw new Error('DeleteGroups: empty response');
  check(res.errorCode, `delete group ${groupId}`);
  await out(`Deleted group ${groupId}.\n`);
}
