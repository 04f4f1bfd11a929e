// Validation and resolution of group configs, sans-IO: Kafka 4.4's
// GroupConfig.validate (names, values, ranges set by the broker's
// group.*.min/max settings, session timeout above heartbeat interval) and
// the effective values (an override, else the broker setting it overrides,
// else Kafka's default).
import { GROUP_CONFIG_BY_NAME, GROUP_CONFIG_DEFS, KAFKA_BROKER_DEFAULTS, parseShareAutoOffsetReset, parseValue, type GroupConfigDef, type GroupConfigType, type ShareAutoOffsetReset } from './group-config-defs.js';

/** A broker setting as the group configs see it: its value, and whether it was set (not Kafka's or Runnel's default). */
export interface BrokerSetting { value: string; explicit: boolean }

/** The broker's group.* settings by Kafka name; a name Runnel does not read is Kafka's default. */
export type BrokerSettings = (key: string) => BrokerSetting;

/** Broker settings from `entries` (Runnel's own, by Kafka name), else Kafka's defaults. */
export function brokerSettings(entries: ReadonlyArray<{ key: string; value: string | null; isDefault: boolean }>): BrokerSettings {
  const own = new Map(entries.map((e) => [e.key, e]));
  return (key) => {
    const e = own.get(key);
    if (e && e.value !== null) return { value: e.value, explicit: !e.isDefault };
    return { value: KAFKA_BROKER_DEFAULTS[key] ?? '', explicit: false };
  };
}

const num = (s: BrokerSettings, key: string): number => Number(s(key).value);

/** What a group config is when the group does not set it: the broker setting it overrides, else Kafka's default. */
function inherited(d: GroupConfigDef, broker: BrokerSettings): string {
  if (!d.synonym) return d.default;
  const v = broker(d.synonym).value;
  // streams.assignor.name defaults to the first of group.streams.assignors.
  return d.name === 'streams.assignor.name' ? (v.split(',')[0] ?? '').trim() : v;
}

/**
 * The stored form of a group's new config set, or Kafka's InvalidConfigurationException
 * / ConfigException message (answered as INVALID_CONFIG). Only what is in
 * `configs` is checked against the broker's bounds, as Kafka does.
 */
export function validateGroupConfigs(configs: Readonly<Record<string, string>>, broker: BrokerSettings): { configs: Record<string, string> } | { error: string } {
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(configs)) {
    const d = GROUP_CONFIG_BY_NAME.get(name);
    if (!d) return { error: `Unknown group config name: ${name}` };
    const p = parseValue(d, raw);
    if ('error' in p) return p;
    out[name] = p.value;
  }
  for (const d of GROUP_CONFIG_DEFS) {
    const v = out[d.name];
    if (v === undefined || (!d.minKey && !d.maxKey)) continue;
    const n = Number(v);
    const min = d.minKey ? num(broker, d.minKey) : null;
    const max = d.maxKey ? num(broker, d.maxKey) : null;
    if (min !== null && max !== null) {
      if (n < min || n > max) return { error: `${d.name} must be in the range ${min} to ${max} inclusive.` };
    } else if (max !== null && n > max) return { error: `${d.name} must be less than or equal to ${max}` };
    else if (min !== null && n < min) return { error: `${d.name} must be greater than or equal to ${min}` };
  }
  const assignor = out['streams.assignor.name'];
  if (assignor !== undefined) {
    const names = broker('group.streams.assignors').value.split(',').map((x) => x.trim()).filter((x) => x !== '');
    if (!names.includes(assignor)) return { error: `streams.assignor.name '${assignor}' is not a registered task assignor. Registered assignors are: [${names.join(', ')}].` };
  }
  const tags = out['streams.rack.aware.assignment.tags'];
  if (tags !== undefined && new Set(tags.split(',')).size !== tags.split(',').length) return { error: 'streams.rack.aware.assignment.tags must not contain duplicate tag keys.' };
  for (const family of ['consumer', 'share', 'streams']) {
    const session = `${family}.session.timeout.ms`;
    const heartbeat = `${family}.heartbeat.interval.ms`;
    if (out[session] === undefined && out[heartbeat] === undefined) continue;
    const s = Number(out[session] ?? broker(`group.${session}`).value);
    const h = Number(out[heartbeat] ?? broker(`group.${heartbeat}`).value);
    if (s <= h) return { error: `${session} must be greater than ${heartbeat}` };
  }
  return { configs: out };
}

/** DescribeConfigs sources (Kafka's ConfigSource ids). */
export const GROUP_SOURCE = { GROUP_CONFIG: 8, STATIC_BROKER_CONFIG: 4, DEFAULT_CONFIG: 5 } as const;

export interface ResolvedGroupConfig {
  name: string;
  value: string;
  type: GroupConfigType;
  source: number;
  /** Kafka's synonyms, most specific first: the group override, then the broker setting it overrides. */
  synonyms: Array<{ name: string; value: string; source: number }>;
  doc: string;
}

/** Every group config of a group with `overrides`, as DescribeConfigs lists them (internal ones only when set). */
export function resolveGroupConfigs(overrides: Readonly<Record<string, string>>, broker: BrokerSettings): ResolvedGroupConfig[] {
  const out: ResolvedGroupConfig[] = [];
  for (const d of GROUP_CONFIG_DEFS) {
    const own = overrides[d.name];
    if (d.internal && own === undefined) continue;
    const synonyms: ResolvedGroupConfig['synonyms'] = [];
    if (own !== undefined) synonyms.push({ name: d.name, value: own, source: GROUP_SOURCE.GROUP_CONFIG });
    if (d.synonym) {
      const b = broker(d.synonym);
      if (b.explicit) synonyms.push({ name: d.synonym, value: b.value, source: GROUP_SOURCE.STATIC_BROKER_CONFIG });
      synonyms.push({ name: d.synonym, value: KAFKA_BROKER_DEFAULTS[d.synonym] ?? d.default, source: GROUP_SOURCE.DEFAULT_CONFIG });
    } else {
      // No broker setting behind it: Kafka's default, under the config's own name.
      synonyms.push({ name: d.name, value: d.default, source: GROUP_SOURCE.DEFAULT_CONFIG });
    }
    out.push({ name: d.name, value: own ?? inherited(d, broker), type: d.type, source: synonyms[0]?.source ?? GROUP_SOURCE.DEFAULT_CONFIG, synonyms, doc: d.doc });
  }
  return out;
}

/** The values a group's coordinators use: overrides, else the broker's settings. */
export interface EffectiveGroupConfig {
  consumerSessionTimeoutMs: number;
  consumerHeartbeatIntervalMs: number;
  consumerAssignmentIntervalMs: number;
  shareSessionTimeoutMs: number;
  shareHeartbeatIntervalMs: number;
  shareRecordLockDurationMs: number;
  shareDeliveryCountLimit: number;
  sharePartitionMaxRecordLocks: number;
  shareAutoOffsetReset: ShareAutoOffsetReset;
  shareIsolationLevel: 'read_committed' | 'read_uncommitted';
  shareRenewAcknowledgeEnable: boolean;
  /** Blank: the share group has no dead-letter queue. */
  errorsDeadLetterQueueTopicName: string;
  errorsDeadLetterQueueCopyRecordEnable: boolean;
  /** Every config by name (streams.* included), as DescribeConfigs shows it. */
  values: ReadonlyMap<string, string>;
}

export function effectiveGroupConfig(overrides: Readonly<Record<string, string>>, broker: BrokerSettings): EffectiveGroupConfig {
  const values = new Map<string, string>();
  for (const d of GROUP_CONFIG_DEFS) {
    const own = overrides[d.name];
    values.set(d.name, own ?? inherited(d, broker));
  }
  const str = (n: string): string => values.get(n) ?? GROUP_CONFIG_BY_NAME.get(n)!.default;
  const int = (n: string): number => Number(str(n));
  return {
    consumerSessionTimeoutMs: int('consumer.session.timeout.ms'),
    consumerHeartbeatIntervalMs: int('consumer.heartbeat.interval.ms'),
    consumerAssignmentIntervalMs: int('consumer.assignment.interval.ms'),
    shareSessionTimeoutMs: int('share.session.timeout.ms'),
    shareHeartbeatIntervalMs: int('share.heartbeat.interval.ms'),
    shareRecordLockDurationMs: int('share.record.lock.duration.ms'),
    shareDeliveryCountLimit: int('share.delivery.count.limit'),
    sharePartitionMaxRecordLocks: int('share.partition.max.record.locks'),
    shareAutoOffsetReset: parseShareAutoOffsetReset(str('share.auto.offset.reset')) ?? { strategy: 'latest' },
    shareIsolationLevel: str('share.isolation.level') === 'read_committed' ? 'read_committed' : 'read_uncommitted',
    shareRenewAcknowledgeEnable: str('share.renew.acknowledge.enable') === 'true',
    errorsDeadLetterQueueTopicName: str('errors.deadletterqueue.topic.name'),
    errorsDeadLetterQueueCopyRecordEnable: str('errors.deadletterqueue.copy.record.enable') === 'true',
    values,
  };
}

/**
 * IncrementalAlterConfigs APPEND / SUBTRACT on a group config: only a LIST
 * config takes them (streams.rack.aware.assignment.tags), starting from the
 * override or else the inherited value. The new value, or the INVALID_CONFIG message.
 */
export function applyGroupListOp(op: 'APPEND' | 'SUBTRACT', name: string, current: string | undefined, operand: string | null, broker: BrokerSettings): { value: string } | { error: string } {
  const d = GROUP_CONFIG_BY_NAME.get(name);
  if (!d) return { error: `Unknown group config name: ${name}` };
  if (d.type !== 'list') return { error: `Can't ${op} to key ${name} because its type is not LIST.` };
  const list = (current ?? inherited(d, broker)).split(',').map((x) => x.trim()).filter((x) => x !== '');
  for (const v of (operand ?? '').split(',').map((x) => x.trim()).filter((x) => x !== '')) {
    const i = list.indexOf(v);
    if (op === 'APPEND' && i < 0) list.push(v);
    if (op === 'SUBTRACT' && i >= 0) list.splice(i, 1);
  }
  return { value: list.join(',') };
}
