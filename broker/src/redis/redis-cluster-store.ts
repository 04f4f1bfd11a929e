// Broker registrations, leadership leases and epochs in Redis (key contract:
// docs/redis-keys.md). Registrations and leases hold the broker *instance*
// (`<nodeId>:<random>`); every check-and-write is a Lua script (lua/*.lua; the
// lease take/renew/release of common/lease/lease.ts, shared with the archiver).
import { releaseLease, renewLeases, takeLease } from '../../../common/lease/lease.js';
import { isCluster, type RedisClient as Redis } from '../../../common/redis/connect.js';
import { nodeIdOfInstance, registrationInfo, type BrokerInfo, type ClusterStore, type LeaseHolder, type LeaseUnit, type RegisterResult } from '../storage/cluster-store.js';
import { META_FIELD, type Keys } from './keys.js';
import { luaSource } from './lua.js';
import { slotChunks } from '../../../common/redis/slot-chunks.js';
import { guardWithin } from './stream-entries.js';

type LeaseRedis = Redis & {
  acquireCoordinatorLease(lease: string, epoch: string, holder: string, ttl: string): Promise<number>;
  registerBroker(brokers: string, nodeId: string, instance: string, json: string, now: string): Promise<[number, string?, number?]>;
  unregisterBroker(brokers: string, nodeId: string, instance: string): Promise<number>;
  /** Redis nil arrives as null: a free lease, a partition without an epoch yet, or a coordinator slot's epoch slot. */
  leaseHolders(numKeys: number, ...args: string[]): Promise<Array<string | null>>;
};

/** Units per lease-holders.lua call: bounds how long one script holds the server (about 1-2 µs per unit). */
const LEASE_READ_BATCH = 128;

/** The registration stored in `<prefix>:brokers`: the advertised address plus who holds the node id until when. */
interface RegistrationJson extends BrokerInfo {
  instance: string;
  expiresAt: number;
}

/**
 * A lease command that has not answered in this long fails the leadership
 * tick, so the next tick can start: one hung command must not stall lease
 * upkeep (seen once on a Valkey cluster, where the cluster client held a
 * command for two minutes after a primary was killed). Every lease write is
 * a compare-and-set, so a command that completes after this is harmless.
 */
const LEASE_COMMAND_TIMEOUT_MS = 5_000;

const guard = <T>(p: Promise<T>): Promise<T> => guardWithin(p, LEASE_COMMAND_TIMEOUT_MS);

export class RedisClusterStore implements ClusterStore {
  private readonly redis: LeaseRedis;

  constructor(redis: Redis, private readonly keys: Keys) {
    redis.defineCommand('acquireCoordinatorLease', { numberOfKeys: 2, lua: luaSource('acquire-coordinator-lease') });
    redis.defineCommand('registerBroker', { numberOfKeys: 1, lua: luaSource('register-broker') });
    redis.defineCommand('unregisterBroker', { numberOfKeys: 1, lua: luaSource('unregister-broker') });
    // numberOfKeys is the call's first argument (two keys per unit).
    redis.defineCommand('leaseHolders', { lua: luaSource('lease-holders') });
    this.redis = redis as LeaseRedis;
  }

  private leaseKey(u: LeaseUnit): string {
    return u.kind === 'partition' ? this.keys.leader({ topic: u.topic, partition: u.partition }) : this.keys.coordinatorLease(u.slot);
  }

  async registerBroker(info: BrokerInfo, instance: string, expiresAt: number, now: number): Promise<RegisterResult> {
    const reg: RegistrationJson = { nodeId: info.nodeId, host: info.host, port: info.port, rack: info.rack, endpoints: info.endpoints, instance, expiresAt };
    const [ok, holder, holderExpires] = await guard(this.redis.registerBroker(this.keys.brokers, String(info.nodeId), instance, JSON.stringify(reg), String(now)));
    if (ok !== 1) return { ok: false, holder: String(holder), expiresAt: Number(holderExpires) };
    // The sorted set is the index liveBrokers() reads. GT: a late write of an
    // older expiry (a paused process) never shortens a newer registration.
    await guard(this.redis.zadd(this.keys.brokerLeases, 'GT', expiresAt, String(info.nodeId)));
    return { ok: true };
  }

  async unregisterBroker(nodeId: number, instance: string): Promise<void> {
    const removed = await guard(this.redis.unregisterBroker(this.keys.brokers, String(nodeId), instance));
    if (removed === 1) await guard(this.redis.zrem(this.keys.brokerLeases, String(nodeId)));
  }

  async liveBrokers(now: number): Promise<BrokerInfo[]> {
    const ids = await guard(this.redis.zrangebyscore(this.keys.brokerLeases, now, '+inf'));
    if (ids.length === 0) return [];
    const infos = await guard(this.redis.hmget(this.keys.brokers, ...ids));
    return infos
      .filter((x): x is string => x !== null)
      .map((x) => registrationInfo(JSON.parse(x) as BrokerInfo))
      .sort((a, b) => a.nodeId - b.nodeId);
  }

  /**
   * One script call (lua/lease-holders.lua) per LEASE_READ_BATCH units on a
   * single node, and per hash slot on a Redis Cluster: a broker reads the
   * units it does not hold every tick, thousands with many partitions.
   */
  async leaseHolders(units: LeaseUnit[]): Promise<LeaseHolder[]> {
    const out: LeaseHolder[] = units.map(() => ({ holder: null, instance: null, epoch: 0 }));
    const calls: Promise<void>[] = [];
    const leases = units.map((u) => this.leaseKey(u));
    for (const chunk of slotChunks(units.length, (i) => leases[i]!, isCluster(this.redis), LEASE_READ_BATCH)) {
      const keys: string[] = [];
      const flags: string[] = [];
      for (const i of chunk) {
        const u = units[i]!;
        const lease = leases[i]!;
        keys.push(lease, u.kind === 'partition' ? this.keys.meta({ topic: u.topic, partition: u.partition }) : lease);
        flags.push(u.kind === 'partition' ? '1' : '0');
      }
      calls.push(this.redis.leaseHolders(keys.length, ...keys, META_FIELD.leaderEpoch, ...flags).then((r) => {
        chunk.forEach((i, j) => {
          const v = r[2 * j] ?? null;
          const e = r[2 * j + 1] ?? null;
          out[i] = { holder: v === null ? null : nodeIdOfInstance(v), instance: v, epoch: e === null ? 0 : Number(e) };
        });
      }));
    }
    await guard(Promise.all(calls));
    return out;
  }

  async acquireLease(unit: LeaseUnit, instance: string, ttlMs: number): Promise<{ epoch: number } | null> {
    if (unit.kind === 'coordinator') {
      const epoch = await guard(this.redis.acquireCoordinatorLease(this.leaseKey(unit), this.keys.coordinatorEpoch(unit.slot), instance, String(ttlMs)));
      return epoch > 0 ? { epoch } : null;
    }
    return (await guard(takeLease(this.redis, this.leaseKey(unit), instance, ttlMs))) ? { epoch: 0 } : null;
  }

  async renewLeases(units: LeaseUnit[], instance: string, ttlMs: number): Promise<boolean[]> {
    if (units.length === 0) return [];
    return guard(renewLeases(this.redis, units.map((u) => this.leaseKey(u)), instance, ttlMs));
  }

  async releaseLease(unit: LeaseUnit, instance: string): Promise<void> {
    await guard(releaseLease(this.redis, this.leaseKey(unit), instance));
  }

  async bumpLeaderEpoch(topic: string, partition: number): Promise<number> {
    return guard(this.redis.hincrby(this.keys.meta({ topic, partition }), META_FIELD.leaderEpoch, 1));
  }

  async recordEpochStart(topic: string, partition: number, epoch: number, startOffset: number): Promise<void> {
    await guard(this.redis.hset(this.keys.epochs({ topic, partition }), String(epoch), String(startOffset)));
  }

  async epochHistory(topic: string, partition: number): Promise<Map<number, number>> {
    const all = await guard(this.redis.hgetall(this.keys.epochs({ topic, partition })));
    return new Map(Object.entries(all).map(([e, o]) => [Number(e), Number(o)]));
  }
}
