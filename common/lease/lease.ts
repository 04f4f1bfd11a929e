// Leases in Redis, for the broker (partition and coordinator-slot leadership)
// and the archiver (one lease per archived partition): a string key holding
// the holder's id with a TTL. Taken with `SET key <holder> NX PX <ttl>`,
// renewed with compare-and-PEXPIRE, released with compare-and-DEL (the .lua
// scripts beside this file), so only the holder extends or ends its lease.
// Every command touches one key: Redis Cluster safe.
import { createHash } from 'node:crypto';
import type { RedisClient } from '../redis/connect.js';
import { luaSource } from '../redis/lua.js';

const here = new URL('./', import.meta.url);
const RENEW = script(luaSource(here, 'renew-lease'));
const RELEASE = script(luaSource(here, 'release-lease'));

function script(lua: string): { lua: string; sha: string } {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

/**
 * Runs a one-key script by EVALSHA, and by EVAL when the server does not have
 * it yet (NOSCRIPT), as ioredis's defineCommand does; plain commands, so they
 * go into the client's auto-pipeline like any other.
 */
async function run(redis: RedisClient, s: { lua: string; sha: string }, key: string, ...args: string[]): Promise<number> {
  try {
    return Number(await redis.evalsha(s.sha, 1, key, ...args));
  } catch (e) {
    if (!(e instanceof Error) || !e.message.startsWith('NOSCRIPT')) throw e;
    return Number(await redis.eval(s.lua, 1, key, ...args));
  }
}

/** Takes the lease if nobody holds it; true when taken by this call. */
export async function takeLease(redis: RedisClient, key: string, holder: string, ttlMs: number): Promise<boolean> {
  return (await redis.set(key, holder, 'PX', ttlMs, 'NX')) === 'OK';
}

/** Extends the lease to ttlMs from now if `holder` still holds it; false when it is lost. */
export async function renewLease(redis: RedisClient, key: string, holder: string, ttlMs: number): Promise<boolean> {
  return (await run(redis, RENEW, key, holder, String(ttlMs))) === 1;
}

/** Ends the lease if `holder` holds it; false when it was not held by `holder`. */
export async function releaseLease(redis: RedisClient, key: string, holder: string): Promise<boolean> {
  return (await run(redis, RELEASE, key, holder)) === 1;
}
