// Leases in Redis, for the broker (partition and coordinator-slot leadership)
// and the archiver (one lease per archived partition): a string key holding
// the holder's id with a TTL. Taken with `SET key <holder> NX PX <ttl>`,
// renewed with compare-and-PEXPIRE, released with compare-and-DEL (the .lua
// scripts beside this file), so only the holder extends or ends its lease.
// Every command touches one key: Redis Cluster safe.
import type { RedisClient } from '../redis/connect.js';
import { luaSource } from '../redis/lua.js';

const here = new URL('./', import.meta.url);
const RENEW_LUA = luaSource(here, 'renew-lease');
const RELEASE_LUA = luaSource(here, 'release-lease');

interface LeaseScripts {
  renewLease(key: string, holder: string, ttlMs: string): Promise<number>;
  releaseLease(key: string, holder: string): Promise<number>;
}

/** Clients the scripts are defined on (EVALSHA, loaded on first use). */
const defined = new WeakSet<object>();

function scripts(redis: RedisClient): LeaseScripts {
  if (!defined.has(redis)) {
    redis.defineCommand('renewLease', { numberOfKeys: 1, lua: RENEW_LUA });
    redis.defineCommand('releaseLease', { numberOfKeys: 1, lua: RELEASE_LUA });
    defined.add(redis);
  }
  return redis as unknown as LeaseScripts;
}

/** Takes the lease if nobody holds it; true when taken by this call. */
export async function takeLease(redis: RedisClient, key: string, holder: string, ttlMs: number): Promise<boolean> {
  return (await redis.set(key, holder, 'PX', ttlMs, 'NX')) === 'OK';
}

/** Extends the lease to ttlMs from now if `holder` still holds it; false when it is lost. */
export async function renewLease(redis: RedisClient, key: string, holder: string, ttlMs: number): Promise<boolean> {
  return Number(await scripts(redis).renewLease(key, holder, String(ttlMs))) === 1;
}

/** Ends the lease if `holder` holds it; false when it was not held by `holder`. */
export async function releaseLease(redis: RedisClient, key: string, holder: string): Promise<boolean> {
  return Number(await scripts(redis).releaseLease(key, holder)) === 1;
}
