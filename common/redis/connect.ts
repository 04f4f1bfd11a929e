// One way to open Redis for every Runnel process (broker, archiver, CLI):
// a plain client for a single node (or a Redis Enterprise proxy endpoint), an
// ioredis Cluster client when the server says it is a cluster. Cluster mode is
// detected from the server (`INFO cluster` -> `cluster_enabled:1`), never
// configured. Credentials (ACL user or password) and TLS apply to every node.
import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { parseRedisEndpoints, type RedisEndpoints } from './endpoints.js';

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
  if (ep.tls) base.tls = o.tls ?? {};
  return base;
}

/**
 * Asks the seeds in turn whether Redis runs in cluster mode. A server that
 * refuses `INFO cluster` (a proxy that hides cluster commands) is a single
 * endpoint. Throws the last connection error when no seed answers.
 */
export async function probeClusterMode(ep: RedisEndpoints, o: RedisConnectOptions = {}): Promise<boolean> {
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
      connectTimeout: 5_000,
    });
    // ioredis rejects connect() with only "Connection is closed."; the reason (a refused certificate, WRONGPASS) comes as an event.
    let reason: Error | null = null;
    r.on('error', (e: Error) => { reason ??= e; });
    try {
      await r.connect().catch((e: unknown) => { throw reason ?? e; });
      try {
        return /cluster_enabled:1/.test(await r.info('cluster'));
      } catch (e) {
        // An error reply (the server answered): not a cluster endpoint.
        if (e instanceof Error && /^(ERR|NOPERM|WRONGPASS)\b/.test(e.message) && !/WRONGPASS|NOAUTH/.test(e.message)) return false;
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

/** Parses the URL list, detects the mode, and returns a connected client. */
export async function openRedis(spec: string, o: RedisConnectOptions = {}): Promise<{ client: RedisClient; cluster: boolean; endpoints: RedisEndpoints }> {
  const endpoints = parseRedisEndpoints(spec);
  const cluster = await probeClusterMode(endpoints, o);
  const client = createRedisClient(endpoints, cluster, o);
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (e) {
    client.disconnect();
    throw e;
  }
  return { client, cluster, endpoints };
}

export const isCluster = (c: RedisClient): c is Cluster => c instanceof Cluster;
