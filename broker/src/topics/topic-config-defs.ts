// The topic configs Apache Kafka 4.x accepts (LogConfig's ConfigDef, checked
// against kafka-storage 4.4.0), with Kafka's types, defaults and validators, and
// what each one does in Runnel.
import type { BrokerConfig } from '../config/config.js';

export type ConfigType = 'boolean' | 'string' | 'int' | 'long' | 'double' | 'list';

/**
 * A validator gets the parsed value and returns Kafka's reason text, or null when
 * valid; `value` replaces the value the message shows (ValidList names the bad element).
 */
export type Check = (v: ParsedValue) => string | { value: string; why: string } | null;
export type ParsedValue = number | bigint | boolean | string | string[];

export interface TopicConfigDef {
  name: string;
  type: ConfigType;
  /** Default value as DescribeConfigs shows it, possibly derived from a broker setting. */
  fallback: (b: BrokerConfig) => string;
  /** Is the fallback a broker setting (vs a fixed Kafka default)? */
  fromBroker?: boolean;
  check?: Check;
  /** Runnel-specific refusal of a value Kafka accepts (a feature Runnel lacks); returns the reason. */
  refuse?: Check;
  doc: string;
}

const LONG_MAX = '9223372036854775807';
const big = (v: ParsedValue): bigint => (typeof v === 'bigint' ? v : BigInt(v as number));
const num = (v: ParsedValue): number => Number(v);

/** Kafka's Range.atLeast. */
export const atLeast = (min: number): Check => (v) => (big(v) >= BigInt(min) ? null : `Value must be at least ${min}`);
/** Kafka's Range.between. */
export const between = (min: number, max: number): Check => (v) => {
  if (num(v) < min) return `Value must be at least ${min}`;
  if (num(v) > max) return `Value must be no more than ${max}`;
  return null;
};
/** Kafka's ValidString.in. */
export const oneOf = (...xs: string[]): Check => (v) => (xs.includes(v as string) ? null : `String must be one of: ${xs.join(', ')}`);
/** Kafka's ValidList.in. */
const listOf = (...xs: string[]): Check => (v) => {
  const bad = (v as string[]).find((x) => !xs.includes(x));
  return bad === undefined ? null : { value: bad, why: `String must be one of: ${xs.join(', ')}` };
};
/** Kafka's ThrottledReplicaListValidator. */
const throttledReplicas = (name: string): Check => (v) => {
  const parts = (v as string[]).map((s) => s.trim());
  if (parts.every((s) => /^([0-9]+:[0-9]+)?$/.test(s)) || parts.join('') === '*') return null;
  return `${name} must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],...`;
};
const gzipLevel: Check = (v) => (num(v) === -1 || (num(v) >= 1 && num(v) <= 9) ? null : 'Value must be between 1 and 9 or equal to -1');

const NO_EFFECT = 'Accepted for compatibility; no effect in Runnel.';
const fixed = (v: string) => (): string => v;

export const DEFS: TopicConfigDef[] = [
  { name: 'cleanup.policy', type: 'list', fallback: fixed('delete'), check: listOf('compact', 'delete'),
    doc: 'delete: retention.ms/retention.bytes trim the log. compact: the cleaner keeps the latest record of every key (records without a key are refused). Both: both. An empty list keeps everything (only DeleteRecords moves the log start).' },
  { name: 'compression.type', type: 'string', fallback: fixed('producer'), check: oneOf('uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'),
    doc: 'producer: batches are stored as the producer compressed them. Any other value: the broker recompresses each batch with that codec (uncompressed = none) before storing it, as Kafka does; the codecs\' default levels are used.' },
  { name: 'compression.gzip.level', type: 'int', fallback: fixed('-1'), check: gzipLevel, doc: `${NO_EFFECT} (recompression uses the codec's default level)` },
  { name: 'compression.lz4.level', type: 'int', fallback: fixed('9'), check: between(1, 17), doc: `${NO_EFFECT} (recompression uses the codec's default level)` },
  { name: 'compression.zstd.level', type: 'int', fallback: fixed('3'), check: between(-131072, 22), doc: `${NO_EFFECT} (recompression uses the codec's default level)` },
  { name: 'retention.ms', type: 'long', fallback: (b) => String(b.logRetentionMs), fromBroker: true, check: atLeast(-1), doc: 'Age after which batches are trimmed (-1: forever).' },
  { name: 'retention.bytes', type: 'long', fallback: (b) => String(b.logRetentionBytes), fromBroker: true, doc: 'Size per partition beyond which old batches are trimmed (negative: unlimited).' },
  { name: 'max.message.bytes', type: 'int', fallback: (b) => String(b.messageMaxBytes), fromBroker: true, check: atLeast(0), doc: 'Largest record batch accepted.' },
  { name: 'max.decompressed.message.bytes', type: 'int', fallback: fixed('2147483639'), check: between(1, 2147483639), doc: `${NO_EFFECT} (not enforced)` },
  { name: 'min.insync.replicas', type: 'int', fallback: (b) => String(b.minInsyncReplicas), fromBroker: true, check: atLeast(1), doc: 'acks=all waits for this many copies: the Redis primary plus N-1 Redis replicas.' },
  { name: 'message.timestamp.type', type: 'string', fallback: fixed('CreateTime'), check: oneOf('CreateTime', 'LogAppendTime'), doc: 'CreateTime or LogAppendTime.' },
  { name: 'message.timestamp.before.max.ms', type: 'long', fallback: (b) => b.logMessageTimestampBeforeMaxMs, fromBroker: true, check: atLeast(0),
    doc: 'CreateTime topics: a produced record whose timestamp is more than this many ms behind the broker\'s clock is refused (INVALID_TIMESTAMP), the batch with it.' },
  { name: 'message.timestamp.after.max.ms', type: 'long', fallback: (b) => b.logMessageTimestampAfterMaxMs, fromBroker: true, check: atLeast(0),
    doc: 'CreateTime topics: a produced record whose timestamp is more than this many ms ahead of the broker\'s clock is refused (INVALID_TIMESTAMP), the batch with it.' },
  { name: 'delete.retention.ms', type: 'long', fallback: fixed('86400000'), check: atLeast(0), doc: 'Compacted topics: how long a tombstone stays after the cleaner pass that first compacted it.' },
  { name: 'min.compaction.lag.ms', type: 'long', fallback: fixed('0'), check: atLeast(0), doc: 'Compacted topics: a batch whose newest timestamp is younger than this stays uncompacted.' },
  { name: 'max.compaction.lag.ms', type: 'long', fallback: fixed(LONG_MAX), check: atLeast(1), doc: 'Compacted topics: the active segment rolls at this age at the latest, so its records become compactable.' },
  { name: 'min.cleanable.dirty.ratio', type: 'double', fallback: fixed('0.5'), check: between(0, 1), doc: 'Compacted topics: a pass starts when the uncompacted eligible bytes reach this share of the eligible bytes.' },
  { name: 'segment.bytes', type: 'int', fallback: fixed('1073741824'), check: atLeast(1048576), doc: 'Compacted topics: the active (never compacted) part of the log rolls after this many appended bytes. Redis streams have no segment files.' },
  { name: 'segment.ms', type: 'long', fallback: fixed('604800000'), check: atLeast(1), doc: 'Compacted topics: the active (never compacted) part of the log rolls at this age. Redis streams have no segment files.' },
  { name: 'segment.jitter.ms', type: 'long', fallback: fixed('0'), check: atLeast(0), doc: NO_EFFECT },
  { name: 'segment.index.bytes', type: 'int', fallback: fixed('10485760'), check: atLeast(4), doc: NO_EFFECT },
  { name: 'index.interval.bytes', type: 'int', fallback: fixed('4096'), check: atLeast(0), doc: NO_EFFECT },
  { name: 'file.delete.delay.ms', type: 'long', fallback: fixed('60000'), check: atLeast(0), doc: NO_EFFECT },
  { name: 'preallocate', type: 'boolean', fallback: fixed('false'), doc: NO_EFFECT },
  { name: 'flush.messages', type: 'long', fallback: fixed(LONG_MAX), check: atLeast(1), doc: `${NO_EFFECT} (durability follows the Redis AOF settings)` },
  { name: 'flush.ms', type: 'long', fallback: fixed(LONG_MAX), check: atLeast(0), doc: `${NO_EFFECT} (durability follows the Redis AOF settings)` },
  { name: 'unclean.leader.election.enable', type: 'boolean', fallback: fixed('false'), doc: NO_EFFECT },
  { name: 'leader.replication.throttled.replicas', type: 'list', fallback: fixed(''), check: throttledReplicas('leader.replication.throttled.replicas'), doc: `${NO_EFFECT} (Redis does the replication)` },
  { name: 'follower.replication.throttled.replicas', type: 'list', fallback: fixed(''), check: throttledReplicas('follower.replication.throttled.replicas'), doc: `${NO_EFFECT} (Redis does the replication)` },
  { name: 'confluent.value.schema.validation', type: 'boolean', fallback: fixed('false'),
    doc: 'Confluent Server\'s name: Produce refuses (INVALID_RECORD) a record whose non-null value is not in the Confluent wire format (magic byte 0, 4-byte schema id) or names an id the Schema Registry does not have. The body is not decoded.' },
  { name: 'confluent.key.schema.validation', type: 'boolean', fallback: fixed('false'),
    doc: 'As confluent.value.schema.validation, for non-null keys.' },
  { name: 'remote.storage.enable', type: 'boolean', fallback: fixed('false'),
    doc: 'Tiered storage (KIP-405): the archiver\'s Delta table is the remote tier; Redis keeps local.retention.*, consumers read everything within retention.* (the offsets below the Redis log start from the lake). Not with cleanup.policy=compact.' },
  { name: 'local.retention.ms', type: 'long', fallback: fixed('-2'), check: atLeast(-2), doc: 'Tiered topics: how long Redis keeps a record once the archiver committed it (-2: retention.ms). At most retention.ms.' },
  { name: 'local.retention.bytes', type: 'long', fallback: fixed('-2'), check: atLeast(-2), doc: 'Tiered topics: the bytes per partition Redis keeps of archived records (-2: retention.bytes). At most retention.bytes.' },
  { name: 'remote.log.copy.disable', type: 'boolean', fallback: fixed('false'), doc: 'Tiered topics: true makes the lake read-only for Kafka (the archiver keeps writing it for SQL): Redis keeps retention.*, and what the lake alone held stays readable.' },
  { name: 'remote.log.delete.on.disable', type: 'boolean', fallback: fixed('false'), doc: 'Must be true to set remote.storage.enable=false on a tiered topic: consumers then lose the offsets only the lake holds (the lake rows stay for SQL).' },
  { name: 'remote.copy.lag.ms', type: 'long', fallback: fixed('0'), check: atLeast(-1), doc: `${NO_EFFECT} (tiered storage only)` },
  { name: 'remote.copy.lag.bytes', type: 'long', fallback: fixed('-1'), check: atLeast(-1), doc: `${NO_EFFECT} (tiered storage only)` },
  { name: 'errors.deadletterqueue.group.enable', type: 'boolean', fallback: fixed('false'), doc: `${NO_EFFECT} (share groups are not supported)` },
  { name: 'archive.enable', type: 'boolean', fallback: fixed('false'), doc: 'Runnel: the archiver drains this topic into the lake; Redis is never trimmed past the archived offset.' },
  { name: 'archive.value.schema', type: 'string', fallback: fixed('none'), check: oneOf('none', 'id', 'latest'), doc: 'Runnel: id = record values are in the Confluent wire format; the archiver decodes each with the Schema Registry schema its id names into typed lake columns (docs/lake.md, "Typed columns"). latest = bare Avro values of the latest schema of subject <topic>-value. none = raw bytes only.' },
  { name: 'archive.key.schema', type: 'string', fallback: fixed('none'), check: oneOf('none', 'id', 'latest'), doc: 'Runnel: id = record keys are in the Confluent wire format; the archiver decodes each into the lake column key_fields (docs/lake.md, "Typed columns"). latest = bare Avro keys of the latest schema of subject <topic>-key. none = raw bytes only.' },
];
