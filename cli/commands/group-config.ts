// `runnel group config GROUP` and `runnel group alter-config GROUP`: the
// group's configs (Kafka's GROUP config resource, as kafka-configs.sh
// --entity-type groups): DescribeConfigs, IncrementalAlterConfigs SET/DELETE.
import { DescribeConfigs } from '../../broker/src/protocol/messages/describe-configs.js';
import { IncrementalAlterConfigs } from '../../broker/src/protocol/messages/incremental-alter-configs.js';
import { check, CliUsageError } from '../kafka/errors.js';
import type { KafkaClient } from '../kafka/client.js';
import { json, list, out, pairs, table, type Values } from './common.js';
import { CONFIG_SOURCES } from './topic.js';

/** DescribeConfigs / IncrementalAlterConfigs resource type of a group (Kafka's ConfigResource.Type.GROUP). */
const GROUP_RESOURCE = 32;

export interface GroupConfig { name: string; value: string | null; source: string }

export async function groupConfigs(c: KafkaClient, group: string): Promise<GroupConfig[]> {
  const conn = await c.any();
  const r = await conn.request(DescribeConfigs, { resources: [{ resourceType: GROUP_RESOURCE, resourceName: group, configurationKeys: null }] });
  const res = r.results[0];
  if (!res) throw new Error('DescribeConfigs: empty response');
  check(res.errorCode, `describe configs of group ${group}`, res.errorMessage);
  return res.configs.map((x) => ({ name: x.name, value: x.value, source: CONFIG_SOURCES[x.configSource] ?? String(x.configSource) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The configs set for the group (--all-configs: every config, with its source). */
export async function describeGroupConfig(c: KafkaClient, group: string, v: Values): Promise<void> {
  const all = await groupConfigs(c, group);
  const configs = v['all-configs'] ? all : all.filter((x) => x.source === 'GROUP_CONFIG');
  if (v.json) return out(json({ group, configs }));
  if (configs.length === 0) return out(`group ${group}: no configs set for the group\n`);
  return out(`group ${group} configs\n${table(['name', 'value', 'source'], configs.map((x) => [x.name, x.value ?? 'null', x.source]))}`);
}

/** IncrementalAlterConfigs operations: SET (0) and DELETE (1). */
export async function alterGroupConfig(c: KafkaClient, group: string, v: Values): Promise<void> {
  const sets = pairs(list(v, 'config'), 'config').map(([k, val]) => ({ name: k, configOperation: 0, value: val }));
  const deletes = list(v, 'delete-config').map((k) => ({ name: k, configOperation: 1, value: null }));
  if (sets.length + deletes.length === 0) throw new CliUsageError('alter-config needs --config k=v or --delete-config k');
  const conn = await c.any();
  const r = await conn.request(IncrementalAlterConfigs, { resources: [{ resourceType: GROUP_RESOURCE, resourceName: group, configs: [...sets, ...deletes] }], validateOnly: false });
  const res = r.responses[0];
  if (!res) throw new Error('IncrementalAlterConfigs: empty response');
  check(res.errorCode, `alter configs of group ${group}`, res.errorMessage);
  await out(`Altered configs of group ${group}.\n`);
}
