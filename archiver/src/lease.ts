// Partition leases and archiver membership.
//
// Membership: sorted set `rn:archivers`, member = archiver id, score = expiry (ms).
// Assignment: rendezvous hashing of `<topic>/<partition>` over live members
// (common/rendezvous.ts), so archivers split partitions evenly and a dead one's
// share moves to the others.
// Lease: `SET rn:p:{<topic>/<p>}:archiver-lease <id> NX PX <ttl>`, renewed every ttl/3
// with a compare-and-pexpire script, released with compare-and-delete
// (common/lease/lease.ts, the broker's lease scripts too). The lease
// only avoids wasted work: exactly-once comes from the Delta txn check at commit.
//
// Redis Cluster: every command and script here touches one key (the MULTI of
// the heartbeat only `rn:archivers`), so each runs on the shard of its key;
// renewals are batched per hash slot (one key each, with per-partition tags).
import { releaseLease, renewLeases, takeLease } from '../../common/lease/lease.js';
import type { RedisClient } from '../../common/redis/connect.js';
import type { Keys } from './keys.js';

export class Leases {
  /** `redis` is read on every call: the archiver connects after constructing its parts. */
  constructor(private readonly client: () => RedisClient, private readonly keys: Keys, private readonly id: string, private readonly ttlMs: number) {}

  private get redis(): RedisClient {
    return this.client();
  }

  /** Heartbeat membership and return the live members (sorted). */
  async heartbeat(): Promise<string[]> {
    const now = Date.now();
    const r = await this.redis
      .multi()
      .zadd(this.keys.members(), now + this.ttlMs, this.id)
      .zremrangebyscore(this.keys.members(), '-inf', now)
      .zrange(this.keys.members(), 0, -1)
      .exec();
    const members = (r?.[2]?.[1] as string[] | undefined) ?? [this.id];
    return [...members].sort();
  }

  async leave(): Promise<void> {
    await this.redis.zrem(this.keys.members(), this.id);
  }

  async acquire(topic: string, p: number): Promise<boolean> {
    const k = this.keys.lease(topic, p);
    if (await takeLease(this.redis, k, this.id, this.ttlMs)) return true;
    return (await this.redis.get(k)) === this.id;
  }

  /**
   * Renew many leases in as few script calls as the server allows (common/lease
   * renewLeases: batches on one node, per hash slot on a cluster); returns the
   * ones still held. A lease whose renewal failed (an error, or a key that can
   * no longer be named) counts as lost.
   */
  async renew(items: { topic: string; p: number }[]): Promise<boolean[]> {
    if (!items.length) return [];
    const keys: Array<string | null> = items.map((it) => {
      try {
        return this.keys.lease(it.topic, it.p);
      } catch {
        return null;
      }
    });
    const named = keys.filter((k): k is string => k !== null);
    // Strict keys mean a Redis Cluster (Archiver.useClient): one call per hash slot.
    const ok = await renewLeases(this.redis, named, this.id, this.ttlMs, { perSlot: this.keys.strict, failedAsLost: true });
    let j = 0;
    return keys.map((k) => (k === null ? false : ok[j++]!));
  }

  async release(topic: string, p: number): Promise<void> {
    await releaseLease(this.redis, this.keys.lease(topic, p), this.id);
  }
}
