// Kafka's broker configuration language, mapped onto Runnel's settings
// (config.ts). Three kinds of keys besides Runnel's own:
// - aliases and translated keys that mean something here (`broker.id`,
//   `listeners`, `advertised.listeners`, `log.retention.minutes|hours`;
//   listeners and TLS keys: config/listeners.ts);
// - keys of Kafka's own server.properties that have no meaning for Runnel
//   (`log.dirs`, `num.io.threads`, `process.roles`, ...): accepted, listed in
//   one warning line;
// - anything else: refused with RN3001 and the closest known key.
import { parseDurationMs } from '../../../common/config/values.js';
import { RunnelError } from '../../../common/errors.js';
import { OAUTHBEARER_KEYS } from '../security/sasl/oauthbearer-settings.js';

/** Kafka keys that are another name of a Runnel setting. */
export const ALIASES: Readonly<Record<string, string>> = {
  'broker.id': 'node.id',
};

/** Kafka keys read and translated here rather than stored as they are. */
export const TRANSLATED_KEYS: readonly string[] = [
  'listeners',
  'advertised.listeners',
  'listener.security.protocol.map',
  'controller.listener.names',
  'log.retention.minutes',
  'log.retention.hours',
];

/** Keys of Kafka's broker and controller configs that have no meaning for Runnel. */
export const IGNORED_KEYS: ReadonlySet<string> = new Set([
  'process.roles', 'log.dirs', 'log.dir', 'metadata.log.dir', 'inter.broker.listener.name', 'inter.broker.protocol.version',
  'security.inter.broker.protocol', 'num.network.threads', 'num.io.threads', 'num.replica.fetchers', 'num.recovery.threads.per.data.dir',
  'num.replica.alter.log.dirs.threads', 'background.threads', 'queued.max.requests', 'socket.send.buffer.bytes',
  'socket.receive.buffer.bytes', 'socket.listen.backlog.size', 'socket.connection.setup.timeout.ms', 'socket.connection.setup.timeout.max.ms',
  'log.segment.bytes', 'log.segment.delete.delay.ms', 'log.roll.ms', 'log.roll.hours', 'log.roll.jitter.ms', 'log.roll.jitter.hours',
  'log.flush.interval.messages', 'log.flush.interval.ms', 'log.flush.scheduler.interval.ms', 'log.flush.offset.checkpoint.interval.ms',
  'log.flush.start.offset.checkpoint.interval.ms', 'log.recovery.per.partition.enabled', 'log.index.size.max.bytes', 'log.index.interval.bytes',
  'log.preallocate', 'log.cleanup.policy', 'log.message.timestamp.type',
  'log.message.downconversion.enable', 'log.message.format.version', 'log.initial.task.delay.ms',
  'log.local.retention.ms', 'log.local.retention.bytes', 'offsets.topic.replication.factor', 'offsets.topic.segment.bytes',
  'offsets.topic.compression.codec', 'offsets.load.buffer.size', 'offsets.commit.timeout.ms', 'offsets.commit.required.acks',
  'replica.lag.time.max.ms', 'replica.fetch.max.bytes', 'replica.fetch.min.bytes', 'replica.fetch.wait.max.ms', 'replica.fetch.backoff.ms',
  'replica.fetch.response.max.bytes', 'replica.socket.timeout.ms', 'replica.socket.receive.buffer.bytes',
  'replica.high.watermark.checkpoint.interval.ms', 'replica.selector.class', 'auto.leader.rebalance.enable',
  'leader.imbalance.check.interval.seconds', 'leader.imbalance.per.broker.percentage', 'unclean.leader.election.enable',
  'compression.type', 'request.timeout.ms', 'initial.broker.registration.timeout.ms', 'broker.heartbeat.interval.ms',
  'broker.session.timeout.ms', 'broker.id.generation.enable', 'reserved.broker.max.id', 'eligible.leader.replicas.enable',
  'metric.reporters', 'auto.include.jmx.reporter',
  'create.topic.policy.class.name', 'alter.config.policy.class.name', 'principal.builder.class', 'client.quota.callback.class',
  'max.connections.per.ip', 'max.connections.per.ip.overrides', 'max.connection.creation.rate',
  'fetch.purgatory.purge.interval.requests', 'producer.purgatory.purge.interval.requests',
  'delete.records.purgatory.purge.interval.requests', 'node.id.generation.enable', 'cluster.id', 'unstable.api.versions.enable',
  'unstable.feature.versions.enable', 'telemetry.max.bytes', 'producer.id.expiration.check.interval.ms', 'max.request.partition.size.limit',
]);

/** Families of Kafka keys with no meaning for Runnel (ZooKeeper, KRaft controllers, transactions, ...); the TLS keys Runnel reads are taken first (config/listeners.ts SSL_KEYS). */
export const IGNORED_PREFIXES: readonly string[] = [
  'zookeeper.', 'controller.', 'metadata.', 'transaction.state.log.', 'transaction.', 'transactional.', 'share.coordinator.',
  'group.share.', 'group.consumer.', 'group.coordinator.', 'group.streams.', 'share.', 'remote.log.', 'log.cleaner.', 'listener.name.',
  'ssl.', 'sasl.', 'security.', 'metrics.', 'kafka.metrics.', 'delegation.token.', 'quota.', 'quotas.', 'password.encoder.',
  'confluent.', 'num.quota.', 'replication.quota.', 'alter.log.dirs.', 'follower.replication.', 'leader.replication.',
];

export function isIgnoredKey(key: string): boolean {
  return IGNORED_KEYS.has(key) || IGNORED_PREFIXES.some((p) => key.startsWith(p));
}

/** Levenshtein distance. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

export function closest(key: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = editDistance(key, k);
    if (d < bestD) { best = k; bestD = d; }
  }
  return best;
}

export function unknownKey(key: string, where: string, known: Iterable<string>): RunnelError {
  const hint = closest(key, known);
  return new RunnelError('CONFIG_INVALID', `unknown setting ${key} (${where})${hint ? `; did you mean ${hint}?` : ''}`);
}

/**
 * Applies the translated Kafka keys of `explicit` (what a file, the
 * environment or flags set) to `values` (Runnel's keys, defaults included).
 * The listener keys are read by config/listeners.ts.
 */
export function applyKafkaKeys(explicit: Record<string, string>, values: Record<string, string>): void {
  // Kafka's precedence: log.retention.ms > log.retention.minutes > log.retention.hours; negative: unlimited.
  if (explicit['log.retention.ms'] === undefined) {
    const pick = explicit['log.retention.minutes'] !== undefined ? ['log.retention.minutes', 'minutes'] as const
      : explicit['log.retention.hours'] !== undefined ? ['log.retention.hours', 'hours'] as const : undefined;
    if (pick) {
      const ms = parseDurationMs(explicit[pick[0]]!, pick[1]);
      if (ms === undefined) throw new RunnelError('CONFIG_INVALID', `${pick[0]}=${explicit[pick[0]]} is not an integer`);
      values['log.retention.ms'] = String(ms < 0 ? -1 : ms);
    }
  }
}

/**
 * Per-listener SASL keys Runnel reads (Kafka's listener.name.<listener>.<key> form, the OAUTHBEARER keys
 * also as listener.name.<listener>.oauthbearer.<key>); other listener.name.* keys are ignored.
 */
const OAUTH_KEY = OAUTHBEARER_KEYS.map((k) => k.replace(/\./g, '\\.')).join('|');
const LISTENER_SASL_KEY = new RegExp(`^listener\\.name\\.([A-Za-z0-9_]+)\\.(sasl\\.enabled\\.mechanisms|(?:plain|scram-sha-256|scram-sha-512)\\.sasl\\.jaas\\.config|(?:oauthbearer\\.)?(?:${OAUTH_KEY}))$`);

/** The normalized key (listener name in lower case, as Kafka writes it) when `key` is a per-listener SASL key. */
export function listenerSaslKey(key: string): string | null {
  const m = LISTENER_SASL_KEY.exec(key);
  return m ? `listener.name.${m[1]!.toLowerCase()}.${m[2]!}` : null;
}
