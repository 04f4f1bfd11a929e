// Wires one broker process together, top-down: the Redis backend and its
// stores, the listeners, leadership and the log, the group and transaction
// coordinators, the dispatcher, the HTTP endpoint and the background tasks.
// Each resource's close goes on one cleanup stack as it is opened; stop()
// (and a failed start) closes them in reverse order.
import { ShareService } from './groups/share/share-service.js';
import { groupConfigBacked } from './groups/share/share-configs.js';
import { randomBytes } from 'node:crypto';
import { Registry } from 'prom-client';
import { brokerConfigEntries, type BrokerConfig } from './config/config.js';
import { createLogger, type Logger } from '../../common/logger/logger.js';
import { RedisTlsConfigError, redisTlsOptions, redisTlsSettings } from '../../common/redis/tls-options.js';
import { RunnelError } from '../../common/errors.js';
import { systemClock } from '../../common/clock.js';
import { startHttp } from '../../common/http/http-server.js';
import { HttpConfigError, httpsOptions } from '../../common/http/http-settings.js';
import { CleanupStack } from '../../common/cleanup-stack.js';
import { RedisBackend } from './redis/backend.js';
import { startListeners } from './server/listeners.js';
import { listenError } from './server/listen-error.js';
import { KafkaBrokerClient } from './server/broker-client.js';
import { Leadership } from './cluster/leadership.js';
import { interBrokerListener } from './cluster/endpoints.js';
import type { LeaseUnit } from './storage/cluster-store.js';
import { LogManager } from './log/log-manager.js';
import { OFFSETS_TOPIC, leaseUnitOf } from './log/internal-topics.js';
import { openLakeRemoteLog } from './lake/remote-log.js';
import { LakeMetrics, observeTiers } from './http/lake-metrics.js';
import { lakeUrl, s3PathStyle } from './config/lake.js';
import { RetentionTask } from './log/retention.js';
import { CleanerTask } from './log/compaction/cleaner-task.js';
import { GroupCoordinator } from './groups/coordinator.js';
import { GroupConfigs } from './groups/config/group-configs.js';
import { brokerSettings } from './groups/config/group-config-rules.js';
import { OffsetsTopicMirror } from './groups/offsets-mirror.js';
import { consumerAssignors, migrationPolicy } from './config/group-consumer.js';
import { TransactionCoordinator } from './transactions/coordinator.js';
import { KafkaMarkerWriter } from './transactions/marker-writer.js';
import { CoordinatorTransactionServices } from './transactions/services.js';
import { writeMarkerHere } from './transactions/local-marker.js';
import { FetchSessionCache } from './fetch/fetch-sessions.js';
import { QuotaService } from './quotas/quota-service.js';
import { AclService, authorizerEnabled } from './security/acl/acl-service.js';
import { saslSettingsFromConfig } from './config/sasl.js';
import { Dispatcher } from './dispatch.js';
import { buildHandlers } from './handlers/support/registry.js';
import type { BrokerServices } from './handlers/support/types.js';
import { coordinatorFor, isLocalCoordinator } from './handlers/support/cluster-view.js';
import { brokerHttpSettings, consoleAccessOf } from './http/broker-http.js';
import { consoleData } from './redis/console-data.js';
import { consoleRoutes } from './http/console/routes.js';
import { observeBroker } from './http/broker-metrics.js';
import { redisMemory } from './redis/status-report.js';
import { RequestMetrics } from './http/request-metrics.js';
import { SchemaRegistry } from './schema-registry/registry.js';
import { CachedSchemaIds } from './schema-registry/schema-ids.js';
import { registryListeners, registryRequiresCredentials, startSchemaRegistry } from './schema-registry/server.js';

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
  // rediss://: one set of TLS options for every Redis connection (ioredis and the append connection).
  const tls = configured(() => redisTlsOptions(config.redisUrl, redisTlsSettings(config)));
  // http.*: checked before anything starts (a half-configured endpoint must not serve unprotected).
  const httpSettings = config.httpPort > 0 ? configured(() => { const s = brokerHttpSettings(config); httpsOptions(s); return s; }) : null;
  // schema.registry.*: checked likewise; with an authorizer, every registry listener must require credentials (RN3003).
  const registryOn = configured(() => registryListeners(config));
  if (registryOn.length && authorizerEnabled(config.authorizerClassName) && !registryRequiresCredentials(registryOn)) {
    throw new RunnelError('HTTP_BYPASSES_AUTHORIZER', 'authorizer.class.name is set but schema.registry.listeners has no credentials, so the Schema Registry would serve anyone; '
      + 'set schema.registry.auth.basic.user and schema.registry.auth.basic.password (or schema.registry.auth.bearer.token, or schema.registry.ssl.client.auth=required on https listeners)');
  }
  const metrics = new Registry();
  if (config.ignoredKeys?.length) logger.warn('ignored Kafka settings that have no meaning for Runnel', { keys: config.ignoredKeys.join(',') });
  if (config.redisTlsInsecureSkipVerify) logger.warn('redis.tls.insecure.skip.verify=true: the Redis server certificate is not checked');
  // A SASL listener's settings are checked before anything starts (a bad sasl.* key is a configuration error).
  for (const l of config.listeners) if (l.securityProtocol.startsWith('SASL_')) saslSettingsFromConfig(config, l.name);
  // Everything opened below registers its close here as it is opened; a failed start and stop() both run it.
  const cleanup = new CleanupStack();
  try {
    const backend = await RedisBackend.open(config, tls, logger, cleanup);
    const clusterId = await backend.log.clusterId();
    const server = await startListeners(config, logger);
    cleanup.push(() => server.close());
    const port = server.ports[0]!;
    config.advertisedPort = server.endpoints[0]!.port;
    // Other brokers reach this one on its inter-broker listener; clients on the listener they use.
    const interBroker = server.endpoints[config.listeners.indexOf(interBrokerListener(config.listeners))]!;
    // This process's identity in registrations and leases: a restarted or duplicate process never passes for this one.
    const instance = `${config.nodeId}:${randomBytes(8).toString('hex')}`;
    let onSuperseded: (holder: string) => void = () => undefined;
    const superseded = new Promise<string>((resolve) => { onSuperseded = resolve; });
    // Leadership calls back into the log, the groups and the transactions only once started (below), when all of them are built.
    const cluster: Leadership = new Leadership(
      backend.cluster,
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
        onAcquire: (u) => log.takeLeadership(u.topic, u.partition),
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
    const log: LogManager = new LogManager(backend.log, config, { leadership: cluster, epochs: backend.cluster });
    await log.refreshTopics();
    await ensureOffsetsTopic(log, config.coordinatorSlots, logger);
    // Group configs (kafka-configs --entity-type groups) over the broker's group.* settings.
    const groupConfigs = new GroupConfigs(backend.groupConfigs, brokerSettings(brokerConfigEntries(config)), systemClock);
    const groups = new GroupCoordinator(backend.groups, systemClock, {
      settings: {
        initialRebalanceDelayMs: config.groupInitialRebalanceDelayMs,
        minSessionTimeoutMs: config.groupMinSessionTimeoutMs,
        maxSessionTimeoutMs: config.groupMaxSessionTimeoutMs,
        maxSize: config.groupMaxSize,
        offsetsRetentionMs: config.offsetsRetentionMinutes * 60_000,
        offsetsRetentionCheckIntervalMs: config.offsetsRetentionCheckIntervalMs,
        offsetMetadataMaxBytes: config.offsetMetadataMaxBytes,
        consumerSessionTimeoutMs: config.groupConsumerSessionTimeoutMs,
        consumerHeartbeatIntervalMs: config.groupConsumerHeartbeatIntervalMs,
        consumerAssignors: consumerAssignors(config.groupConsumerAssignors),
        consumerMaxSize: config.groupConsumerMaxSize,
        consumerMigrationPolicy: migrationPolicy(config.groupConsumerMigrationPolicy),
      },
      topics: async () => (await log.allTopics()).map((t) => ({ name: t.name, id: t.id, partitions: t.partitions })),
      logger,
      isLocal: (g) => isLocalCoordinator(services, g),
      coordinatorEpoch: (g) => cluster.coordinatorEpoch(cluster.coordinatorSlot(g)),
      mirror: new OffsetsTopicMirror(log, (g) => cluster.coordinatorSlot(g), logger),
      txnOffsets: { store: backend.groups, slotOf: (g) => cluster.coordinatorSlot(g) },
      groupConfigs,
    });
    // The transaction coordinator: transactional ids share the group-coordinator slots (and their epochs).
    const brokerClient = new KafkaBrokerClient();
    cleanup.push(() => brokerClient.close());
    const addressOf = (nodeId: number) => cluster.liveBrokers().find((x) => x.nodeId === nodeId) ?? null;
    const markerWriter = new KafkaMarkerWriter({
      nodeId: config.nodeId, leaderOf: (tp) => cluster.leaderOf(leaseUnitOf(tp)), addressOf, local: (tp, m) => writeMarkerHere({ log, txn, logger }, tp.topic, tp.partition, m),
    }, brokerClient, logger);
    const transactions = new TransactionCoordinator(backend.txns, markerWriter, systemClock, {
      settings: { maxTimeoutMs: config.transactionMaxTimeoutMs, abortTimedOutIntervalMs: config.transactionAbortTimedOutIntervalMs },
      logger,
      slotOf: (id) => cluster.coordinatorSlot(id),
      epochOf: (slot) => cluster.coordinatorEpoch(slot),
      ownedSlots: () => Array.from({ length: config.coordinatorSlots }, (_, s) => s).filter((s) => cluster.coordinatorEpoch(s) !== null),
      offsetsPartitionOf: (g) => ({ topic: OFFSETS_TOPIC, partition: cluster.coordinatorSlot(g) }),
    });
    const txn: CoordinatorTransactionServices = new CoordinatorTransactionServices(transactions, groups, brokerClient, (id) => coordinatorFor(services, id));
    const acls = new AclService(config, backend.acls, logger);
    const fetchSessions = new FetchSessionCache(config.maxIncrementalFetchSessionCacheSlots);
    const quotas = new QuotaService({ windowNum: Math.max(2, config.quotaWindowNum), windowMs: Math.max(1, config.quotaWindowSizeSeconds) * 1000 }, backend.quotas, logger);
    // The lake as the remote tier of tiered topics (remote.storage.enable=true): opened here, read on first use.
    const lakeMetrics = new LakeMetrics(metrics);
    const remoteLog = config.remoteLogStorageSystemEnable
      ? openLakeRemoteLog({
        lake: lakeUrl(config.lake, config.dataDir),
        ...(config.s3Endpoint ? { s3Endpoint: config.s3Endpoint } : {}),
        s3ForcePathStyle: s3PathStyle(config.s3ForcePathStyle, config.s3Endpoint),
        ...(config.s3Region ? { s3Region: config.s3Region } : {}),
        cacheBytes: config.remoteLogReaderCacheSizeBytes,
        refreshIntervalMs: config.remoteLogMetadataRefreshIntervalMs,
        logger,
        observe: (e) => lakeMetrics.observe(e),
      })
      : undefined;
    if (remoteLog) cleanup.push(() => remoteLog.close());
    const schemaIds = new CachedSchemaIds(backend.schemas);
    const shareSettings = {
      sessionTimeoutMs: config.groupShareSessionTimeoutMs,
      heartbeatIntervalMs: config.groupShareHeartbeatIntervalMs,
      recordLockDurationMs: config.groupShareRecordLockDurationMs,
      deliveryCountLimit: config.groupShareDeliveryCountLimit,
      partitionMaxRecordLocks: config.groupSharePartitionMaxRecordLocks,
      maxSize: config.groupShareMaxSize,
      maxShareSessions: config.groupShareMaxShareSessions,
    };
    const shares = new ShareService(backend.shares, systemClock, shareSettings, async () => (await log.allTopics()).map((t) => ({ name: t.name, id: t.id, partitions: t.partitions })), {
      logger,
      configs: groupConfigBacked(groupConfigs, shareSettings),
      coordinatorEpoch: (g) => cluster.coordinatorEpoch(cluster.coordinatorSlot(g)),
    });
    cleanup.push(() => shares.stop());
    const services: BrokerServices = { config, clusterId, log, logger, cluster, groups, groupConfigs, shares, transactions, txn, fetchSessions, quotas, acls, credentials: backend.credentials, schemaIds, ...(remoteLog ? { remoteLog } : {}) };
    // Claims the node id first: a second live process with this node.id fails here (NodeIdInUseError).
    await cluster.start();
    cleanup.push(() => cluster.stop());
    await quotas.start();
    cleanup.push(() => quotas.stop());
    // The ACLs are in force before the first request is served.
    await acls.start();
    cleanup.push(() => acls.stop());
    server.setDispatcher(new Dispatcher(buildHandlers(), services, new RequestMetrics(metrics)));
    // Serving stops first on the way down: registered again here, the listeners close ahead of the leadership
    // (a request served after cluster.stop() could claim a lease again); the registration above covers a start that fails before this.
    cleanup.push(() => server.close());
    const stopSampler = httpSettings ? observeBroker(metrics, { services, redis: backend, connections: () => server.connections(), redisMemory: () => redisMemory(backend.log) }) : () => undefined;
    cleanup.push(stopSampler);
    if (httpSettings && remoteLog) observeTiers(metrics, services, () => remoteLog.stats().cacheBytes);
    if (httpSettings) {
      // The web console (read-only) shares the endpoint, its authentication and TLS, and obeys the Kafka port's ACLs.
      const access = consoleAccessOf(acls, httpSettings, config);
      const routes = consoleRoutes(config, () => consoleData({ store: backend.log, groups: backend.groups, liveGroupState: (g) => { const lg = groups.loadedGroup(g); return lg?.modern?.state ?? lg?.state; } }), access);
      const http = await startHttp(httpSettings, { ready: async () => (await backend.ping()) === 'PONG', registry: metrics, routes })
        .catch((e: unknown) => { throw listenError(e, httpSettings.host, httpSettings.port, 'http.port'); }); // e.g. the port is taken
      cleanup.push(() => http.close());
      logger.info('http endpoint listening', http.describe);
    }
    if (registryOn.length) {
      // The Schema Registry: stored in Redis, so every broker serves the same subjects and ids.
      const registry = await startSchemaRegistry(registryOn, {
        registry: new SchemaRegistry(backend.schemas), acls: acls.enabled ? acls : null, bearerPrincipal: config.schemaRegistryAuthBearerPrincipal,
        onServerError: (e, method, url) => logger.warn('schema registry request failed', { method, url, error: e instanceof Error ? e.message : String(e) }),
      })
        .catch((e: unknown) => { throw listenError(e, registryOn[0]!.settings.host, registryOn[0]!.settings.port, 'schema.registry.listeners'); });
      cleanup.push(() => registry.close());
      logger.info('schema registry listening', { listeners: registry.urls.join(',') });
    }
    const retention = new RetentionTask(log, logger, config.retentionCheckIntervalMs, remoteLog ?? null);
    retention.start();
    cleanup.push(() => retention.stop());
    if (config.logCleanerEnable) {
      const cleaner = new CleanerTask(log, logger, config);
      cleaner.start();
      cleanup.push(() => cleaner.stop());
    }
    groups.start();
    cleanup.push(() => groups.stop());
    transactions.start();
    cleanup.push(() => transactions.stop());
    if (interBrokerListener(config.listeners).securityProtocol !== 'PLAINTEXT') {
      logger.warn('no PLAINTEXT listener: other brokers cannot send this one transaction markers (they speak PLAINTEXT only)', { listener: interBroker.listener });
    }
    logger.info('runnel broker listening', { host: config.host, port, listeners: config.listeners.map((l, i) => `${l.name}://${l.host}:${server.ports[i]}`).join(','), redis: backend.url.replace(/\/\/[^@]*@/, '//***@'), nodeId: config.nodeId, instance, clusterId });
    const stop = (): Promise<void> => cleanup.run();
    return {
      port,
      services,
      stop,
      superseded: superseded.then(async (holder) => {
        await stop();
        return holder;
      }),
    };
  } catch (e) {
    await cleanup.run().catch(() => undefined);
    throw e;
  }
}

/**
 * Creates `__consumer_offsets` if missing. Its partition s is coordinator
 * slot s, so a stored count other than offsets.topic.num.partitions (the
 * setting changed after the topic was created; Kafka never resizes it either)
 * leaves the slots past the count unmirrored: said once here.
 */
async function ensureOffsetsTopic(log: LogManager, slots: number, logger: Logger): Promise<void> {
  const t = await log.ensureOffsetsTopic(slots);
  if (t.partitions !== slots) {
    logger.warn('__consumer_offsets has a partition count other than offsets.topic.num.partitions; groups of slots past it are not mirrored to it', { partitions: t.partitions, slots });
  }
}

/** Every topic-partition plus every coordinator slot is a unit of leadership (`__consumer_offsets` partitions ride on their slots). */
async function leaseUnits(log: LogManager, slots: number): Promise<LeaseUnit[]> {
  const units = await log.partitionUnits();
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

