// Share-partition state in Redis (key contract: docs/redis-keys.md, "Share
// group keys"). Each share-partition is one hash
// `<prefix>:s:{<group>}:<topicId>/<partition>` with fields `leaderEpoch`
// (the fence), `version` (moves with every write) and `state` (JSON: SPSO,
// SPEO and runs of in-flight records); the group's set
// `<prefix>:s:{<group>}:partitions` names them. Loads, writes and
// administrative changes are one Lua script each (lua/share-state-load.lua,
// lua/share-state-write.lua, lua/share-state-admin.lua);
// `<prefix>:share-groups` indexes the group ids. A share group's membership
// is the hash `<prefix>:s:{<group>}:meta` (fields `coordinatorEpoch`, the
// fence, and `group`, JSON), loaded and written by lua/share-group-load.lua
// and lua/share-group-write.lua.
import type { RedisClient as Redis } from '../../../common/redis/connect.js';
import { Keys } from './keys.js';
import { luaSource } from './lua.js';
import { guard } from './stream-entries.js';
import {
  FencedStateEpochError, ShareCoordinatorFencedError, StaleShareStateError, type LoadedShareState, type SharePartitionKey, type SharePartitionStore, type ShareGroupStore,
} from '../groups/share/share-store.js';
import type { StoredShareGroup } from '../groups/share/share-group.js';
import type { StoredSharePartition } from '../groups/share/share-partition.js';

type ScriptReply = [number, ...unknown[]];
type ShareRedis = Redis & {
  shareStateLoad(state: string, epoch: string): Promise<ScriptReply>;
  shareStateWrite(state: string, index: string, epoch: string, json: string, member: string, version: string): Promise<ScriptReply>;
  shareStateAdmin(state: string, index: string, op: 'set' | 'del', json: string, member: string): Promise<number>;
  shareGroupLoad(meta: string, epoch: string): Promise<ScriptReply>;
  shareGroupWrite(meta: string, epoch: string, json: string): Promise<ScriptReply>;
};

const member = (key: SharePartitionKey): string => `${key.topicId}/${key.partition}`;

export class RedisShareStore implements SharePartitionStore, ShareGroupStore {
  private readonly k: Keys;
  private readonly redis: ShareRedis;
  private readonly indexed = new Set<string>();

  constructor(redis: Redis, prefix: string) {
    this.k = new Keys(prefix);
    redis.defineCommand('shareStateLoad', { numberOfKeys: 1, lua: luaSource('share-state-load') });
    redis.defineCommand('shareStateWrite', { numberOfKeys: 2, lua: luaSource('share-state-write') });
    redis.defineCommand('shareStateAdmin', { numberOfKeys: 2, lua: luaSource('share-state-admin') });
    redis.defineCommand('shareGroupLoad', { numberOfKeys: 1, lua: luaSource('share-group-load') });
    redis.defineCommand('shareGroupWrite', { numberOfKeys: 1, lua: luaSource('share-group-write') });
    this.redis = redis as ShareRedis;
  }

  private stateKey(key: SharePartitionKey): string {
    return this.k.sharePartition(key.groupId, key.topicId, key.partition);
  }

  async load(key: SharePartitionKey, leaderEpoch: number): Promise<LoadedShareState> {
    const r = await guard(this.redis.shareStateLoad(this.stateKey(key), String(leaderEpoch)));
    if (r[0] !== 1) throw new FencedStateEpochError(key, leaderEpoch, Number(r[1]));
    return { state: typeof r[1] === 'string' ? JSON.parse(r[1]) as StoredSharePartition : null, version: Number(r[2]) };
  }

  async save(key: SharePartitionKey, leaderEpoch: number, state: StoredSharePartition, version: number): Promise<number> {
    const r = await guard(this.redis.shareStateWrite(
      this.stateKey(key), this.k.sharePartitions(key.groupId), String(leaderEpoch), JSON.stringify(state), member(key), String(version),
    ));
    if (r[0] === 0) throw new FencedStateEpochError(key, leaderEpoch, Number(r[1]));
    if (r[0] === 2) throw new StaleShareStateError(key);
    await this.index(key.groupId);
    return Number(r[1]);
  }

  private async index(groupId: string): Promise<void> {
    if (this.indexed.has(groupId)) return;
    await this.redis.sadd(this.k.shareGroupIndex, groupId);
    this.indexed.add(groupId);
  }

  async read(key: SharePartitionKey): Promise<StoredSharePartition | null> {
    const json = await this.redis.hget(this.stateKey(key), 'state');
    return json === null ? null : JSON.parse(json) as StoredSharePartition;
  }

  async overwrite(key: SharePartitionKey, state: StoredSharePartition | null): Promise<void> {
    await guard(this.redis.shareStateAdmin(this.stateKey(key), this.k.sharePartitions(key.groupId), state ? 'set' : 'del', state ? JSON.stringify(state) : '', member(key)));
    if (state) await this.index(key.groupId);
  }

  async listPartitions(groupId: string): Promise<Array<{ topicId: string; partition: number }>> {
    return (await this.redis.smembers(this.k.sharePartitions(groupId))).map((m) => {
      const i = m.lastIndexOf('/');
      return { topicId: m.slice(0, i), partition: Number(m.slice(i + 1)) };
    });
  }

  async loadGroup(groupId: string, coordinatorEpoch: number): Promise<StoredShareGroup | null> {
    const r = await guard(this.redis.shareGroupLoad(this.k.shareGroupMeta(groupId), String(coordinatorEpoch)));
    if (r[0] !== 1) throw new ShareCoordinatorFencedError(groupId, coordinatorEpoch, Number(r[1]));
    return typeof r[1] === 'string' ? JSON.parse(r[1]) as StoredShareGroup : null;
  }

  async saveGroup(groupId: string, coordinatorEpoch: number, group: StoredShareGroup | null): Promise<void> {
    const r = await guard(this.redis.shareGroupWrite(this.k.shareGroupMeta(groupId), String(coordinatorEpoch), group ? JSON.stringify(group) : ''));
    if (r[0] !== 1) throw new ShareCoordinatorFencedError(groupId, coordinatorEpoch, Number(r[1]));
    if (group) await this.index(groupId);
  }

  async listGroupIds(): Promise<string[]> {
    return this.redis.smembers(this.k.shareGroupIndex);
  }

  async forgetGroup(groupId: string): Promise<void> {
    await this.redis.srem(this.k.shareGroupIndex, groupId);
    this.indexed.delete(groupId);
  }
}
