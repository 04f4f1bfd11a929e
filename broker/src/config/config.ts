// Every setting of the broker process, with Kafka's names and defaults.
// Precedence: defaults < config file (server.properties style) < environment
// (RUNNEL_ + upper-snake key, e.g. RUNNEL_NUM_PARTITIONS) < command-line flags.
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { parseProperties } from '../../../common/config/properties.js';
import { parseBoolean, parseInteger } from '../../../common/config/values.js';
import { RunnelError } from '../../../common/errors.js';
import { LOG_FORMATS, isLogFormat, type LogFormat } from '../../../common/logger/format.js';
import type { RedisTlsConfig } from '../../../common/redis/tls-options.js';
import { authorizerEnabled } from '../security/acl/acl-service.js';
import { ALIASES, TRANSLATED_KEYS, applyKafkaKeys, closest, editDistance, isIgnoredKey, listenerSaslKey, unknownKey } from './kafka.js';
import { consumerAssignors, migrationPolicy } from './group-consumer.js';
import { SSL_KEYS, isSslKey, resolveListeners, type ListenerConfig } from './listeners.js';
import { DEFAULT_ENABLED_MECHANISMS } from '../security/sasl/settings.js';
import { OAUTHBEARER_DEFAULTS, OAUTHBEARER_KEYS, type OAuthBearerKey } from '../security/sasl/oauthbearer-settings.js';

/** Every setting; redis.tls.* (TLS to Redis, rediss:// URLs only) are the fields of RedisTlsConfig. */
export interface BrokerConfig extends RedisTlsConfig {
  nodeId: number;
  /** The first listener's bind and advertised addresses (`--host`/`--port` set them). */
  host: string;
  port: number;
  advertisedHost: string;
  advertisedPort: number;
  /** Every client listener (Kafka's `listeners`), the first one being host:port above. */
  listeners: ListenerConfig[];
  /** How often TLS certificate and trust files are checked for changes (Runnel's name). */
  sslReloadIntervalMs: number;
  /** Empty: start an embedded redis-server under dataDir. */
  redisUrl: string;
  dataDir: string;
  keyPrefix: string;
  clusterName: string;
  autoCreateTopics: boolean;
  numPartitions: number;
  defaultReplicationFactor: number;
  messageMaxBytes: number;
  socketRequestMaxBytes: number;
  logRetentionMs: number;
  logRetentionBytes: number;
  /** Defaults of the topic configs message.timestamp.before/after.max.ms (exact int64 decimal strings). */
  logMessageTimestampBeforeMaxMs: string;
  logMessageTimestampAfterMaxMs: string;
  retentionCheckIntervalMs: number;
  minInsyncReplicas: number;
  /** acks=all also waits for the local AOF fsync (WAITAOF 1 0) where the server supports it. */
  acksAllWaitAof: boolean;
  /** Timeout for WAIT / WAITAOF under acks=all, capped by the request's timeout. */
  replicaWaitMs: number;
  /**
   * How long the broker waits for Redis at start-up (Kafka's zookeeper.connection.timeout.ms):
   * the bound of one connection attempt, and of retrying refused ones every 200 ms.
   */
  redisConnectionTimeoutMs: number;
  /** An idempotent producer silent for this long is forgotten (Kafka's producer.id.expiration.ms). */
  producerIdExpirationMs: number;
  /** Start even though Redis may evict keys (maxmemory-policy other than noeviction): data loss. */
  redisAllowEviction: boolean;
  deleteTopicEnable: boolean;
  /** Leadership lease TTL: a killed broker's partitions move after at most this plus one tick. */
  brokerLeaseMs: number;
  leadershipTickMs: number;
  /** Group-coordinator slots (Kafka's offsets.topic.num.partitions). */
  coordinatorSlots: number;
  /** Leases handed to their new desired leader per tick when brokers join or leave. */
  leadershipHandoffPerTick: number;
  /** Most lease acquisitions in flight at once: a burst of new or freed partitions is taken this many at a time. */
  leadershipAcquirePerTick: number;
  rack: string;
  /** HTTP port for /health, /ready and /metrics; 0 disables it. */
  httpPort: number;
  /** HTTP endpoint: bind address, authentication, TLS (common/http/http-settings.ts). */
  httpHost: string;
  httpAuthBearerToken: string;
  /** The principal a bearer-token request has before the authorizer (http-access.ts). */
  httpAuthBearerPrincipal: string;
  httpAuthBasicUser: string;
  httpAuthBasicPassword: string;
  httpSslKeystoreLocation: string;
  httpSslKeyPassword: string;
  httpSslTruststoreLocation: string;
  httpSslClientAuth: string;
  /** The read-only web console at /console on the HTTP endpoint (broker/src/http/console). */
  httpConsoleEnable: boolean;
  /** Schema Registry (docs/schema-registry.md): its listeners, http(s)://host:port comma separated; empty: off. */
  schemaRegistryListeners: string;
  /** Its authentication and TLS, as the HTTP endpoint's (common/http/http-settings.ts). */
  schemaRegistryAuthBasicUser: string;
  schemaRegistryAuthBasicPassword: string;
  schemaRegistryAuthBearerToken: string;
  schemaRegistryAuthBearerPrincipal: string;
  schemaRegistrySslKeystoreLocation: string;
  schemaRegistrySslKeyPassword: string;
  schemaRegistrySslTruststoreLocation: string;
  schemaRegistrySslClientAuth: string;
  /** Consumer groups (Kafka's names; see groups/coordinator.ts). */
  groupInitialRebalanceDelayMs: number;
  groupMinSessionTimeoutMs: number;
  groupMaxSessionTimeoutMs: number;
  groupMaxSize: number;
  /** KIP-848 consumer-protocol groups (Kafka's group.consumer.* names). */
  groupConsumerSessionTimeoutMs: number;
  groupConsumerHeartbeatIntervalMs: number;
  groupShareSessionTimeoutMs: number;
  groupShareHeartbeatIntervalMs: number;
  groupShareRecordLockDurationMs: number;
  groupShareDeliveryCountLimit: number;
  groupSharePartitionMaxRecordLocks: number;
  groupShareMaxSize: number;
  groupShareMaxShareSessions: number;
  /** The bounds of the consumer.session.timeout.ms / consumer.heartbeat.interval.ms group configs. */
  groupConsumerMinSessionTimeoutMs: number;
  groupConsumerMaxSessionTimeoutMs: number;
  groupConsumerMinHeartbeatIntervalMs: number;
  groupConsumerMaxHeartbeatIntervalMs: number;
  groupConsumerAssignors: string;
  groupConsumerMaxSize: number;
  /** group.consumer.migration.policy: disabled, upgrade, downgrade or bidirectional. */
  groupConsumerMigrationPolicy: string;
  offsetsRetentionMinutes: number;
  offsetsRetentionCheckIntervalMs: number;
  offsetMetadataMaxBytes: number;
  /** Transactions (Kafka's names): the longest transaction.timeout.ms a producer may ask for. */
  transactionMaxTimeoutMs: number;
  /** How often transactions past their timeout are looked for and aborted. */
  transactionAbortTimedOutIntervalMs: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** json (one object per line, the default) or pretty (one human-readable line, for a terminal). */
  logFormat: LogFormat;
  /** Largest partition count of one topic (Runnel's name; Kafka has no such setting). */
  topicMaxPartitions: number;
  /** Largest total partition count over all topics (Runnel's name). */
  clusterMaxPartitions: number;
  /** Tiered storage (Kafka's remote.log.storage.system.enable): topics may set remote.storage.enable=true. */
  remoteLogStorageSystemEnable: boolean;
  /** The archiver's lake (file:///path, a path or s3://bucket/prefix; Runnel's name, the archiver's RUNNEL_LAKE); empty: file://<data.dir>/lake. */
  lake: string;
  /** S3 of the lake, as the archiver's RUNNEL_S3_*: endpoint, path-style addressing ('' = true with an endpoint), region. */
  s3Endpoint: string;
  s3ForcePathStyle: string;
  s3Region: string;
  /** The longest a Fetch waits for a lake read (Kafka's remote.fetch.max.wait.ms); past it the partition answers no records this time. */
  remoteFetchMaxWaitMs: number;
  /** Bytes of batches rebuilt from lake files kept for the next reads (Runnel's name). */
  remoteLogReaderCacheSizeBytes: number;
  /** How often each tiered topic's Delta log is checked for new commits (Runnel's name); a read past the known files checks at once. */
  remoteLogMetadataRefreshIntervalMs: number;
  /** Largest Fetch response the broker builds, whatever the request's max_bytes (Kafka's fetch.max.bytes). */
  fetchMaxBytes: number;
  /** Incremental fetch sessions one broker keeps (Kafka's max.incremental.fetch.session.cache.slots); 0 disables them. */
  maxIncrementalFetchSessionCacheSlots: number;
  /** Bytes of store reads started ahead for consumers' next fetches, over all partitions (Runnel's name); 0 disables read-ahead. */
  fetchReadAheadBytes: number;
  /** Bytes of the batches appended last that Fetch is answered from without reading Redis, all partitions together (Runnel's name); 0 disables the tail cache. */
  logTailCacheBytes: number;
  /** Client quotas are measured over this many samples (Kafka's quota.window.num)... */
  quotaWindowNum: number;
  /** ...of this many seconds each (quota.window.size.seconds). */
  quotaWindowSizeSeconds: number;
  /** Connections with no request or response for this long are closed (Kafka's connections.max.idle.ms). */
  connectionsMaxIdleMs: number;
  /** Client connections accepted at once; more are closed at accept (Kafka's max.connections). */
  maxConnections: number;
  /** Request bytes read but not yet answered, all connections together; above it no socket is read (Kafka's queued.max.request.bytes). */
  queuedMaxRequestBytes: number;
  /** A request frame must arrive completely within this long of its first byte (Runnel's name). */
  socketPartialRequestTimeoutMs: number;
  /** Response bytes a connection may have waiting for the client to read; above it that connection is not read (Runnel's name). */
  socketMaxUnsentBytes: number;
  /** Compacts topics with cleanup.policy=compact (Kafka's log.cleaner.enable). */
  logCleanerEnable: boolean;
  /** Pause between cleaner passes over the led compacted partitions. */
  logCleanerBackoffMs: number;
  /** Bounds the cleaner's key map: one key per 128 bytes (Kafka counts 24 bytes per key in its own map). */
  logCleanerDedupeBufferSize: number;
  /** Authorization: Kafka's authorizer class (StandardAuthorizer or AclAuthorizer) turns ACLs on; empty = off. */
  authorizerClassName: string;
  /** Principals allowed everything, separated by semicolons (Kafka's super.users). */
  superUsers: string;
  /** A resource no ACL names is open to everybody (Kafka's allow.everyone.if.no.acl.found). */
  allowEveryoneIfNoAclFound: boolean;
  /** SASL (Kafka's names): mechanisms offered by SASL listeners, Runnel's default PLAIN,SCRAM-SHA-256,SCRAM-SHA-512. */
  saslEnabledMechanisms: string;
  /** JAAS text; its PlainLoginModule user_<name>="<password>" options are static PLAIN users. */
  saslJaasConfig: string;
  /** SASL sessions expire this long after authentication unless re-authenticated; 0: never (KIP-368). */
  connectionsMaxReauthMs: number;
  /** Largest request frame a SASL connection may send before it is authenticated. */
  saslServerMaxReceiveSize: number;
  /** A failed SASL authentication is answered (and the connection closed) this long after it failed. */
  connectionFailedAuthenticationDelayMs: number;
  /** SASL/OAUTHBEARER: the sasl.oauthbearer.* keys (security/sasl/oauthbearer-settings.ts), as given or Kafka's defaults. */
  oauthbearer: Record<OAuthBearerKey, string>;
  /** listener.name.<listener>.sasl.enabled.mechanisms, listener.name.<listener>.<mechanism>.sasl.jaas.config and the per-listener sasl.oauthbearer.* keys as given. */
  listenerOverrides?: Record<string, string>;
  /** Kafka keys given that have no meaning for Runnel (logged once as a warning at start). Not a setting. */
  ignoredKeys?: string[];
}

interface Setting {
  key: string; // Kafka-style property name
  field: keyof BrokerConfig;
  /** long: a whole number 0..2^63-1 kept as its exact decimal string (Kafka longs such as Long.MAX_VALUE). */
  kind: 'int' | 'bool' | 'string' | 'long';
  default: string;
}

const SETTINGS: Setting[] = [
  { key: 'node.id', field: 'nodeId', kind: 'int', default: '1' },
  { key: 'host', field: 'host', kind: 'string', default: '127.0.0.1' },
  { key: 'port', field: 'port', kind: 'int', default: '9092' },
  { key: 'advertised.host', field: 'advertisedHost', kind: 'string', default: '' },
  { key: 'advertised.port', field: 'advertisedPort', kind: 'int', default: '0' },
  { key: 'redis.url', field: 'redisUrl', kind: 'string', default: '' },
  { key: 'redis.tls.ca.location', field: 'redisTlsCaLocation', kind: 'string', default: '' },
  { key: 'redis.tls.cert.location', field: 'redisTlsCertLocation', kind: 'string', default: '' },
  { key: 'redis.tls.key.location', field: 'redisTlsKeyLocation', kind: 'string', default: '' },
  { key: 'redis.tls.servername', field: 'redisTlsServername', kind: 'string', default: '' },
  { key: 'redis.tls.insecure.skip.verify', field: 'redisTlsInsecureSkipVerify', kind: 'bool', default: 'false' },
  { key: 'data.dir', field: 'dataDir', kind: 'string', default: './data' },
  { key: 'key.prefix', field: 'keyPrefix', kind: 'string', default: 'rn' },
  { key: 'cluster.name', field: 'clusterName', kind: 'string', default: 'runnel' },
  { key: 'auto.create.topics.enable', field: 'autoCreateTopics', kind: 'bool', default: 'true' },
  { key: 'num.partitions', field: 'numPartitions', kind: 'int', default: '1' },
  { key: 'default.replication.factor', field: 'defaultReplicationFactor', kind: 'int', default: '1' },
  { key: 'message.max.bytes', field: 'messageMaxBytes', kind: 'int', default: '1048588' },
  { key: 'socket.request.max.bytes', field: 'socketRequestMaxBytes', kind: 'int', default: '104857600' },
  { key: 'log.retention.ms', field: 'logRetentionMs', kind: 'int', default: '604800000' },
  { key: 'log.retention.bytes', field: 'logRetentionBytes', kind: 'int', default: '-1' },
  { key: 'log.message.timestamp.before.max.ms', field: 'logMessageTimestampBeforeMaxMs', kind: 'long', default: '9223372036854775807' },
  { key: 'log.message.timestamp.after.max.ms', field: 'logMessageTimestampAfterMaxMs', kind: 'long', default: '3600000' },
  { key: 'log.retention.check.interval.ms', field: 'retentionCheckIntervalMs', kind: 'int', default: '300000' },
  { key: 'log.cleaner.enable', field: 'logCleanerEnable', kind: 'bool', default: 'true' },
  { key: 'log.cleaner.backoff.ms', field: 'logCleanerBackoffMs', kind: 'int', default: '15000' },
  { key: 'log.cleaner.dedupe.buffer.size', field: 'logCleanerDedupeBufferSize', kind: 'int', default: '134217728' },
  { key: 'min.insync.replicas', field: 'minInsyncReplicas', kind: 'int', default: '1' },
  { key: 'redis.acks.all.waitaof', field: 'acksAllWaitAof', kind: 'bool', default: 'false' },
  { key: 'redis.replica.wait.ms', field: 'replicaWaitMs', kind: 'int', default: '5000' },
  { key: 'redis.connection.timeout.ms', field: 'redisConnectionTimeoutMs', kind: 'int', default: '10000' },
  { key: 'producer.id.expiration.ms', field: 'producerIdExpirationMs', kind: 'int', default: '86400000' },
  { key: 'redis.allow.eviction', field: 'redisAllowEviction', kind: 'bool', default: 'false' },
  { key: 'delete.topic.enable', field: 'deleteTopicEnable', kind: 'bool', default: 'true' },
  { key: 'broker.lease.ms', field: 'brokerLeaseMs', kind: 'int', default: '3000' },
  { key: 'leadership.tick.ms', field: 'leadershipTickMs', kind: 'int', default: '500' },
  { key: 'offsets.topic.num.partitions', field: 'coordinatorSlots', kind: 'int', default: '50' },
  { key: 'leadership.handoff.per.tick', field: 'leadershipHandoffPerTick', kind: 'int', default: '8' },
  { key: 'leadership.acquire.per.tick', field: 'leadershipAcquirePerTick', kind: 'int', default: '200' },
  { key: 'broker.rack', field: 'rack', kind: 'string', default: '' },
  { key: 'http.port', field: 'httpPort', kind: 'int', default: '0' },
  { key: 'http.host', field: 'httpHost', kind: 'string', default: '127.0.0.1' },
  { key: 'http.auth.bearer.token', field: 'httpAuthBearerToken', kind: 'string', default: '' },
  { key: 'http.auth.bearer.principal', field: 'httpAuthBearerPrincipal', kind: 'string', default: 'User:ANONYMOUS' },
  { key: 'http.auth.basic.user', field: 'httpAuthBasicUser', kind: 'string', default: '' },
  { key: 'http.auth.basic.password', field: 'httpAuthBasicPassword', kind: 'string', default: '' },
  { key: 'http.ssl.keystore.location', field: 'httpSslKeystoreLocation', kind: 'string', default: '' },
  { key: 'http.ssl.key.password', field: 'httpSslKeyPassword', kind: 'string', default: '' },
  { key: 'http.ssl.truststore.location', field: 'httpSslTruststoreLocation', kind: 'string', default: '' },
  { key: 'http.ssl.client.auth', field: 'httpSslClientAuth', kind: 'string', default: 'none' },
  { key: 'http.console.enable', field: 'httpConsoleEnable', kind: 'bool', default: 'true' },
  { key: 'schema.registry.listeners', field: 'schemaRegistryListeners', kind: 'string', default: '' },
  { key: 'schema.registry.auth.basic.user', field: 'schemaRegistryAuthBasicUser', kind: 'string', default: '' },
  { key: 'schema.registry.auth.basic.password', field: 'schemaRegistryAuthBasicPassword', kind: 'string', default: '' },
  { key: 'schema.registry.auth.bearer.token', field: 'schemaRegistryAuthBearerToken', kind: 'string', default: '' },
  { key: 'schema.registry.auth.bearer.principal', field: 'schemaRegistryAuthBearerPrincipal', kind: 'string', default: 'User:ANONYMOUS' },
  { key: 'schema.registry.ssl.keystore.location', field: 'schemaRegistrySslKeystoreLocation', kind: 'string', default: '' },
  { key: 'schema.registry.ssl.key.password', field: 'schemaRegistrySslKeyPassword', kind: 'string', default: '' },
  { key: 'schema.registry.ssl.truststore.location', field: 'schemaRegistrySslTruststoreLocation', kind: 'string', default: '' },
  { key: 'schema.registry.ssl.client.auth', field: 'schemaRegistrySslClientAuth', kind: 'string', default: 'none' },
  { key: 'group.initial.rebalance.delay.ms', field: 'groupInitialRebalanceDelayMs', kind: 'int', default: '3000' },
  { key: 'group.min.session.timeout.ms', field: 'groupMinSessionTimeoutMs', kind: 'int', default: '6000' },
  { key: 'group.max.session.timeout.ms', field: 'groupMaxSessionTimeoutMs', kind: 'int', default: '1800000' },
  { key: 'group.max.size', field: 'groupMaxSize', kind: 'int', default: '2147483647' },
  { key: 'group.consumer.session.timeout.ms', field: 'groupConsumerSessionTimeoutMs', kind: 'int', default: '45000' },
  { key: 'group.consumer.heartbeat.interval.ms', field: 'groupConsumerHeartbeatIntervalMs', kind: 'int', default: '5000' },
  { key: 'group.share.session.timeout.ms', field: 'groupShareSessionTimeoutMs', kind: 'int', default: '45000' },
  { key: 'group.share.heartbeat.interval.ms', field: 'groupShareHeartbeatIntervalMs', kind: 'int', default: '5000' },
  { key: 'group.share.record.lock.duration.ms', field: 'groupShareRecordLockDurationMs', kind: 'int', default: '30000' },
  { key: 'group.share.delivery.count.limit', field: 'groupShareDeliveryCountLimit', kind: 'int', default: '5' },
  { key: 'group.share.partition.max.record.locks', field: 'groupSharePartitionMaxRecordLocks', kind: 'int', default: '2000' },
  { key: 'group.share.max.size', field: 'groupShareMaxSize', kind: 'int', default: '200' },
  { key: 'group.share.max.share.sessions', field: 'groupShareMaxShareSessions', kind: 'int', default: '2000' },
  { key: 'group.consumer.min.session.timeout.ms', field: 'groupConsumerMinSessionTimeoutMs', kind: 'int', default: '45000' },
  { key: 'group.consumer.max.session.timeout.ms', field: 'groupConsumerMaxSessionTimeoutMs', kind: 'int', default: '60000' },
  { key: 'group.consumer.min.heartbeat.interval.ms', field: 'groupConsumerMinHeartbeatIntervalMs', kind: 'int', default: '5000' },
  { key: 'group.consumer.max.heartbeat.interval.ms', field: 'groupConsumerMaxHeartbeatIntervalMs', kind: 'int', default: '15000' },
  { key: 'group.consumer.assignors', field: 'groupConsumerAssignors', kind: 'string', default: 'uniform,range' },
  { key: 'group.consumer.max.size', field: 'groupConsumerMaxSize', kind: 'int', default: '2147483647' },
  { key: 'group.consumer.migration.policy', field: 'groupConsumerMigrationPolicy', kind: 'string', default: 'bidirectional' },
  { key: 'offsets.retention.minutes', field: 'offsetsRetentionMinutes', kind: 'int', default: '10080' },
  { key: 'offsets.retention.check.interval.ms', field: 'offsetsRetentionCheckIntervalMs', kind: 'int', default: '600000' },
  { key: 'transaction.max.timeout.ms', field: 'transactionMaxTimeoutMs', kind: 'int', default: '900000' },
  { key: 'transaction.abort.timed.out.transaction.cleanup.interval.ms', field: 'transactionAbortTimedOutIntervalMs', kind: 'int', default: '10000' },
  { key: 'offset.metadata.max.bytes', field: 'offsetMetadataMaxBytes', kind: 'int', default: '4096' },
  { key: 'log.level', field: 'logLevel', kind: 'string', default: 'info' },
  { key: 'log.format', field: 'logFormat', kind: 'string', default: 'json' },
  { key: 'topic.max.partitions', field: 'topicMaxPartitions', kind: 'int', default: '10000' },
  { key: 'cluster.max.partitions', field: 'clusterMaxPartitions', kind: 'int', default: '10000' },
  { key: 'fetch.max.bytes', field: 'fetchMaxBytes', kind: 'int', default: '57671680' },
  { key: 'remote.log.storage.system.enable', field: 'remoteLogStorageSystemEnable', kind: 'bool', default: 'true' },
  { key: 'lake', field: 'lake', kind: 'string', default: '' },
  { key: 's3.endpoint', field: 's3Endpoint', kind: 'string', default: '' },
  { key: 's3.force.path.style', field: 's3ForcePathStyle', kind: 'string', default: '' },
  { key: 's3.region', field: 's3Region', kind: 'string', default: '' },
  { key: 'remote.fetch.max.wait.ms', field: 'remoteFetchMaxWaitMs', kind: 'int', default: '500' },
  { key: 'remote.log.reader.cache.size.bytes', field: 'remoteLogReaderCacheSizeBytes', kind: 'int', default: '268435456' },
  { key: 'remote.log.metadata.refresh.interval.ms', field: 'remoteLogMetadataRefreshIntervalMs', kind: 'int', default: '1000' },
  { key: 'max.incremental.fetch.session.cache.slots', field: 'maxIncrementalFetchSessionCacheSlots', kind: 'int', default: '1000' },
  { key: 'fetch.read.ahead.bytes', field: 'fetchReadAheadBytes', kind: 'int', default: '67108864' },
  { key: 'log.tail.cache.bytes', field: 'logTailCacheBytes', kind: 'int', default: '67108864' },
  { key: 'quota.window.num', field: 'quotaWindowNum', kind: 'int', default: '11' },
  { key: 'quota.window.size.seconds', field: 'quotaWindowSizeSeconds', kind: 'int', default: '1' },
  { key: 'connections.max.idle.ms', field: 'connectionsMaxIdleMs', kind: 'int', default: '600000' },
  { key: 'max.connections', field: 'maxConnections', kind: 'int', default: '1000' },
  { key: 'queued.max.request.bytes', field: 'queuedMaxRequestBytes', kind: 'int', default: '209715200' },
  { key: 'socket.partial.request.timeout.ms', field: 'socketPartialRequestTimeoutMs', kind: 'int', default: '30000' },
  { key: 'socket.max.unsent.bytes', field: 'socketMaxUnsentBytes', kind: 'int', default: '1048576' },
  { key: 'authorizer.class.name', field: 'authorizerClassName', kind: 'string', default: '' },
  { key: 'super.users', field: 'superUsers', kind: 'string', default: '' },
  { key: 'allow.everyone.if.no.acl.found', field: 'allowEveryoneIfNoAclFound', kind: 'bool', default: 'false' },
  { key: 'ssl.reload.interval.ms', field: 'sslReloadIntervalMs', kind: 'int', default: '60000' },
  { key: 'sasl.enabled.mechanisms', field: 'saslEnabledMechanisms', kind: 'string', default: DEFAULT_ENABLED_MECHANISMS },
  { key: 'sasl.jaas.config', field: 'saslJaasConfig', kind: 'string', default: '' },
  { key: 'connections.max.reauth.ms', field: 'connectionsMaxReauthMs', kind: 'int', default: '0' },
  { key: 'sasl.server.max.receive.size', field: 'saslServerMaxReceiveSize', kind: 'int', default: '524288' },
  { key: 'connection.failed.authentication.delay.ms', field: 'connectionFailedAuthenticationDelayMs', kind: 'int', default: '100' },
];

/**
 * Settings that may hold a password (Kafka's PASSWORD config type): DescribeConfigs
 * reports them with isSensitive=true and a null value, whatever their value.
 */
const SENSITIVE_KEYS: ReadonlySet<string> = new Set(['redis.url', 'sasl.jaas.config', 'http.auth.bearer.token', 'http.auth.basic.password', 'http.ssl.key.password',
  'schema.registry.auth.basic.password', 'schema.registry.auth.bearer.token', 'schema.registry.ssl.key.password']);

/** Broker settings exposed through DescribeConfigs on the BROKER resource; sensitive ones carry no value. */
export function brokerConfigEntries(cfg: BrokerConfig): Array<{ key: string; value: string | null; isDefault: boolean; sensitive: boolean }> {
  return SETTINGS.map((s) => {
    const value = String(cfg[s.field]);
    const sensitive = SENSITIVE_KEYS.has(s.key);
    return { key: s.key, value: sensitive ? null : value, isDefault: value === s.default, sensitive };
  });
}

export const envName = (key: string): string => `RUNNEL_${key.toUpperCase().replace(/[.-]/g, '_')}`;

function parse(s: Setting, raw: string): unknown {
  if (s.kind === 'int') {
    const n = parseInteger(raw);
    if (n === undefined) throw new RunnelError('CONFIG_INVALID', `${s.key}=${raw} is not an integer`);
    return n;
  }
  if (s.kind === 'long') {
    const t = raw.trim();
    if (!/^\d+$/.test(t) || BigInt(t) > 9223372036854775807n) throw new RunnelError('CONFIG_INVALID', `${s.key}=${raw} is not a whole number from 0 to 9223372036854775807`);
    return BigInt(t).toString();
  }
  if (s.kind === 'bool') {
    const b = parseBoolean(raw);
    if (b === undefined) throw new RunnelError('CONFIG_INVALID', `${s.key}=${raw} is not true/false`);
    return b;
  }
  return raw;
}

/** The broker's command-line flags (node:util parseArgs); each names a setting, except --config and --set. */
export const FLAG_KEYS: Readonly<Record<string, string>> = {
  redis: 'redis.url',
  port: 'port',
  host: 'host',
  'data-dir': 'data.dir',
  'node-id': 'node.id',
  'advertised-host': 'advertised.host',
  'advertised-port': 'advertised.port',
  'log-format': 'log.format',
};

export const BROKER_OPTIONS = {
  config: { type: 'string' },
  set: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
  ...Object.fromEntries(Object.keys(FLAG_KEYS).map((f) => [f, { type: 'string' }])),
} as const satisfies ParseArgsConfig['options'];

/** Usage lines of the broker's flags. */
export function brokerFlagsUsage(): string {
  const lines = [
    '  --config FILE            server.properties-style file (Kafka broker keys accepted; also RUNNEL_CONFIG)',
    '  --set KEY=VALUE          any setting, repeatable (e.g. --set num.partitions=6)',
  ];
  for (const [flag, key] of Object.entries(FLAG_KEYS)) lines.push(`  --${`${flag} VALUE`.padEnd(23)}${key}`);
  lines.push('  -h, --help               this help');
  return `${lines.join('\n')}\n`;
}

/** Every key a file, --set or RUNNEL_* may name: Runnel's settings, Kafka aliases and translated keys. */
export const KNOWN_KEYS: readonly string[] = [...SETTINGS.map((s) => s.key), ...Object.keys(ALIASES), ...TRANSLATED_KEYS, ...SSL_KEYS, ...OAUTHBEARER_KEYS];
const OAUTH_KEYS: ReadonlySet<string> = new Set(OAUTHBEARER_KEYS);
const SETTING_KEYS = new Set(SETTINGS.map((s) => s.key));

/** Environment variables of other Runnel components (the archiver), not broker settings; RUNNEL_LAKE and RUNNEL_S3_* are settings of both. */
const OTHER_ENV = /^RUNNEL_(CONFIG|ARCHIVER_.*|TEST_.*)$/;

export function loadBrokerConfig(argv: string[] = [], env: NodeJS.ProcessEnv = process.env): BrokerConfig {
  const { values: opts } = parseArgs({ args: argv, options: BROKER_OPTIONS, strict: true, allowPositionals: false });
  const o = opts as Record<string, string | string[] | boolean | undefined>;
  const file = (o.config as string | undefined) ?? env.RUNNEL_CONFIG;
  // Explicitly given keys, in precedence order: file < environment < flags.
  const explicit: Record<string, string> = {};
  const ignored = new Set<string>();
  const listenerOverrides: Record<string, string> = {};
  const oauthbearer: Record<OAuthBearerKey, string> = { ...OAUTHBEARER_DEFAULTS };
  const put = (key: string, value: string, where: string): void => {
    const k = ALIASES[key] ?? key;
    const perListener = listenerSaslKey(k);
    if (perListener) listenerOverrides[perListener] = value;
    else if (OAUTH_KEYS.has(k)) oauthbearer[k as OAuthBearerKey] = value;
    else if (SETTING_KEYS.has(k) || TRANSLATED_KEYS.includes(k) || isSslKey(k)) explicit[k] = value;
    else if (isIgnoredKey(k)) ignored.add(k);
    else throw unknownKey(key, where, KNOWN_KEYS);
  };
  if (file) for (const [k, v] of Object.entries(parseProperties(readFileSync(file, 'utf8')))) put(k, v, file);
  const byEnv = new Map<string, string>();
  for (const k of KNOWN_KEYS) byEnv.set(envName(k), k);
  const knownEnv = [...byEnv.keys()];
  for (const [name, v] of Object.entries(env)) {
    if (!name.startsWith('RUNNEL_') || v === undefined || OTHER_ENV.test(name)) continue;
    const key = byEnv.get(name);
    if (key) put(key, v, `environment ${name}`);
    else {
      // RUNNEL_* is shared with tools and scripts: only a near miss of a broker setting is refused.
      const hint = closest(name, knownEnv);
      if (hint && editDistance(name, hint) <= 2) throw new RunnelError('CONFIG_INVALID', `unknown setting ${name} (environment); did you mean ${hint}?`);
    }
  }
  for (const kv of (o.set as string[] | undefined) ?? []) {
    const j = kv.indexOf('=');
    if (j <= 0) throw new RunnelError('CONFIG_INVALID', `--set ${kv}: expected KEY=VALUE`);
    put(kv.slice(0, j).trim(), kv.slice(j + 1), '--set');
  }
  for (const [flag, key] of Object.entries(FLAG_KEYS)) if (typeof o[flag] === 'string') explicit[key] = o[flag] as string;
  const values: Record<string, string> = {};
  for (const s of SETTINGS) values[s.key] = s.default;
  for (const [k, v] of Object.entries(explicit)) if (SETTING_KEYS.has(k)) values[k] = v;
  applyKafkaKeys(explicit, values);
  const cfg = {} as Record<string, unknown>;
  for (const s of SETTINGS) cfg[s.field] = parse(s, values[s.key]!);
  const out = cfg as unknown as BrokerConfig;
  if (!isLogFormat(out.logFormat)) throw new RunnelError('CONFIG_INVALID', `log.format=${out.logFormat as string} (expected ${LOG_FORMATS.join(' or ')})`);
  consumerAssignors(out.groupConsumerAssignors); // refuses an assignor Runnel does not provide
  migrationPolicy(out.groupConsumerMigrationPolicy);
  out.listeners = resolveListeners(explicit, values);
  const first = out.listeners[0]!;
  Object.assign(out, { host: first.host, port: first.port, advertisedHost: first.advertisedHost, advertisedPort: first.advertisedPort || first.port });
  authorizerEnabled(out.authorizerClassName); // refuses an authorizer class Runnel does not provide
  out.oauthbearer = oauthbearer;
  if (Object.keys(listenerOverrides).length) out.listenerOverrides = listenerOverrides;
  if (ignored.size) out.ignoredKeys = [...ignored].sort();
  return out;
}
