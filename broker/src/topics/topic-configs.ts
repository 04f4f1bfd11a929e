// Topic-level configs with Kafka's names. A topic stores only what was set
// explicitly; everything else falls back to the broker's defaults.
import type { BrokerConfig } from '../config.js';

export type ConfigSource = 'TOPIC_CONFIG' | 'STATIC_BROKER_CONFIG' | 'DEFAULT_CONFIG';
/** DescribeConfigs ConfigSource numbers. */
export const SOURCE_ID: Record<ConfigSource, number> = { TOPIC_CONFIG: 1, STATIC_BROKER_CONFIG: 4, DEFAULT_CONFIG: 5 };
/** DescribeConfigs ConfigType numbers (v3+). */
const TYPE_ID = { boolean: 1, string: 2, int: 3, short: 4, long: 5, double: 6, list: 7, class: 8, password: 9 } as const;

interface TopicConfigDef {
  name: string;
  type: keyof typeof TYPE_ID;
  /** Default value, possibly derived from a broker setting. */
  fallback: (b: BrokerConfig) => string;
  /** Is the fallback a broker setting (vs a fixed Kafka default)? */
  fromBroker?: boolean;
  validate?: (v: string) => boolean;
  doc: string;
}

const isLong = (v: string): boolean => /^-?\d+$/.test(v);
const atLeast = (min: number) => (v: string): boolean => isLong(v) && Number(v) >= min;
const oneOf = (...xs: string[]) => (v: string): boolean => xs.includes(v);

const DEFS: TopicConfigDef[] = [
  { name: 'cleanup.policy', type: 'list', fallback: () => 'delete', validate: oneOf('delete'), doc: 'Only delete is supported; compaction is not.' },
  { name: 'compression.type', type: 'string', fallback: () => 'producer', validate: oneOf('producer'), doc: 'Batches are stored as the producer compressed them.' },
  { name: 'retention.ms', type: 'long', fallback: (b) => String(b.logRetentionMs), fromBroker: true, validate: atLeast(-1), doc: 'Age after which batches are trimmed (-1: forever).' },
  { name: 'retention.bytes', type: 'long', fallback: (b) => String(b.logRetentionBytes), fromBroker: true, validate: atLeast(-1), doc: 'Size per partition beyond which old batches are trimmed (-1: unlimited).' },
  { name: 'max.message.bytes', type: 'int', fallback: (b) => String(b.messageMaxBytes), fromBroker: true, validate: atLeast(0), doc: 'Largest record batch accepted.' },
  { name: 'min.insync.replicas', type: 'int', fallback: (b) => String(b.minInsyncReplicas), fromBroker: true, validate: atLeast(1), doc: 'acks=all waits for this many copies: the Redis primary plus N-1 Redis replicas.' },
  { name: 'message.timestamp.type', type: 'string', fallback: () => 'CreateTime', validate: oneOf('CreateTime', 'LogAppendTime'), doc: 'CreateTime or LogAppendTime.' },
  { name: 'segment.bytes', type: 'int', fallback: () => '1073741824', validate: atLeast(14), doc: 'Accepted for compatibility; Redis streams have no segments.' },
  { name: 'segment.ms', type: 'long', fallback: () => '604800000', validate: atLeast(1), doc: 'Accepted for compatibility.' },
  { name: 'flush.messages', type: 'long', fallback: () => '9223372036854775807', validate: atLeast(1), doc: 'Accepted for compatibility; durability follows the Redis AOF settings.' },
  { name: 'flush.ms', type: 'long', fallback: () => '9223372036854775807', validate: atLeast(0), doc: 'Accepted for compatibility.' },
  { name: 'unclean.leader.election.enable', type: 'boolean', fallback: () => 'false', validate: oneOf('true', 'false'), doc: 'Accepted for compatibility.' },
  { name: 'archive.enable', type: 'boolean', fallback: () => 'false', validate: oneOf('true', 'false'), doc: 'Runnel: the archiver drains this topic into the lake; Redis is never trimmed past the archived offset.' },
];

const BY_NAME = new Map(DEFS.map((d) => [d.name, d]));

/** Returns an error message, or null if the value is acceptable. */
export function validateTopicConfig(name: string, value: string | null): string | null {
  const def = BY_NAME.get(name);
  if (!def) return `Unknown topic config name: ${name}`;
  if (value === null) return null;
  if (def.validate && !def.validate(value)) return `Invalid value ${value} for configuration ${name}`;
  return null;
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
    return {
      name: d.name,
      value: set ?? d.fallback(broker),
      source,
      type: TYPE_ID[d.type],
      doc: d.doc,
      isDefault: set === undefined,
    };
  });
}

export function topicConfigValue(explicit: Record<string, string>, broker: BrokerConfig, name: string): string {
  return explicit[name] ?? BY_NAME.get(name)!.fallback(broker);
}

export function topicConfigNumber(explicit: Record<string, string>, broker: BrokerConfig, name: string): number {
  return Number(topicConfigValue(explicit, broker, name));
}
