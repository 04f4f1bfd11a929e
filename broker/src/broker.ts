// Wires one broker process together: store, log manager, dispatcher, server, retention.
import type { BrokerConfig } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { RedisLogStore } from './storage/redis/redis-log-store.js';
import { LogManager } from './log/log-manager.js';
import { Dispatcher } from './dispatch.js';
import { buildHandlers } from './handlers/registry.js';
import { KafkaServer } from './server/server.js';
import { startEmbeddedRedis, type EmbeddedRedis } from './embedded-redis.js';
import { RetentionTask } from './log/retention.js';
import type { BrokerServices } from './handlers/types.js';

export interface RunningBroker {
  port: number;
  services: BrokerServices;
  stop(): Promise<void>;
}

export async function startBroker(config: BrokerConfig, logger: Logger = createLogger(config.logLevel, 'broker')): Promise<RunningBroker> {
  let embedded: EmbeddedRedis | null = null;
  let url = config.redisUrl;
  if (!url) {
    embedded = await startEmbeddedRedis(config.dataDir, logger);
    url = embedded.url;
  }
  const store = new RedisLogStore(url, config.keyPrefix);
  await connectWithRetry(store, logger);
  const clusterId = await store.clusterId();
  const log = new LogManager(store, config);
  await log.refreshTopics();
  const services: BrokerServices = { config, clusterId, log, store, logger };
  const dispatcher = new Dispatcher(buildHandlers(), services);
  const server = new KafkaServer(dispatcher, logger, config.socketRequestMaxBytes);
  const port = await server.listen(config.host, config.port);
  if (config.advertisedPort === 0 || config.port === 0) config.advertisedPort = port;
  const retention = new RetentionTask(log, logger, config.retentionCheckIntervalMs);
  retention.start();
  logger.info('runnel broker listening', { host: config.host, port, redis: url.replace(/\/\/[^@]*@/, '//***@'), nodeId: config.nodeId, clusterId });
  return {
    port,
    services,
    async stop() {
      retention.stop();
      await server.close();
      await store.close();
      await embedded?.stop();
    },
  };
}

async function connectWithRetry(store: RedisLogStore, logger: Logger): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await store.connect();
      return;
    } catch (e) {
      if (attempt >= 50) throw e;
      logger.warn('waiting for redis', { attempt, err: e instanceof Error ? e.message : String(e) });
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
