// One way to open Redis for every Runnel process (broker, archiver, CLI):
// a plain client for a single node (or a Redis Enterprise proxy endpoint), an
// ioredis Cluster client when the server says it is a cluster. Cluster mode is
// detected from the server (`INFO cluster` -> `cluster_enabled:1`), never
// configured. Credentials (ACL user or password) and TLS apply to every node.
import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { parseRedisEndpoints, type RedisEndpoints } from './endpoints.js';
import { isTlsConfigError } from './tls-options.js';
import { GuardedConnector } from './guarded-connector.js';

export type RedisClient = Redis | Cluster;

export interface RedisConnectOptions {
  /** TLS options for rediss:// (CA, client certificate...); ignored for redis://. */
  tls?: ConnectionOptions;
  /** Per-connection ioredis options (retry, offline queue, pipelining...). */
  redis?: RedisOptions;
  /** Cluster-client options, in cluster mode only. */
  cluster?: Partial<ClusterOptions>;
}

/** The connection settings shared by every node: credentials, database, TLS. */
export function nodeOptions(ep: RedisEndpoints, o: RedisConnectOptions = {}): RedisOptions {
  const base: RedisOptions = { ...o.redis };
  if (ep.username) base.username = ep.username;
  if (ep.password) base.password = ep.password;
  if (ep.tls) {
    base.tls = o.tls ?? {};
    base.Connector = GuardedConnector; // a second 'error' of a TLS socket must not end the process
  }
  return base;
}

/**
 * Connects a client and, when that fails, rejects with the reason: ioredis
 * rejects connect() with only "Connection is closed.", while the cause (a
 * refused certificate, WRONGPASS, ECONNREFUSED) arrives as an `error` event.
 * A TLS failure wins over later errors, since retrying cannot heal it. With
 * `timeoutMs`, a client that never becomes ready (a cluster whose nodes
 * announce an unreachable address) fails after that long, naming the last
 * error seen.
 */
export async function connectClient(client: RedisClient, timeoutMs?: number): Promise<void> {
  let reason: Error | null = null;
  let last: Error | null = null;
  const onError = (e: Error): void => {
    last = e;
    if (!reason || (isTlsConfigError(e) && !isTlsConfigError(reason))) reason = e;
  };
  client.on('error', onError);
  let timer: NodeJS.Timeout | undefined;
  let onReady: (() => void) | undefined;
  try {
    // A cluster client whose ready check finds cluster_state:fail (a cluster
    // created or restarted less than about 2 s ago, before its primaries turn
    // writable) reconnects and later becomes ready, but the promise of its
    // first connect() never settles (ioredis 5): 'ready' is what says so.
    const ready = new Promise<void>((resolve, reject) => {
      onReady = resolve;
      client.once('ready', onReady);
      client.connect().then(resolve, (e: unknown) => reject(reason ?? e));
    });
    if (timeoutMs === undefined) return await ready;
    await Promise.race([ready, new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`redis${isCluster(client) ? ' cluster' : ''} not ready within ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ''} (check that every node is reachable at the address it announces)`)), timeoutMs);
    })]);
  } finally {
    clearTimeout(timer);
    client.off('error', onError);
    if (onReady) client.off('ready', onReady);
  }
}

/**
 * Asks the seeds in turn whether Redis runs in cluster mode. A server that
 * refuses `INFO cluster` (a proxy that hides cluster commands) is a single
 * endpoint. Throws the last connection error when no seed answers. Each seed
 * gets `timeoutMs` to accept the connection.
 */
export async function probeClusterMode(ep: RedisEndpoints, o: RedisConnectOptions = {}, timeoutMs = 5_000): Promise<boolean> {
  if (ep.socketPath) return false;
  let last: unknown = new Error('no seed node');
  for (const seed of ep.seeds) {
    const r = new Redis({
      ...nodeOptions(ep, o),
      host: seed.host,
      port: seed.port,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      connectTimeout: timeoutMs,
    });
    r.on('error', () => undefined);
    try {
      await connectClient(r);
      try {
        return /cluster_enabled:1/.test(await r.info('cluster'));
      } catch (e) {
        // The server refused the command (a proxy that hides cluster commands): not a cluster endpoint.
        if (e instanceof Error && /^(ERR|NOPERM)\b/.test(e.message)) return false;
        throw e;
      }
    } catch (e) {
      last = e;
    } finally {
      r.disconnect();
    }
  }
  throw last;
}

/** A client for the endpoints: `cluster` from probeClusterMode. Not connected (lazyConnect): call connect(). */
export function createRedisClient(ep: RedisEndpoints, cluster: boolean, o: RedisConnectOptions = {}): RedisClient {
  if (!cluster) {
    const seed = ep.seeds[0]!;
    return new Redis({
      ...nodeOptions(ep, o),
      ...(ep.socketPath ? { path: ep.socketPath } : { host: seed.host, port: seed.port }),
      ...(ep.db ? { db: ep.db } : {}),
      lazyConnect: true,
    });
  }
  if (ep.db) throw new Error('Redis Cluster has only database 0: remove the /<db> from redis.url');
  return new Cluster(ep.seeds.map((s) => ({ host: s.host, port: s.port })), {
    lazyConnect: true,
    redisOptions: nodeOptions(ep, o),
    // A slot map change (failover, resharding) is picked up within 5 s even
    // without a MOVED; the append path refreshes at once on a topology error,
    // and topic creation before it places partitions.
    slotsRefreshInterval: 5_000,
    ...o.cluster,
  });
}

/**
 * Parses the URL list, detects the mode, and returns a connected client.
 * `timeoutMs` bounds the attempt: each seed's probe (at most 5 s) and the
 * client becoming ready (a cluster whose nodes cannot all be reached).
 */
export async function openRedis(spec: string, o: RedisConnectOptions = {}, timeoutMs?: number): Promise<{ client: RedisClient; cluster: boolean; endpoints: RedisEndpoints }> {
  const endpoints = parseRedisEndpoints(spec);
  const cluster = await probeClusterMode(endpoints, o, Math.min(5_000, timeoutMs ?? 5_000));
  const client = createRedisClient(endpoints, cluster, o);
  client.on('error', () => undefined);
  try {
    await connectClient(client, timeoutMs);
  } catch (e) {
    client.disconnect();
    throw e;
  }
  return { client, cluster, endpoints };
}

export const isCluster = (c: RedisClient): c is Cluster => c instanceof Cluster;
