// Leases in Redis, for the broker (partition and coordinator-slot leadership)
// and the archiver (one lease per archived partition): a string key holding
// the holder's id with a TTL. Taken with `SET key <holder> NX PX <ttl>`,
// renewed with compare-and-PEXPIRE (many at once), released with compare-and-DEL (the .lua
// scripts beside this file), so only the holder extends or ends its lease.
// Every command touches one key, or (renewLeases) keys of one hash slot:
// Redis Cluster safe.
import { createHash } from 'node:crypto';
import { isCluster, type RedisClient } from '../redis/connect.js';
import { luaSource } from '../redis/lua.js';
import { slotChunks } from '../redis/slot-chunks.js';

const here = new URL('./', import.meta.url);
const RELEASE = script(luaSource(here, 'release-lease'));
const RENEW_MANY = script(luaSource(here, 'renew-leases'));

/** Keys per renew-leases call: bounds how long one script holds the server (about 1 µs per key). */
export const RENEW_BATCH_KEYS = 256;

function script(lua: string): { lua: string; sha: string } {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

/**
 * Runs a one-key script by EVALSHA, and by EVAL when the server does not have
 * it yet (NOSCRIPT), as ioredis's defineCommand does; plain commands, so they
 * go into the client's auto-pipeline like any other.
 */
async function run(redis: RedisClient, s: { lua: string; sha: string }, key: string, ...args: string[]): Promise<number> {
  return Number(await runMany(redis, s, [key], args));
}

async function runMany(redis: RedisClient, s: { lua: string; sha: string }, keys: string[], args: string[]): Promise<unknown> {
  try {
    return await redis.evalsha(s.sha, keys.length, ...keys, ...args);
  } catch (e) {
    if (!(e instanceof Error) || !e.message.startsWith('NOSCRIPT')) throw e;
    return redis.eval(s.lua, keys.length, ...keys, ...args);
  }
}

/** Takes the lease if nobody holds it; true when taken by this call. */
export async function takeLease(redis: RedisClient, key: string, holder: string, ttlMs: number): Promise<boolean> {
  return (await redis.set(key, holder, 'PX', ttlMs, 'NX')) === 'OK';
}

/** Ends the lease if `holder` holds it; false when it was not held by `holder`. */
export async function releaseLease(redis: RedisClient, key: string, holder: string): Promise<boolean> {
  return (await run(redis, RELEASE, key, holder)) === 1;
}

/**
 * Extends each lease to ttlMs from now if `holder` still holds it (false when
 * it is lost), for many keys of one holder, in as few calls as the server
 * allows: RENEW_BATCH_KEYS keys per script call on a single node, and per
 * hash slot on a Redis Cluster. Returns, in the order given, whether each
 * lease was renewed; a failed call rejects, or with `failedAsLost` counts its
 * keys as not renewed.
 */
export async function renewLeases(
  redis: RedisClient, keys: string[], holder: string, ttlMs: number,
  o: { perSlot?: boolean; failedAsLost?: boolean } = {},
): Promise<boolean[]> {
  const out = new Array<boolean>(keys.length).fill(false);
  const calls: Promise<void>[] = [];
  // perSlot: the caller knows it talks to a cluster (default: the client's kind).
  for (const chunk of slotChunks(keys.length, (i) => keys[i]!, o.perSlot ?? isCluster(redis), RENEW_BATCH_KEYS)) {
    const call = runMany(redis, RENEW_MANY, chunk.map((i) => keys[i]!), [holder, String(ttlMs)]).then((r) => {
      const flags = r as number[];
      chunk.forEach((i, j) => { out[i] = Number(flags[j]) === 1; });
    });
    // failedAsLost: a call that fails (its shard away) reports its keys as lost and the others still count.
    calls.push(o.failedAsLost ? call.catch(() => undefined) : call);
  }
  await Promise.all(calls);
  return out;
}
