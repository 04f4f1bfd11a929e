// Topic-level configs with Kafka's names (definitions in topic-config-defs.ts).
// A topic stores only what was set explicitly, as the client sent it; everything
// else falls back to Kafka's default or the broker's setting.
import type { BrokerConfig } from '../config/config.js';
import { DEFS, type ConfigType, type ParsedValue, type TopicConfigDef } from './topic-config-defs.js';

export type ConfigSource = 'TOPIC_CONFIG' | 'STATIC_BROKER_CONFIG' | 'DEFAULT_CONFIG';
/** DescribeConfigs ConfigSource numbers. */
export const SOURCE_ID: Record<ConfigSource, number> = { TOPIC_CONFIG: 1, STATIC_BROKER_CONFIG: 4, DEFAULT_CONFIG: 5 };
/** DescribeConfigs ConfigType numbers (v3+). */
const TYPE_ID: Record<ConfigType, number> = { boolean: 1, string: 2, int: 3, long: 5, double: 6, list: 7 };

const BY_NAME = new Map<string, TopicConfigDef>(DEFS.map((d) => [d.name, d]));

export const topicConfigNames = (): string[] => DEFS.map((d) => d.name);
export const isListConfig = (name: string): boolean => BY_NAME.get(name)?.type === 'list';

const INT_MIN = -(2n ** 31n);
const INT_MAX = 2n ** 31n - 1n;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

/** Splits a LIST value as Kafka's ConfigDef does ("" is the empty list). */
export function splitList(v: string): string[] {
  const t = v.trim();
  return t === '' ? [] : t.split(/\s*,\s*/);
}

/** Java's Double.toString for the values a range message shows (2 -> "2.0"). */
const javaDouble = (n: number): string => (Number.isInteger(n) ? n.toFixed(1) : String(n));

type Parsed = { ok: true; value: ParsedValue; shown: string } | { ok: false; message: string };

/** Parses like Kafka's ConfigDef.parseType; `message` is the full ConfigException text. */
function parse(def: TopicConfigDef, raw: string): Parsed {
  const t = raw.trim();
  const bad = (why: string): Parsed => ({ ok: false, message: `Invalid value ${t} for configuration ${def.name}: ${why}` });
  switch (def.type) {
    case 'boolean': {
      const l = t.toLowerCase();
      return l === 'true' || l === 'false' ? { ok: true, value: l === 'true', shown: l } : bad('Expected value to be either true or false');
    }
    case 'string':
      return { ok: true, value: t, shown: t };
    case 'int':
    case 'long': {
      const [min, max] = def.type === 'int' ? [INT_MIN, INT_MAX] : [LONG_MIN, LONG_MAX];
      const n = /^[+-]?\d+$/.test(t) ? BigInt(t) : null;
      if (n === null || n < min || n > max) return bad(`Not a number of type ${def.type.toUpperCase()}`);
      return { ok: true, value: def.type === 'int' ? Number(n) : n, shown: String(n) };
    }
    case 'double': {
      const ok = /^[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[dDfF]?$/.test(t);
      if (!ok) return bad('Not a number of type DOUBLE');
      const n = Number(t.replace(/[dDfF]$/, ''));
      return { ok: true, value: n, shown: javaDouble(n) };
    }
    case 'list': {
      const parts = splitList(t);
      if (parts.some((p) => p === '')) return { ok: false, message: `Configuration '${def.name}' values must not be empty.` };
      return { ok: true, value: parts, shown: `[${parts.join(', ')}]` };
    }
  }
}

/**
 * Returns an INVALID_CONFIG message in Kafka's shape, or null if the value is
 * acceptable. A value Kafka accepts but Runnel cannot honour (log compaction,
 * broker-side recompression, tiered storage) is refused with the reason.
 */
export function validateTopicConfig(name: string, value: string | null): string | null {
  const def = BY_NAME.get(name);
  if (!def) return `Unknown topic config name: ${name}`;
  if (value === null) return null;
  const p = parse(def, value);
  if (!p.ok) return p.message;
  const why = def.check?.(p.value) ?? def.refuse?.(p.value) ?? null;
  if (why === null) return null;
  const [shown, reason] = typeof why === 'string' ? [p.shown, why] : [why.value, why.why];
  return `Invalid value ${shown} for configuration ${name}: ${reason}`;
}

/**
 * Checks across configs (Kafka's LogConfig.validateValues and its tiered-storage
 * checks) on the explicit set merged with defaults; `previous`: the topic's
 * explicit configs before an alteration.
 */
export function validateTopicConfigSet(explicit: Record<string, string>, broker: BrokerConfig, previous?: Record<string, string>): string | null {
  const value = (name: string): string => topicConfigValue(explicit, broker, name);
  const min = BigInt(value('min.compaction.lag.ms').replace(/^\+/, ''));
  const max = BigInt(value('max.compaction.lag.ms').replace(/^\+/, ''));
  if (min > max) return `conflict topic config setting min.compaction.lag.ms (${min}) > max.compaction.lag.ms (${max})`;
  const tiered = value('remote.storage.enable') === 'true';
  if (previous && topicConfigValue(previous, broker, 'remote.storage.enable') === 'true' && !tiered && value('remote.log.delete.on.disable') !== 'true') {
    return 'It is invalid to disable remote storage without deleting remote data. If you want to keep the remote data and turn to read only, please set `remote.storage.enable=true,remote.log.copy.disable=true`. If you want to disable remote storage and delete all remote data, please set `remote.storage.enable=false,remote.log.delete.on.disable=true`.';
  }
  if (!tiered) return null;
  if (!broker.remoteLogStorageSystemEnable) return 'Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.';
  if (value('cleanup.policy').split(',').includes('compact')) return 'Remote log storage is unsupported for the compacted topics';
  for (const unit of ['ms', 'bytes'] as const) {
    const total = Number(value(`retention.${unit}`));
    const local = Number(value(`local.retention.${unit}`));
    if (local === -2 || total === -1) continue;
    if (local === -1) return `Invalid value -1 for configuration local.retention.${unit}: Value must not be -1 as retention.${unit} value is set as ${total}.`;
    if (local > total) return `Invalid value ${local} for configuration local.retention.${unit}: Value must not be more than retention.${unit} property value: ${total}`;
  }
  return null;
}

/** remote.storage.enable=true on a broker whose tiered storage is on: the lake is the topic's remote tier. */
export function isTieredTopic(explicit: Record<string, string>, broker: BrokerConfig): boolean {
  return broker.remoteLogStorageSystemEnable && topicConfigValue(explicit, broker, 'remote.storage.enable') === 'true';
}

/**
 * IncrementalAlterConfigs APPEND (2) / SUBTRACT (3) on a LIST config, as Kafka's
 * controller does it: start from the explicit value or else the default, then
 * add the values not yet present / remove each given value. Returns the new
 * value, or an error message for a non-list config.
 */
export function applyListOp(op: 'APPEND' | 'SUBTRACT', name: string, current: string | undefined, operand: string | null, broker: BrokerConfig): { value: string } | { error: string } {
  const def = BY_NAME.get(name);
  if (!def) return { error: `Unknown topic config name: ${name}` };
  if (def.type !== 'list') return { error: `Can't ${op} to key ${name} because its type is not LIST.` };
  const list = splitList(current ?? def.fallback(broker));
  for (const v of (operand ?? '').split(',')) {
    if (op === 'APPEND') {
      if (!list.includes(v)) list.push(v);
    } else {
      const i = list.indexOf(v);
      if (i >= 0) list.splice(i, 1);
    }
  }
  return { value: list.join(',') };
}

export interface ResolvedConfig {
  name: string;
  value: string;
  source: ConfigSource;
  type: number;
  doc: string;
  isDefault: boolean;
}

export function resolveTopicConfigs(explicit: Record<string, string>, broker: BrokerConfig): ResolvedConfig[] {
  return DEFS.map((d) => {
    const set = explicit[d.name];
    const source: ConfigSource = set !== undefined ? 'TOPIC_CONFIG' : d.fromBroker ? 'STATIC_BROKER_CONFIG' : 'DEFAULT_CONFIG';
    return { name: d.name, value: set ?? d.fallback(broker), source, type: TYPE_ID[d.type], doc: d.doc, isDefault: set === undefined };
  });
}

/** The effective value, normalised as Kafka parses it (trimmed; booleans lower-case; lists without blanks around commas). */
export function topicConfigValue(explicit: Record<string, string>, broker: BrokerConfig, name: string): string {
  const def = BY_NAME.get(name)!;
  const raw = (explicit[name] ?? def.fallback(broker)).trim();
  if (def.type === 'boolean') return raw.toLowerCase();
  if (def.type === 'list') return splitList(raw).join(',');
  return raw;
}

export function topicConfigNumber(explicit: Record<string, string>, broker: BrokerConfig, name: string): number {
  return Number(topicConfigValue(explicit, broker, name));
}
