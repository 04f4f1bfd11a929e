// Start-up checks of the Redis server under the log. A setting that would
// silently lose acknowledged data, or a durability promise the server cannot
// keep, stops the broker with a clear message instead of surfacing later as
// missing records.
import type { Redis } from 'ioredis';
import { RunnelError } from '../../../common/errors.js';
import type { Logger } from '../../../common/logger/logger.js';
import { isCluster, type RedisClient } from '../../../common/redis/connect.js';
import { KEY_LAYOUT_VERSION, UPGRADABLE_LAYOUTS, type Keys } from './keys.js';

export interface ServerCheckOptions {
  /** redis.acks.all.waitaof: acks=all waits for the primary's AOF fsync. */
  waitAof: boolean;
  /** redis.allow.eviction: start even though maxmemory-policy may evict keys. */
  allowEviction: boolean;
}

export interface RedisServerFacts {
  version: string;
  maxmemoryPolicy: string;
  aofEnabled: boolean;
  appendfsync: string | null;
  save: string | null;
  hasWaitAof: boolean;
  /** stream-node-max-bytes (null when CONFIG GET is refused). */
  streamNodeMaxBytes: number | null;
  /** rdbcompression: yes | no (null when CONFIG GET is refused). */
  rdbCompression: string | null;
  /** auto-aof-rewrite-percentage (null when CONFIG GET is refused; 0 = no automatic rewrite). */
  aofRewritePercentage: number | null;
}

/**
 * stream-node-max-bytes Runnel recommends. A stored batch is one stream entry;
 * under Redis's 4096-byte default every batch larger than that gets a listpack
 * node of its own, which the allocator rounds up (16,889 B for a 15,600 B
 * entry): about 5-10% of the log. With 1 MiB, entries share nodes and a log of
 * 15-record 1 KiB batches costs about 1.02x its record bytes (docs/durability.md "Redis
 * settings", test/integration/storage/stream-node-bytes.test.ts).
 */
export const RECOMMENDED_STREAM_NODE_MAX_BYTES = 1_048_576;

/**
 * auto-aof-rewrite-percentage Runnel recommends. Each rewrite writes the whole
 * dataset again in a forked child; at Redis's 100 a log rewrites about as many
 * bytes as producers write, at 400 a quarter of that, for up to 5x the dataset
 * on disk and 4x of it to replay at a restart (docs/durability.md "Redis settings").
 */
export const RECOMMENDED_AOF_REWRITE_PERCENTAGE = 400;

function infoField(info: string, name: string): string | null {
  const m = new RegExp(`^${name}:(.*)$`, 'm').exec(info);
  return m ? m[1]!.trim() : null;
}

const numberOrNull = (v: string | null): number | null => (v === null || !/^\d+$/.test(v) ? null : Number(v));

/** CONFIG GET may be disabled (managed services): null then. */
async function configGet(redis: Redis, name: string): Promise<string | null> {
  try {
    const r = (await redis.call('CONFIG', 'GET', name)) as string[];
    return r.length >= 2 ? r[1]! : null;
  } catch {
    return null;
  }
}

export async function readServerFacts(redis: Redis): Promise<RedisServerFacts> {
  const info = await redis.info();
  const waitaof = (await redis.call('COMMAND', 'INFO', 'WAITAOF')) as unknown[];
  return {
    version: infoField(info, 'valkey_version') ? `valkey ${infoField(info, 'valkey_version')}` : `redis ${infoField(info, 'redis_version') ?? '?'}`,
    maxmemoryPolicy: infoField(info, 'maxmemory_policy') ?? (await configGet(redis, 'maxmemory-policy')) ?? 'unknown',
    aofEnabled: infoField(info, 'aof_enabled') === '1',
    appendfsync: await configGet(redis, 'appendfsync'),
    save: await configGet(redis, 'save'),
    hasWaitAof: Array.isArray(waitaof) && waitaof[0] !== null && waitaof[0] !== undefined,
    streamNodeMaxBytes: numberOrNull(await configGet(redis, 'stream-node-max-bytes')),
    rdbCompression: await configGet(redis, 'rdbcompression'),
    aofRewritePercentage: numberOrNull(await configGet(redis, 'auto-aof-rewrite-percentage')),
  };
}

/**
 * Throws RunnelError(CONFIG_INVALID) when Runnel must not run on this server
 * as configured. In cluster mode every primary is checked: one evicting or
 * AOF-less shard loses the partitions placed on it.
 */
export async function checkRedisServer(client: RedisClient, keys: Keys, opts: ServerCheckOptions, logger: Logger): Promise<RedisServerFacts> {
  const nodes: Redis[] = isCluster(client) ? client.nodes('master') : [client];
  const all = await Promise.all(nodes.map(readServerFacts));
  for (let i = 0; i < nodes.length; i++) {
    const f = all[i]!;
    const shard = isCluster(client) ? `primary ${nodes[i]!.options.host}:${nodes[i]!.options.port}: ` : '';
    logger.info('redis persistence', {
      ...(shard ? { primary: `${nodes[i]!.options.host}:${nodes[i]!.options.port}` } : {}),
      server: f.version, appendonly: f.aofEnabled ? 'yes' : 'no', appendfsync: f.appendfsync ?? 'unknown', save: f.save ?? 'unknown', maxmemoryPolicy: f.maxmemoryPolicy,
      streamNodeMaxBytes: f.streamNodeMaxBytes ?? 'unknown', rdbCompression: f.rdbCompression ?? 'unknown',
      aofRewritePercentage: f.aofRewritePercentage ?? 'unknown',
    });
    const nodeBytes = f.streamNodeMaxBytes;
    if (nodeBytes !== null && nodeBytes !== 0 && nodeBytes < RECOMMENDED_STREAM_NODE_MAX_BYTES / 4) {
      logger.info(`${shard}redis stream-node-max-bytes is ${nodeBytes}: batches larger than that each take a stream node of their own, about 5-10% more memory than the records; stream-node-max-bytes ${RECOMMENDED_STREAM_NODE_MAX_BYTES} is recommended (docs/durability.md "Redis settings")`);
    }
    if (f.aofEnabled && f.rdbCompression === 'yes') {
      logger.info(`${shard}redis rdbcompression is yes: every AOF rewrite LZF-compresses the whole log again, 3-4x the rewrite's CPU and no smaller for batches that producers compress or values that do not compress; rdbcompression no is recommended unless the values are uncompressed text (docs/durability.md "Redis settings")`);
    }
    const pct = f.aofRewritePercentage;
    if (f.aofEnabled && pct !== null && pct !== 0 && pct < RECOMMENDED_AOF_REWRITE_PERCENTAGE) {
      logger.info(`${shard}redis auto-aof-rewrite-percentage is ${pct}: every time the AOF grows by ${pct}% a forked child writes the whole log again, about ${(100 / pct).toFixed(1)}x what producers write; auto-aof-rewrite-percentage ${RECOMMENDED_AOF_REWRITE_PERCENTAGE} is recommended where the disk holds 5x the dataset (docs/durability.md "Redis settings")`);
    }
    if (!f.aofEnabled) {
      logger.warn(`${shard}redis has appendonly no: a redis-server crash or restart loses every write since the last RDB snapshot (see the guarantees table in docs/durability.md)`);
    }
    if (f.maxmemoryPolicy !== 'noeviction') {
      const why = `${shard}redis maxmemory-policy is ${f.maxmemoryPolicy}: under memory pressure Redis would evict log streams, leases or offsets and silently lose acknowledged data; set maxmemory-policy noeviction`;
      if (!opts.allowEviction) throw new RunnelError('CONFIG_INVALID', `${why} (or start with redis.allow.eviction=true to accept the loss)`);
      logger.warn(`DATA LOSS RISK: ${why}; starting anyway because redis.allow.eviction=true`);
    }
    if (opts.waitAof && !f.hasWaitAof) {
      throw new RunnelError('CONFIG_INVALID', `${shard}redis.acks.all.waitaof=true needs WAITAOF (Redis/Valkey 7.2 or newer); the server is ${f.version}`);
    }
    if (opts.waitAof && !f.aofEnabled) {
      throw new RunnelError('CONFIG_INVALID', `${shard}redis.acks.all.waitaof=true needs the server to run with appendonly yes`);
    }
  }
  await checkKeyLayout(client, keys);
  return all[0]!;
}

/** The key layout is a versioned contract: a store written with another layout is refused, never misread. */
async function checkKeyLayout(redis: RedisClient, keys: Keys): Promise<void> {
  const want = String(KEY_LAYOUT_VERSION);
  let have = await redis.get(keys.layout);
  // Same keys, new optional field: upgrade in place (older brokers then refuse the store).
  if (have !== null && UPGRADABLE_LAYOUTS.includes(have)) {
    await redis.set(keys.layout, want);
    have = want;
  }
  if (have === null) {
    if ((await redis.hlen(keys.topics)) > 0) {
      throw new RunnelError('CONFIG_INVALID', `the Redis keys under prefix "${keys.prefix}" were written by a Runnel before key layout ${want} (docs/redis-keys.md); use a fresh Redis database or another key.prefix`);
    }
    await redis.set(keys.layout, want, 'NX');
    have = await redis.get(keys.layout);
  }
  if (have !== want) {
    throw new RunnelError('CONFIG_INVALID', `the Redis keys under prefix "${keys.prefix}" use key layout ${have}; this broker speaks layout ${want}`);
  }
}
