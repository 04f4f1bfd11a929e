// `runnel topic create|list|describe|alter-config|add-partitions|delete`:
// CreateTopics, Metadata, DescribeConfigs, IncrementalAlterConfigs,
// CreatePartitions and DeleteTopics, as kafka-topics.sh and kafka-configs.sh do.
import { CreateTopics } from '../../broker/src/protocol/messages/create-topics.js';
import { DeleteTopics } from '../../broker/src/protocol/messages/delete-topics.js';
import { CreatePartitions } from '../../broker/src/protocol/messages/create-partitions.js';
import { DescribeConfigs } from '../../broker/src/protocol/messages/describe-configs.js';
import { IncrementalAlterConfigs } from '../../broker/src/protocol/messages/incremental-alter-configs.js';
import { ErrorCode } from '../../common/errors.js';
import { check, CliUsageError } from '../kafka/errors.js';
import type { KafkaClient, TopicInfo } from '../kafka/client.js';
import { CONNECTION_USAGE, int, json, list, nameArg, out, pairs, parse, subcommand, table, withClient, type Values } from './common.js';

export const TOPIC_USAGE = `usage: runnel topic create NAME [--partitions N] [--replication-factor R] [--config k=v ...] [--if-not-exists]
       runnel topic list [--exclude-internal] [--json]
       runnel topic describe NAME [--all-configs] [--json]
       runnel topic alter-config NAME [--config k=v ...] [--delete-config k ...]
       runnel topic add-partitions NAME --partitions N
       runnel topic delete NAME [--if-exists]

Topics over the Kafka protocol (any Kafka-compatible broker). --partitions and --replication-factor
default to the broker's num.partitions and default.replication.factor. describe shows partitions,
leaders, replicas, in-sync replicas and the configs set on the topic (--all-configs: every config).
add-partitions grows the topic to N partitions in all.

options:
  --partitions N            partition count (create: the initial count; add-partitions: the new total)
  --replication-factor R    replicas per partition
  --config k=v              a topic config (Kafka's names: retention.ms, cleanup.policy, ...); repeatable
  --delete-config k         alter-config: reset k to its default; repeatable
  --if-not-exists           create: no error if the topic exists
  --if-exists               delete: no error if the topic does not exist
  --exclude-internal        list: leave out internal topics (__consumer_offsets)
  --all-configs             describe: every config, not only those set on the topic
  --json                    JSON instead of a table
${CONNECTION_USAGE}`;

const OPTIONS = {
  partitions: { type: 'string' },
  'replication-factor': { type: 'string' },
  config: { type: 'string', multiple: true },
  'delete-config': { type: 'string', multiple: true },
  'if-not-exists': { type: 'boolean' },
  'if-exists': { type: 'boolean' },
  'exclude-internal': { type: 'boolean' },
  'all-configs': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

const SUBCOMMANDS = ['create', 'list', 'describe', 'alter-config', 'add-partitions', 'delete'] as const;

/** DescribeConfigs resource type of a topic; ConfigSource names by number (DescribeConfigsResponse). */
const TOPIC_RESOURCE = 2;
export const CONFIG_SOURCES = ['UNKNOWN', 'DYNAMIC_TOPIC_CONFIG', 'DYNAMIC_BROKER_CONFIG', 'DYNAMIC_DEFAULT_BROKER_CONFIG', 'STATIC_BROKER_CONFIG', 'DEFAULT_CONFIG', 'DYNAMIC_BROKER_LOGGER_CONFIG', 'CLIENT_METRICS_CONFIG', 'GROUP_CONFIG'];

export interface TopicConfig {
  name: string;
  value: string | null;
  source: string;
  readOnly: boolean;
  sensitive: boolean;
}

export async function topicCommand(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, OPTIONS);
  const sub = subcommand(positionals, SUBCOMMANDS, 'topic');
  if (sub === 'list') {
    if (positionals.length > 1) throw new CliUsageError(`unexpected argument ${positionals[1]}`);
    return withClient(values, (c) => listTopics(c, values));
  }
  const name = nameArg(positionals, 'topic name');
  switch (sub) {
    case 'create': return withClient(values, (c) => createTopic(c, name, values));
    case 'describe': return withClient(values, (c) => describeTopic(c, name, values));
    case 'alter-config': return withClient(values, (c) => alterConfig(c, name, values));
    case 'add-partitions': return withClient(values, (c) => addPartitions(c, name, values));
    default: return withClient(values, (c) => deleteTopic(c, name, values));
  }
}

async function createTopic(c: KafkaClient, name: string, v: Values): Promise<void> {
  const configs = pairs(list(v, 'config'), 'config').map(([k, val]) => ({ name: k, value: val }));
  const conn = await c.any();
  const r = await conn.request(CreateTopics, {
    topics: [{ name, numPartitions: int(v, 'partitions', 1, 2 ** 31 - 1) ?? -1, replicationFactor: int(v, 'replication-factor', 1, 32767) ?? -1, assignments: [], configs }],
    timeoutMs: c.cfg.timeoutMs,
  });
  const t = r.topics[0];
  if (!t) throw new Error('CreateTopics: empty response');
  if (t.errorCode === ErrorCode.TOPIC_ALREADY_EXISTS && v['if-not-exists']) return;
  check(t.errorCode, `create topic ${name}`, t.errorMessage);
  await out(`Created topic ${name}.\n`);
}

async function listTopics(c: KafkaClient, v: Values): Promise<void> {
  const md = await c.metadata(null);
  const topics = md.topics.filter((t) => !(v['exclude-internal'] && t.internal)).sort((a, b) => a.name.localeCompare(b.name));
  if (v.json) return out(json(topics.map((t) => ({ name: t.name, topicId: t.topicId, partitions: t.partitions.length, internal: t.internal }))));
  await out(table(['topic', 'partitions', 'internal'], topics.map((t) => [t.name, String(t.partitions.length), t.internal ? 'yes' : 'no']), new Set([1])));
}

export async function topicConfigs(c: KafkaClient, name: string): Promise<TopicConfig[]> {
  const conn = await c.any();
  const r = await conn.request(DescribeConfigs, { resources: [{ resourceType: TOPIC_RESOURCE, resourceName: name, configurationKeys: null }] });
  const res = r.results[0];
  if (!res) throw new Error('DescribeConfigs: empty response');
  check(res.errorCode, `describe configs of topic ${name}`, res.errorMessage);
  return res.configs.map((x) => ({ name: x.name, value: x.value, source: CONFIG_SOURCES[x.configSource] ?? String(x.configSource), readOnly: x.readOnly, sensitive: x.isSensitive }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

export function describeText(t: TopicInfo, configs: TopicConfig[]): string {
  const head = `topic ${t.name}  id ${t.topicId}  partitions ${t.partitions.length}${t.internal ? '  internal' : ''}\n`;
  const parts = table(['partition', 'leader', 'epoch', 'replicas', 'isr'], t.partitions.map((p) => [
    String(p.partition), p.leader < 0 ? 'none' : String(p.leader), String(p.leaderEpoch), p.replicas.join(','), p.isr.join(','),
  ]), new Set([0, 1, 2]));
  const cfg = configs.length === 0 ? 'configs: none set on the topic\n'
    : `configs\n${table(['name', 'value', 'source'], configs.map((x) => [x.name, x.sensitive ? '(sensitive)' : x.value ?? 'null', x.source]))}`;
  return `${head}${parts}\n${cfg}`;
}

async function describeTopic(c: KafkaClient, name: string, v: Values): Promise<void> {
  const t = (await c.metadata([name])).topics.find((x) => x.name === name);
  if (!t) throw new Error(`Metadata: no answer for topic ${name}`);
  check(t.errorCode, `topic ${name}`);
  const all = await topicConfigs(c, name);
  const configs = v['all-configs'] ? all : all.filter((x) => x.source === 'DYNAMIC_TOPIC_CONFIG');
  if (v.json) {
    return out(json({
      name: t.name, topicId: t.topicId, internal: t.internal,
      partitions: t.partitions.map((p) => ({ partition: p.partition, leader: p.leader, leaderEpoch: p.leaderEpoch, replicas: p.replicas, isr: p.isr })),
      configs,
    }));
  }
  await out(describeText(t, configs));
}

/** IncrementalAlterConfigs operations: SET (0) and DELETE (1). */
async function alterConfig(c: KafkaClient, name: string, v: Values): Promise<void> {
  const sets = pairs(list(v, 'config'), 'config').map(([k, val]) => ({ name: k, configOperation: 0, value: val }));
  const deletes = list(v, 'delete-config').map((k) => ({ name: k, configOperation: 1, value: null }));
  if (sets.length + deletes.length === 0) throw new CliUsageError('alter-config needs --config k=v or --delete-config k');
  const conn = await c.any();
  const r = await conn.request(IncrementalAlterConfigs, { resources: [{ resourceType: TOPIC_RESOURCE, resourceName: name, configs: [...sets, ...deletes] }], validateOnly: false });
  const res = r.responses[0];
  if (!res) throw new Error('IncrementalAlterConfigs: empty response');
  check(res.errorCode, `alter configs of topic ${name}`, res.errorMessage);
  await out(`Altered configs of topic ${name}.\n`);
}

async function addPartitions(c: KafkaClient, name: string, v: Values): Promise<void> {
  const count = int(v, 'partitions', 1, 2 ** 31 - 1);
  if (count === undefined) throw new CliUsageError('add-partitions needs --partitions N (the new total)');
  const conn = await c.any();
  const r = await conn.request(CreatePartitions, { topics: [{ name, count, assignments: null }], timeoutMs: c.cfg.timeoutMs, validateOnly: false });
  const res = r.results[0];
  if (!res) throw new Error('CreatePartitions: empty response');
  check(res.errorCode, `add partitions to topic ${name}`, res.errorMessage);
  await out(`Topic ${name} has ${count} partitions.\n`);
}

async function deleteTopic(c: KafkaClient, name: string, v: Values): Promise<void> {
  const conn = await c.any();
  const r = await conn.request(DeleteTopics, { topics: [{ name, topicId: null }], topicNames: [name], timeoutMs: c.cfg.timeoutMs });
  const res = r.responses[0];
  if (!res) throw new Error('DeleteTopics: empty response');
  if (res.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION && v['if-exists']) return;
  check(res.errorCode, `delete topic ${name}`, res.errorMessage);
  await out(`Deleted topic ${name}.\n`);
}
