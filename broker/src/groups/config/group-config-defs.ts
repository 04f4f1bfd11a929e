// Group configs (KIP-848 / KIP-932 / KIP-1071): the names Kafka 4.4's
// GroupConfig defines, each with its type, its Kafka default, the broker
// setting it overrides (its synonym) and the broker settings that bound it.
// A group stores only what was set for it; everything else is the broker's
// setting (or Kafka's default when Runnel has no such broker setting).
export type GroupConfigType = 'int' | 'long' | 'boolean' | 'string' | 'list';
/** DescribeConfigs ConfigType numbers (v3+). */
export const GROUP_CONFIG_TYPE_ID: Readonly<Record<GroupConfigType, number>> = { boolean: 1, string: 2, int: 3, long: 5, list: 7 };

/** Broker values a group config is checked against, by Kafka broker config name. */
export type BrokerValue = (key: string) => string;

export interface GroupConfigDef {
  name: string;
  type: GroupConfigType;
  /** Kafka's default; the broker synonym's value when there is one. */
  default: string;
  /** The broker setting this config overrides per group (Kafka's brokerSynonym), if any. */
  synonym: string | null;
  /** Kafka's ConfigDef lower bound (ConfigException "Value must be at least N"). */
  atLeast?: number;
  /** Allowed strings (ValidString). */
  oneOf?: readonly string[];
  /** Broker settings bounding the value (Kafka's validateIntRange / Min / Max). */
  minKey?: string;
  maxKey?: string;
  /** Kafka marks it internal: accepted, but not listed by DescribeConfigs unless set. */
  internal?: boolean;
  doc: string;
}

const int = (name: string, dflt: number, synonym: string | null, atLeast: number, doc: string, bounds: { min?: string; max?: string } = {}, internal = false): GroupConfigDef => ({
  name, type: 'int', default: String(dflt), synonym, atLeast, doc, ...(bounds.min ? { minKey: bounds.min } : {}), ...(bounds.max ? { maxKey: bounds.max } : {}), ...(internal ? { internal } : {}),
});
const bool = (name: string, dflt: boolean, synonym: string | null, doc: string, internal = false): GroupConfigDef => ({ name, type: 'boolean', default: String(dflt), synonym, doc, ...(internal ? { internal } : {}) });

const range = (family: string, what: string) => ({ min: `group.${family}.min.${what}`, max: `group.${family}.max.${what}` });

export const GROUP_CONFIG_DEFS: readonly GroupConfigDef[] = [
  int('consumer.session.timeout.ms', 45000, 'group.consumer.session.timeout.ms', 1, 'The timeout to detect client failures when using the consumer group protocol.', range('consumer', 'session.timeout.ms')),
  int('consumer.heartbeat.interval.ms', 5000, 'group.consumer.heartbeat.interval.ms', 1, 'The heartbeat interval given to the members of a consumer group.', range('consumer', 'heartbeat.interval.ms')),
  int('consumer.assignment.interval.ms', 1000, 'group.consumer.assignment.interval.ms', 0, 'The minimum time between two target assignment computations of a consumer group.', range('consumer', 'assignment.interval.ms')),
  bool('consumer.assignor.offload.enable', true, 'group.consumer.assignor.offload.enable', 'Whether consumer group assignments are computed off the coordinator thread.', true),
  int('share.session.timeout.ms', 45000, 'group.share.session.timeout.ms', 1, 'The timeout to detect client failures when using the share group protocol.', range('share', 'session.timeout.ms')),
  int('share.heartbeat.interval.ms', 5000, 'group.share.heartbeat.interval.ms', 1, 'The heartbeat interval given to the members of a share group.', range('share', 'heartbeat.interval.ms')),
  int('share.record.lock.duration.ms', 30000, 'group.share.record.lock.duration.ms', 1000, 'The record acquisition lock duration in milliseconds for share groups.', range('share', 'record.lock.duration.ms')),
  int('share.delivery.count.limit', 5, 'group.share.delivery.count.limit', 2, 'The maximum number of delivery attempts for a record delivered to a share group.', range('share', 'delivery.count.limit')),
  int('share.partition.max.record.locks', 2000, 'group.share.partition.max.record.locks', 100, 'Share-group record lock limit per share-partition.', range('share', 'partition.max.record.locks')),
  {
    name: 'share.auto.offset.reset', type: 'string', default: 'latest', synonym: null,
    doc: 'The strategy to initialize the share-partition start offset: earliest, latest, or by_duration:<ISO-8601 duration> (PnDTnHnMn.nS, not negative).',
  },
  {
    name: 'share.isolation.level', type: 'string', default: 'read_uncommitted', synonym: null, oneOf: ['read_committed', 'read_uncommitted'],
    doc: 'Controls how to read records written transactionally: read_committed delivers only committed transactional records, read_uncommitted all of them.',
  },
  bool('share.renew.acknowledge.enable', true, null, 'Whether the renew acknowledge type is enabled for the share group.'),
  int('share.assignment.interval.ms', 1000, 'group.share.assignment.interval.ms', 0, 'The minimum time between two target assignment computations of a share group.', range('share', 'assignment.interval.ms')),
  bool('share.assignor.offload.enable', true, 'group.share.assignor.offload.enable', 'Whether share group assignments are computed off the coordinator thread.', true),
  int('streams.session.timeout.ms', 45000, 'group.streams.session.timeout.ms', 1, 'The timeout to detect client failures when using the streams group protocol.', range('streams', 'session.timeout.ms')),
  int('streams.heartbeat.interval.ms', 5000, 'group.streams.heartbeat.interval.ms', 1, 'The heartbeat interval given to the members of a streams group.', range('streams', 'heartbeat.interval.ms')),
  int('streams.num.standby.replicas', 0, 'group.streams.num.standby.replicas', 0, 'The number of standby replicas for each task of a streams group.', { max: 'group.streams.max.standby.replicas' }),
  int('streams.initial.rebalance.delay.ms', 3000, 'group.streams.initial.rebalance.delay.ms', 0, 'The delay before the first rebalance of a new streams group.'),
  int('streams.assignment.interval.ms', 1000, 'group.streams.assignment.interval.ms', 0, 'The minimum time between two target assignment computations of a streams group.', range('streams', 'assignment.interval.ms')),
  bool('streams.assignor.offload.enable', true, 'group.streams.assignor.offload.enable', 'Whether streams group assignments are computed off the coordinator thread.', true),
  int('streams.task.offset.interval.ms', 60000, 'group.streams.task.offset.interval.ms', 1, 'How often streams group members report their task offsets.', { min: 'group.streams.min.task.offset.interval.ms' }, true),
  int('streams.num.warmup.replicas', 2, 'group.streams.num.warmup.replicas', 0, 'The number of warm-up replicas of a streams group.', { max: 'group.streams.max.warmup.replicas' }, true),
  { name: 'streams.rack.aware.assignment.tags', type: 'list', default: '', synonym: 'group.streams.rack.aware.assignment.tags', doc: 'Client tag keys used to spread standby replicas of a streams group.' },
  { name: 'streams.acceptable.recovery.lag', type: 'long', default: '10000', synonym: 'group.streams.acceptable.recovery.lag', atLeast: 0, internal: true, doc: 'The lag up to which a streams task counts as caught up.' },
  { name: 'streams.assignor.name', type: 'string', default: '', synonym: 'group.streams.assignors', doc: 'The task assignor of the streams group, one of group.streams.assignors (default: the first).' },
  { name: 'errors.deadletterqueue.topic.name', type: 'string', default: '', synonym: null, doc: 'The dead-letter queue topic of the share group; blank: none.' },
  bool('errors.deadletterqueue.copy.record.enable', false, null, 'Whether the original record is copied to the dead-letter queue topic.'),
];

/**
 * Kafka's broker defaults of the group.* settings the group configs name.
 * Used where Runnel has no broker setting of that name (share and streams
 * groups are configured by Kafka's defaults until the broker reads them).
 */
export const KAFKA_BROKER_DEFAULTS: Readonly<Record<string, string>> = {
  'group.consumer.session.timeout.ms': '45000', 'group.consumer.min.session.timeout.ms': '45000', 'group.consumer.max.session.timeout.ms': '60000',
  'group.consumer.heartbeat.interval.ms': '5000', 'group.consumer.min.heartbeat.interval.ms': '5000', 'group.consumer.max.heartbeat.interval.ms': '15000',
  'group.consumer.assignment.interval.ms': '1000', 'group.consumer.min.assignment.interval.ms': '0', 'group.consumer.max.assignment.interval.ms': '15000',
  'group.consumer.assignor.offload.enable': 'true',
  'group.share.session.timeout.ms': '45000', 'group.share.min.session.timeout.ms': '45000', 'group.share.max.session.timeout.ms': '60000',
  'group.share.heartbeat.interval.ms': '5000', 'group.share.min.heartbeat.interval.ms': '5000', 'group.share.max.heartbeat.interval.ms': '15000',
  'group.share.record.lock.duration.ms': '30000', 'group.share.min.record.lock.duration.ms': '15000', 'group.share.max.record.lock.duration.ms': '60000',
  'group.share.delivery.count.limit': '5', 'group.share.min.delivery.count.limit': '2', 'group.share.max.delivery.count.limit': '10',
  'group.share.partition.max.record.locks': '2000', 'group.share.min.partition.max.record.locks': '100', 'group.share.max.partition.max.record.locks': '4000',
  'group.share.assignment.interval.ms': '1000', 'group.share.min.assignment.interval.ms': '0', 'group.share.max.assignment.interval.ms': '15000',
  'group.share.assignor.offload.enable': 'true',
  'group.streams.session.timeout.ms': '45000', 'group.streams.min.session.timeout.ms': '45000', 'group.streams.max.session.timeout.ms': '60000',
  'group.streams.heartbeat.interval.ms': '5000', 'group.streams.min.heartbeat.interval.ms': '5000', 'group.streams.max.heartbeat.interval.ms': '15000',
  'group.streams.num.standby.replicas': '0', 'group.streams.max.standby.replicas': '2', 'group.streams.initial.rebalance.delay.ms': '3000',
  'group.streams.assignment.interval.ms': '1000', 'group.streams.min.assignment.interval.ms': '0', 'group.streams.max.assignment.interval.ms': '15000',
  'group.streams.assignor.offload.enable': 'true', 'group.streams.task.offset.interval.ms': '60000', 'group.streams.min.task.offset.interval.ms': '15000',
  'group.streams.num.warmup.replicas': '2', 'group.streams.max.warmup.replicas': '20', 'group.streams.rack.aware.assignment.tags': '',
  'group.streams.acceptable.recovery.lag': '10000', 'group.streams.assignors': 'sticky',
};

export const GROUP_CONFIG_BY_NAME: ReadonlyMap<string, GroupConfigDef> = new Map(GROUP_CONFIG_DEFS.map((d) => [d.name, d]));

/** ISO-8601 duration as java.time.Duration parses it (PnDTnHnMn.nS, upper or lower case), in ms; null if it is not one or is negative. */
export function parseIsoDuration(s: string): number | null {
  const m = /^([-+]?)P(?:([-+]?\d+)D)?(?:T(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?(?:([-+]?\d+)(?:[.,](\d{0,9}))?S)?)?$/i.exec(s);
  if (!m || s.toUpperCase().endsWith('T') || (m[2] === undefined && m[3] === undefined && m[4] === undefined && m[5] === undefined)) return null;
  const n = (x: string | undefined): number => (x === undefined ? 0 : Number(x));
  const frac = m[6] ? Number(`0.${m[6]}`) * (m[5]?.startsWith('-') ? -1 : 1) : 0;
  const ms = (n(m[2]) * 86_400 + n(m[3]) * 3600 + n(m[4]) * 60 + n(m[5]) + frac) * 1000 * (m[1] === '-' ? -1 : 1);
  return ms < 0 ? null : ms;
}

/** share.auto.offset.reset: 'earliest', 'latest' or 'by_duration:<duration>' (lower case only, as Kafka). */
export type ShareAutoOffsetReset = { strategy: 'earliest' } | { strategy: 'latest' } | { strategy: 'by_duration'; durationMs: number };

export function parseShareAutoOffsetReset(v: string): ShareAutoOffsetReset | null {
  if (v === 'earliest' || v === 'latest') return { strategy: v };
  if (!v.startsWith('by_duration:')) return null;
  const ms = parseIsoDuration(v.slice('by_duration:'.length).trim());
  return ms === null ? null : { strategy: 'by_duration', durationMs: ms };
}

/** The value as Kafka's ConfigDef parses it (trimmed), or the ConfigException message. */
export function parseValue(d: GroupConfigDef, raw: string): { value: string } | { error: string } {
  const v = raw.trim();
  const bad = (why: string) => ({ error: `Invalid value ${raw} for configuration ${d.name}: ${why}` });
  if (d.type === 'int' || d.type === 'long') {
    const bits = d.type === 'int' ? 31n : 63n;
    const n = /^[-+]?\d+$/.test(v) ? BigInt(v) : null;
    if (n === null || n < -(2n ** bits) || n >= 2n ** bits) return bad(`Not a number of type ${d.type.toUpperCase()}`);
    if (d.atLeast !== undefined && n < BigInt(d.atLeast)) return bad(`Value must be at least ${d.atLeast}`);
    return { value: String(n) };
  }
  if (d.type === 'boolean') {
    if (!/^(true|false)$/i.test(v)) return bad('Expected value to be either true or false');
    return { value: v.toLowerCase() };
  }
  if (d.type === 'list') return { value: v.split(',').map((x) => x.trim()).filter((x) => x !== '').join(',') };
  if (d.oneOf && !d.oneOf.includes(v)) return bad(`String must be one of: ${d.oneOf.join(', ')}`);
  if (d.name === 'share.auto.offset.reset' && parseShareAutoOffsetReset(v) === null) {
    return bad(`Invalid value \`${v}\` for configuration ${d.name}. The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'.`);
  }
  return { value: v };
}
