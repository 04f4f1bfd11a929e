// Wires one broker process together: store, log manager, dispatcher, server, retention.
import { OffsetsTopicMirror } from './groups/offsets-mirror.js';
import { OFFSETS_TOPIC, isInternalTopic, leaseUnitOf } from './log/internal-topics.js';
import { TransactionCoordinator } from './transactions/coordinator.js';
import { RedisTxnStore } from './redis/redis-txn-store.js';
import { BrokerClient } from './transactions/broker-client.js';
import { KafkaMarkerWriter } from './transactions/marker-writer.js';
import { CoordinatorTransactionServices } from './transactions/services.js';
import { FetchSessionCache } from './fetch/fetch-sessions.js';
import { QuotaService } from './quotas/quota-service.js';
import { RedisQuotaStore } from './redis/redis-quota-store.js';
import { writeMarkerHere } from './transactions/local-marker.js';
import { coordinatorFor } from './handlers/support/cluster-view.js';
import { randomBytes } from 'node:crypto';
import type { BrokerConfig } from './config/config.js';
import { createLogger, type Logger } from '../../common/logger/logger.js';
import { connectWithRetry } from '../../common/redis/connect-retry.js';
import { RedisLogStore } from './redis/redis-log-store.js';
import { checkRedisServer } from './redis/server-checks.js';
import { RedisTlsConfigError, redisTlsOptions, redisTlsSettings } from '../../common/redis/tls-options.js';
import { RunnelError } from '../../common/errors.js';
import { LogManager } from './log/log-manager.js';
import { Dispatcher } from './dispatch.js';
import { buildHandlers } from './handlers/support/registry.js';
import { startListeners } from './server/listeners.js';
import { listenError } from './server/listen-error.js';
import { interBrokerListener } from './cluster/endpoints.js';
import { startEmbeddedRedis, type EmbeddedRedis } from './redis/embedded-redis.js';
import { RetentionTask } from './log/retention.js';
import { CleanerTask } from './log/compaction/cleaner-task.js';
import type { BrokerServices } from './handlers/support/types.js';
import { RedisClusterStore } from './redis/redis-cluster-store.js';
import { Registry } from 'prom-client';
import { startHttp } from '../../common/http/http-server.js';
import { HttpConfigError, httpsOptions } from '../../common/http/http-settings.js';
import { brokerHttpSettings, consoleAccessOf } from './http/broker-http.js';
import { consoleData } from './redis/console-data.js';
import { consoleRoutes } from './http/console/routes.js';
import { observeBroker } from './http/broker-metrics.js';
import { RequestMetrics } from './http/request-metrics.js';
import { Leadership } from './cluster/leadership.js';
import type { LeaseUnit } from './storage/cluster-store.js';
import type { LogManager as LogManagerType } from './log/log-manager.js';
import { GroupCoordinator } from './groups/coordinator.js';
import { systemClock } from '../../common/clock.js';
import { RedisGroupStore } from './redis/redis-group-store.js';
import { RedisCredentialStore } from './redis/redis-credential-store.js';
import { saslSettingsFromConfig } from './config/sasl.js';
import { isLocalCoordinator } from './handlers/support/cluster-view.js';
import { usablePartitionCount } from './topics/partition-limits.js';
import { AclService } from './security/acl/acl-service.js';
import { RedisAclStore } from './redis/redis-acl-store.js';

export interface RunningBroker {
  port: number;
  services: BrokerServices;
  stop(): Promise<void>;
  /**
   * Resolves if another process took this broker's node id over (this one was
   * paused or cut off from Redis past its lease); the broker has stopped by
   * then and the process should exit non-zero.
   */
  superseded: Promise<string>;
}

export async function startBroker(config: BrokerConfig, logger: Logger = createLogger(config.logLevel, 'broker')): Promise<RunningBroker> {
  let embedded: EmbeddedRedis | null = null;
  // rediss://: one set of TLS options for every Redis connection (ioredis and the append connection).
  const tls = configured(() => redisTlsOptions(config.redisUrl, redisTlsSettings(config)));
  // http.*: checked before anything starts (a half-configured endpoint must not serve unprotected).
  const httpSettings = config.httpPort > 0 ? configured(() => { const s = brokerHttpSettings(config); httpsOptions(s); return s; }) : null;
  const metrics = new Registry();
  if (config.ignoredKeys?.length) logger.warn('ignored Kafka settings that have no meaning for Runnel', { keys: config.ignoredKeys.join(',') });
  if (config.redisTlsInsecureSkipVerify) logger.warn('redis.tls.insecure.skip.verify=true: the Redis server certificate is not checked');
  // A SASL listener's settings are checked before anything starts (a bad sasl.* key is a configuration error).
  for (const l of config.listeners) if (l.securityProtocol.startsWith('SASL_')) saslSettingsFromConfig(config, l.name);
  let url = config.redisUrl;
  if (!url) {
    embedded = await startEmbeddedRedis(config.dataDir, logger);
    url = embedded.url;
  }
  const connectTimeoutMs = Math.max(1, config.redisConnectionTimeoutMs);
  const store = new RedisLogStore(url, config.keyPrefix, tls ? { tls, connectTimeoutMs } : { connectTimeoutMs });
  // Refused or failed attempts are retried until redis.connection.timeout.ms has passed, each attempt bounded by it.
  await connectWithRetry(() => store.connect(), {
    url, timeoutMs: connectTimeoutMs, setting: 'redis.connection.timeout.ms', urlSetting: '--redis / redis.url', tlsSettings: 'redis.tls.*', logger,
    cleanup: () => store.close(),
  }).catch(async (e: unknown) => { await embedded?.stop(); throw e; });
  await checkRedisServer(store.redis, store.keyNames, { waitAof: config.acksAllWaitAof, allowEviction: config.redisAllowEviction }, logger)
    .catch(async (e: unknown) => { await store.close(); await embedded?.stop(); throw e; });
  const clusterId = await store.clusterId();
  const log = new LogManager(store, config);
  await log.refreshTopics();
  await ensureOffsetsTopic(log, config.coordinatorSlots, logger).catch(async (e: unknown) => { await store.close(); await embedded?.stop(); throw e; });
  const server = await startListeners(config, logger).catch(async (e: unknown) => { await store.close(); await embedded?.stop(); throw e; });
  const port = server.ports[0]!;
  config.advertisedPort = server.endpoints[0]!.port;
  // Other brokers reach this one on its inter-broker listener; clients on the listener they use.
  const interBroker = server.endpoints[config.listeners.indexOf(interBrokerListener(config.listeners))]!;
  const clusterStore = new RedisClusterStore(store.redis, store.keyNames);
  // This process's identity in registrations and leases: a restarted or duplicate process never passes for this one.
  const instance = `${config.nodeId}:${randomBytes(8).toString('hex')}`;
  let onSuperseded: (holder: string) => void = () => undefined;
  const superseded = new Promise<string>((resolve) => { onSuperseded = resolve; });
  const cluster = new Leadership(
    clusterStore,
    {
      self: { nodeId: config.nodeId, host: interBroker.host, port: interBroker.port, rack: config.rack || null, endpoints: server.endpoints },
      instance,
      leaseTtlMs: config.brokerLeaseMs,
      tickMs: config.leadershipTickMs,
      coordinatorSlots: config.coordinatorSlots,
      handoffPerTick: config.leadershipHandoffPerTick,
      acquirePerTick: config.leadershipAcquirePerTick,
    },
    () => leaseUnits(log, config.coordinatorSlots),
    {
      onAcquire: async (u) => {
        const t = await log.topic(u.topic);
        if (!t) throw new Error(`topic ${u.topic} vanished`);
        await log.partitionOf(t, u.partition).takeLeadership(await clusterStore.bumpLeaderEpoch(u.topic, u.partition), clusterStore);
      },
      onRelease: (u) => {
        if (u.kind === 'partition') log.release(u.topic, u.partition);
        else {
          groups.unloadWhere((g) => cluster.coordinatorSlot(g) === u.slot);
          transactions.unloadSlot(u.slot);
          log.release(OFFSETS_TOPIC, u.slot); // its `__consumer_offsets` partition goes with the slot
        }
      },
      onSuperseded: (holder) => onSuperseded(holder),
    },
    logger,
  );
  log.leadership = cluster;
  log.epochHistory = clusterStore;
  const groupStore = new RedisGroupStore(store.redis, config.keyPrefix);
  const groups = new GroupCoordinator(groupStore, systemClock, {
    settings: {
      initialRebalanceDelayMs: config.groupInitialRebalanceDelayMs,
      minSessionTimeoutMs: config.groupMinSessionTimeoutMs,
      maxSessionTimeoutMs: config.groupMaxSessionTimeoutMs,
      maxSize: config.groupMaxSize,
      offsetsRetentionMs: config.offsetsRetentionMinutes * 60_000,
      offsetsRetentionCheckIntervalMs: config.offsetsRetentionCheckIntervalMs,
      offsetMetadataMaxBytes: config.offsetMetadataMaxBytes,
    },
    logger,
    isLocal: (g) => isLocalCoordinator(services, g),
    coordinatorEpoch: (g) => cluster.coordinatorEpoch(cluster.coordinatorSlot(g)),
    mirror: new OffsetsTopicMirror(log, (g) => cluster.coordinatorSlot(g), logger),
    txnOffsets: { store: groupStore, slotOf: (g) => cluster.coordinatorSlot(g) },
  });
  // The transaction coordinator: transactional ids share the group-coordinator slots (and their epochs).
  const brokerClient = new BrokerClient();
  const addressOf = (nodeId: number) => cluster.liveBrokers().find((x) => x.nodeId === nodeId) ?? null;
  const markerWriter = new KafkaMarkerWriter({
    nodeId: config.nodeId, leaderOf: (tp) => cluster.leaderOf(leaseUnitOf(tp)), addressOf, local: (tp, m) => writeMarkerHere(services, tp.topic, tp.partition, m),
  }, brokerClient, logger);
  const transactions = new TransactionCoordinator(new RedisTxnStore(store.redis, config.keyPrefix, () => store.nextProducerId()), markerWriter, systemClock, {
    settings: { maxTimeoutMs: config.transactionMaxTimeoutMs, abortTimedOutIntervalMs: config.transactionAbortTimedOutIntervalMs },
    logger,
    slotOf: (id) => cluster.coordinatorSlot(id),
    epochOf: (slot) => cluster.coordinatorEpoch(slot),
    ownedSlots: () => Array.from({ length: config.coordinatorSlots }, (_, s) => s).filter((s) => cluster.coordinatorEpoch(s) !== null),
    offsetsPartitionOf: (g) => ({ topic: OFFSETS_TOPIC, partition: cluster.coordinatorSlot(g) }),
  });
  const txn = new CoordinatorTransactionServices(transactions, groups, brokerClient, (id) => coordinatorFor(services, id));
  const acls = new AclService(config, new RedisAclStore(store.redis, config.keyPrefix), logger);
  const credentials = new RedisCredentialStore(store.redis, config.keyPrefix);
  const fetchSessions = new FetchSessionCache(config.maxIncrementalFetchSessionCacheSlots);
  const quotas = new QuotaService({ windowNum: Math.max(2, config.quotaWindowNum), windowMs: Math.max(1, config.quotaWindowSizeSeconds) * 1000 }, new RedisQuotaStore(store.redis, config.keyPrefix), logger);
  const services: BrokerServices = { config, clusterId, log, store, logger, cluster, groups, transactions, txn, fetchSessions, quotas, acls, credentials };
  try {
    // Claims the node id first: a second live process with this node.id fails here (NodeIdInUseError).
    await cluster.start();
    await quotas.start();
  } catch (e) {
    quotas.stop();
    await server.close();
    await store.close();
    await embedded?.stop();
    throw e;
  }
  // The ACLs are in force before the first request is served.
  await acls.start().catch(async (e: unknown) => { await cluster.stop(); await server.close(); await store.close(); await embedded?.stop(); throw e; });
  server.setDispatcher(new Dispatcher(buildHandlers(), services, new RequestMetrics(metrics)));
  const stopSampler = httpSettings ? observeBroker(metrics, { services, redis: store.redis, connections: () => server.connections() }) : () => undefined;
  // The web console (read-only) shares the endpoint, its authentication and TLS, and obeys the Kafka port's ACLs.
  const access = httpSettings ? consoleAccessOf(acls, httpSettings, config) : undefined;
  const routes = consoleRoutes(config, () => consoleData({ store, groups: groupStore, liveGroupState: (g) => groups.loadedGroup(g)?.state }), access);
  const http = httpSettings ? await startHttp(httpSettings, { ready: async () => (await store.redis.ping()) === 'PONG', registry: metrics, routes }).catch(async (e: unknown) => {
    // e.g. the port is taken: nothing else has started yet but the listener and the leases
    stopSampler();
    await server.close();
    await cluster.stop();
    await store.close();
    await embedded?.stop();
    throw listenError(e, httpSettings.host, httpSettings.port, 'http.port');
  }) : null;
  if (http) logger.info('http endpoint listening', http.describe);
  const retention = new RetentionTask(log, logger, config.retentionCheckIntervalMs);
  retention.start();
  const cleaner = config.logCleanerEnable ? new CleanerTask(log, logger, config) : null;
  cleaner?.start();
  groups.start();
  transactions.start();
  if (interBrokerListener(config.listeners).securityProtocol !== 'PLAINTEXT') {
    logger.warn('no PLAINTEXT listener: other brokers cannot send this one transaction markers (they speak PLAINTEXT only)', { listener: interBroker.listener });
  }
  logger.info('runnel broker listening', { host: config.host, port, listeners: config.listeners.map((l, i) => `${l.name}://${l.host}:${server.ports[i]}`).join(','), redis: url.replace(/\/\/[^@]*@/, '//***@'), nodeId: config.nodeId, instance, clusterId });
  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      retention.stop();
      stopSampler();
      await http?.close();
      await cleaner?.stop();
      groups.stop();
      transactions.stop();
      quotas.stop();
      acls.stop();
      brokerClient.close();
      await server.close();
      await cluster.stop();
      await store.close();
      await embedded?.stop();
    })();
    return stopping;
  };
  return {
    port,
    services,
    stop,
    superseded: superseded.then(async (holder) => {
      await stop();
      return holder;
    }),
  };
}

/**
 * Creates `__consumer_offsets` if missing. Its partition s is coordinator
 * slot s, so a stored count other than offsets.topic.num.partitions (the
 * setting changed after the topic was created; Kafka never resizes it either)
 * leaves the slots past the count unmirrored: said once here.
 */
async function ensureOffsetsTopic(log: LogManagerType, slots: number, logger: Logger): Promise<void> {
  const t = await log.ensureOffsetsTopic(slots);
  if (t.partitions !== slots) {
    logger.warn('__consumer_offsets has a partition count other than offsets.topic.num.partitions; groups of slots past it are not mirrored to it', { partitions: t.partitions, slots });
  }
}

/** Every topic-partition plus every coordinator slot is a unit of leadership (`__consumer_offsets` partitions ride on their slots). */
async function leaseUnits(log: LogManagerType, slots: number): Promise<LeaseUnit[]> {
  const units: LeaseUnit[] = [];
  for (const t of await log.allTopics()) {
    // Never enumerate a count past topic.max.partitions (a hostile or corrupt record): such a topic gets no leadership.
    if (!usablePartitionCount(t.partitions, log.config) || isInternalTopic(t.name)) continue;
    for (let p = 0; p < t.partitions; p++) units.push({ kind: 'partition', topic: t.name, partition: p });
  }
  for (let slot = 0; slot < slots; slot++) units.push({ kind: 'coordinator', slot });
  return units;
}

/** Settings refused by the shared Redis layer are configuration errors (RN3001). */
function configured<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof RedisTlsConfigError || e instanceof HttpConfigError) throw new RunnelError('CONFIG_INVALID', e.message);
    throw e;
  }
}

