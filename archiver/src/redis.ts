// The archiver's Redis client: one node (or a Redis Enterprise proxy endpoint),
// or a Redis Cluster, detected from the server (common/redis/connect.ts).
// RUNNEL_REDIS_URL may be a seed list; its user and password (ACL) and the
// RUNNEL_REDIS_TLS_* settings apply to every node.
import type { ConnectionOptions } from 'node:tls';
import { Redis } from 'ioredis';
import { RunnelError } from '../../broker/src/errors.js';
import { nodeOptions, openRedis, type RedisClient } from '../../common/redis/connect.js';
import { parseRedisEndpoints, RedisUrlError } from '../../common/redis/endpoints.js';
import { RedisTlsConfigError, isTlsConfigError, redisTlsOptions } from '../../common/redis/tls-options.js';
import { redisTlsSettings, type ArchiverConfig } from './config.js';
import type { Logger } from './log.js';

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
    });
    log.info('redis connected', { mode: cluster ? 'cluster' : 'single node', tls: Boolean(tls) });
    return { client, cluster };
  } catch (e) {
    if (e instanceof RedisUrlError) throw new RunnelError('CONFIG_INVALID', `RUNNEL_REDIS_URL: ${e.message}`, { cause: e });
    const cause = await connectFailure(url, tls, e);
    const msg = (cause instanceof Error ? cause.message : String(cause)).trim();
    if (isTlsConfigError(cause)) {
      throw new RunnelError('CONFIG_INVALID', `redis TLS handshake failed: ${msg} (check RUNNEL_REDIS_URL and RUNNEL_REDIS_TLS_*)`, { cause });
    }
    if (/^(WRONGPASS|NOAUTH|NOPERM)\b/.test(msg)) {
      throw new RunnelError('CONFIG_INVALID', `redis refused the credentials: ${msg} (check the user and password in RUNNEL_REDIS_URL)`, { cause });
    }
    throw cause;
  }
}

/**
 * Why Redis could not be opened. A failed handshake or AUTH reaches ioredis's
 * connect() only as "Connection is closed."; the reason is in the client's
 * first `error` event, so one more attempt on the first seed listens for it.
 */
async function connectFailure(url: string, tls: ConnectionOptions | undefined, e: unknown): Promise<unknown> {
  if (!(e instanceof Error) || !/Connection is closed/i.test(e.message)) return e;
  const ep = parseRedisEndpoints(url);
  const seed = ep.seeds[0]!;
  let first: unknown = null;
  const r = new Redis({
    ...nodeOptions(ep, { tls }),
    ...(ep.socketPath ? { path: ep.socketPath } : { host: seed.host, port: seed.port }),
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 5_000,
  });
  r.on('error', (err: unknown) => {
    first ??= err;
  });
  try {
    await r.connect();
  } catch {
    /* the reason is in `first` */
  } finally {
    r.disconnect();
  }
  return first ?? e;
}
