// The Redis behind one broker: the server it uses (started here, embedded,
// when redis.url is empty), the connections to it, and every store built
// over them. The rest of the broker asks this object for stores and never
// sees a Redis client or a key name.
import type { ConnectionOptions } from 'node:tls';
import type { BrokerConfig } from '../config/config.js';
import type { Logger } from '../../../common/logger/logger.js';
import { connectWithRetry } from '../../../common/redis/connect-retry.js';
import { startEmbeddedRedis } from './embedded-redis.js';
import { checkRedisServer } from './server-checks.js';
import { RedisLogStore } from './redis-log-store.js';
import { RedisClusterStore } from './redis-cluster-store.js';
import { RedisGroupStore } from './redis-group-store.js';
import { RedisShareStore } from './redis-share-store.js';
import { RedisTxnStore } from './redis-txn-store.js';
import { RedisAclStore } from './redis-acl-store.js';
import { RedisCredentialStore } from './redis-credential-store.js';
import { RedisQuotaStore } from './redis-quota-store.js';
import { RedisSchemaStore } from './redis-schema-store.js';
import { RedisGroupConfigStore } from './redis-group-config-store.js';

/** Where the backend registers what it opened; the broker's cleanup stack. */
export interface Closes {
  push(close: () => unknown): void;
}

export class RedisBackend {
  /** Registrations, leadership leases and leader epochs. */
  readonly cluster: RedisClusterStore;
  readonly groups: RedisGroupStore;
  /** Share-partition state of share groups (KIP-932). */
  readonly shares: RedisShareStore;
  /** Group configs (kafka-configs --entity-type groups). */
  readonly groupConfigs: RedisGroupConfigStore;
  /** Transactional ids' state; producer ids come from the log store's counter. */
  readonly txns: RedisTxnStore;
  readonly acls: RedisAclStore;
  readonly credentials: RedisCredentialStore;
  readonly quotas: RedisQuotaStore;
  /** The Schema Registry's subjects, schemas and settings. */
  readonly schemas: RedisSchemaStore;

  private constructor(
    /** The server's URL (the embedded server's when redis.url is empty). */
    readonly url: string,
    /** The log (topics, partitions, producer ids); it holds the connections the other stores share. */
    readonly log: RedisLogStore,
    prefix: string,
  ) {
    const redis = log.redis;
    this.cluster = new RedisClusterStore(redis, log.keyNames);
    this.groups = new RedisGroupStore(redis, prefix);
    this.shares = new RedisShareStore(redis, prefix);
    this.groupConfigs = new RedisGroupConfigStore(redis, prefix);
    this.txns = new RedisTxnStore(redis, prefix, () => log.nextProducerId());
    this.acls = new RedisAclStore(redis, prefix);
    this.credentials = new RedisCredentialStore(redis, prefix);
    this.quotas = new RedisQuotaStore(redis, prefix);
    this.schemas = new RedisSchemaStore(redis, prefix);
  }

  /**
   * Starts the embedded server when no redis.url is set, connects (refused or
   * failed attempts retried until redis.connection.timeout.ms has passed, each
   * attempt bounded by it) and checks the server's settings. What it opens is
   * registered on `closes` as it is opened: the embedded server first, then
   * the connections, so they close in the other order.
   */
  static async open(config: BrokerConfig, tls: ConnectionOptions | undefined, logger: Logger, closes: Closes): Promise<RedisBackend> {
    let url = config.redisUrl;
    if (!url) {
      const embedded = await startEmbeddedRedis(config.dataDir, logger);
      closes.push(() => embedded.stop());
      url = embedded.url;
    }
    const connectTimeoutMs = Math.max(1, config.redisConnectionTimeoutMs);
    const store = new RedisLogStore(url, config.keyPrefix, tls ? { tls, connectTimeoutMs } : { connectTimeoutMs });
    await connectWithRetry(() => store.connect(), {
      url, timeoutMs: connectTimeoutMs, setting: 'redis.connection.timeout.ms', urlSetting: '--redis / redis.url', tlsSettings: 'redis.tls.*', logger,
      cleanup: () => store.close(),
    });
    closes.push(() => store.close());
    await checkRedisServer(store.redis, store.keyNames, { waitAof: config.acksAllWaitAof, allowEviction: config.redisAllowEviction }, logger);
    return new RedisBackend(url, store, config.keyPrefix);
  }

  /** PING's answer ('PONG' when the server is up); the readiness check and the round-trip sampler. */
  async ping(): Promise<string> {
    return this.log.redis.ping();
  }
}
