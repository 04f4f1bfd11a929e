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
// renewals are one command per lease, sent together (see reader.ts).
import { releaseLease, renewLease, takeLease } from '../../common/lease/lease.js';
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
   * Renew many leases, one script per lease (each on its own partition's shard),
   * all sent before any reply is awaited; returns the ones still held. A lease
   * whose renewal failed (error, or a key that can no longer be named) counts as lost.
   */
  async renew(items: { topic: string; p: number }[]): Promise<boolean[]> {
    if (!items.length) return [];
    const r = await Promise.allSettled(items.map(async (it) => renewLease(this.redis, this.keys.lease(it.topic, it.p), this.id, this.ttlMs)));
    return r.map((x) => x.status === 'fulfilled' && x.value);
  }

  async release(topic: string, p: number): Promise<void> {
    await releaseLease(this.redis, this.keys.lease(topic, p), this.id);
  }
}
