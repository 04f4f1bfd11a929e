// The archiver's Redis client: one node (or a Redis Enterprise proxy endpoint),
// or a Redis Cluster, detected from the server (common/redis/connect.ts).
// RUNNEL_REDIS_URL may be a seed list; its user and password (ACL) and the
// RUNNEL_REDIS_TLS_* settings apply to every node.
import type { ConnectionOptions } from 'node:tls';
import { RunnelError } from '../../common/errors.js';
import { openRedis, type RedisClient } from '../../common/redis/connect.js';
import { RedisUrlError } from '../../common/redis/endpoints.js';
import { RedisTlsConfigError, isTlsConfigError, redisTlsOptions, redisTlsSettings } from '../../common/redis/tls-options.js';
import type { ArchiverConfig } from './config.js';
import type { Logger } from '../../common/logger/logger.js';

/**
 * Connects. Settings that cannot work (a bad URL, redis.tls.* without
 * rediss://, an unreadable PEM file, a certificate either side refuses, a
 * refused user or password) are RN3001 configuration errors; Redis simply
 * being away is thrown as is.
 */
export async function openArchiverRedis(config: ArchiverConfig, log: Logger): Promise<{ client: RedisClient; cluster: boolean }> {
  const url = config.redisUrl;
  let tls: ConnectionOptions | undefined;
  try {
    tls = redisTlsOptions(url, redisTlsSettings(config));
  } catch (e) {
    if (e instanceof RedisTlsConfigError) throw new RunnelError('CONFIG_INVALID', e.message, { cause: e });
    throw e;
  }
  if (config.redisTlsInsecureSkipVerify) log.warn('RUNNEL_REDIS_TLS_INSECURE_SKIP_VERIFY=true: the Redis server certificate is not checked');
  try {
    const { client, cluster } = await openRedis(url, {
      tls,
      // Single node: commands issued in the same tick go out as one pipeline.
      redis: { maxRetriesPerRequest: 3, enableAutoPipelining: true },
      // Cluster: no auto-pipelining. ioredis batches auto-pipelined commands per node
      // but follows MOVED/ASK per batch, not per command, so commands fail while a
      // slot moves (ioredis issue #2075); sent one by one (still without waiting for
      // each other's replies), each command follows its own redirection.
      cluster: { enableAutoPipelining: false },
    }, config.redisConnectionTimeoutMs);
    log.info('redis connected', { mode: cluster ? 'cluster' : 'single node', tls: Boolean(tls) });
    return { client, cluster };
  } catch (e) {
    if (e instanceof RedisUrlError) throw new RunnelError('CONFIG_INVALID', `RUNNEL_REDIS_URL: ${e.message}`, { cause: e });
    // openRedis rejects with the reason itself (connectClient): a refused certificate, WRONGPASS, ECONNREFUSED.
    const msg = (e instanceof Error ? e.message : String(e)).trim();
    if (isTlsConfigError(e)) {
      throw new RunnelError('CONFIG_INVALID', `redis TLS handshake failed: ${msg} (check RUNNEL_REDIS_URL and RUNNEL_REDIS_TLS_*)`, { cause: e });
    }
    if (/^(WRONGPASS|NOAUTH|NOPERM)\b/.test(msg)) {
      throw new RunnelError('CONFIG_INVALID', `redis refused the credentials: ${msg} (check the user and password in RUNNEL_REDIS_URL)`, { cause: e });
    }
    throw e;
  }
}
