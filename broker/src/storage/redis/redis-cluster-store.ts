import type { Redis } from 'ioredis';
import { RunnelError } from '../../errors.js';
import type { BrokerInfo, ClusterStore, LeaseUnit } from '../cluster-store.js';
import type { Keys } from './keys.js';
import { luaSource } from './lua.js';

type LeaseRedis = Redis & {
  renewLease(key: string, holder: string, ttl: string): Promise<number>;
  releaseLease(key: string, holder: string): Promise<number>;
};

async function guard<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    throw new RunnelError('STORAGE_UNAVAILABLE', e instanceof Error ? e.message : String(e), { cause: e });
  }
}

export class RedisClusterStore implements ClusterStore {
  private readonly redis: LeaseRedis;

  constructor(redis: Redis, private readonly keys: Keys) {
    redis.defineCommand('renewLease', { numberOfKeys: 1, lua: luaSource('renew-lease') });
    redis.defineCommand('releaseLease', { numberOfKeys: 1, lua: luaSource('release-lease') });
    this.redis = redis as LeaseRedis;
  }

  private leaseKey(u: LeaseUnit): string {
    return u.kind === 'partition' ? this.keys.leader({ topic: u.topic, partition: u.partition }) : this.keys.coordinatorLease(u.slot);
  }

  async registerBroker(info: BrokerInfo, expiresAt: number): Promise<void> {
    await guard(Promise.all([
      this.redis.hset(this.keys.brokers, String(info.nodeId), JSON.stringify(info)),
      this.redis.zadd(this.keys.brokerLeases, expiresAt, String(info.nodeId)),
    ]));
  }

  async unregisterBroker(nodeId: number): Promise<void> {
    await guard(this.redis.zrem(this.keys.brokerLeases, String(nodeId)));
  }

  async liveBrokers(now: number): Promise<BrokerInfo[]> {
    const ids = await guard(this.redis.zrangebyscore(this.keys.brokerLeases, now, '+inf'));
    if (ids.length === 0) return [];
    const infos = await guard(this.redis.hmget(this.keys.brokers, ...ids));
    return infos.filter((x): x is string => x !== null).map((x) => JSON.parse(x) as BrokerInfo).sort((a, b) => a.nodeId - b.nodeId);
  }

  async leaseHolders(units: LeaseUnit[]): Promise<Array<{ holder: number | null; epoch: number }>> {
    const holders = Promise.all(units.map((u) => this.redis.get(this.leaseKey(u))));
    const epochs = Promise.all(units.map((u) => (u.kind === 'partition' ? this.redis.hget(this.keys.meta({ topic: u.topic, partition: u.partition }), 'leaderEpoch') : null)));
    const [h, e] = await guard(Promise.all([holders, epochs]));
    return h.map((v, i) => ({ holder: v === null ? null : Number(v), epoch: e[i] === null || e[i] === undefined ? 0 : Number(e[i]) }));
  }

  async acquireLease(unit: LeaseUnit, nodeId: number, ttlMs: number): Promise<boolean> {
    return (await guard(this.redis.set(this.leaseKey(unit), String(nodeId), 'PX', ttlMs, 'NX'))) === 'OK';
  }

  async renewLease(unit: LeaseUnit, nodeId: number, ttlMs: number): Promise<boolean> {
    return (await guard(this.redis.renewLease(this.leaseKey(unit), String(nodeId), String(ttlMs)))) === 1;
  }

  async releaseLease(unit: LeaseUnit, nodeId: number): Promise<void> {
    await guard(this.redis.releaseLease(this.leaseKey(unit), String(nodeId)));
  }

  async bumpLeaderEpoch(topic: string, partition: number): Promise<number> {
    return guard(this.redis.hincrby(this.keys.meta({ topic, partition }), 'leaderEpoch', 1));
  }

  async recordEpochStart(topic: string, partition: number, epoch: number, startOffset: number): Promise<void> {
    await guard(this.redis.hset(this.keys.epochs({ topic, partition }), String(epoch), String(startOffset)));
  }

  async epochHistory(topic: string, partition: number): Promise<Map<number, number>> {
    const all = await guard(this.redis.hgetall(this.keys.epochs({ topic, partition })));
    return new Map(Object.entries(all).map(([e, o]) => [Number(e), Number(o)]));
  }
}
