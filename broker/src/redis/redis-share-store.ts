// Share-partition state in Redis (key contract: docs/redis-keys.md, "Share
// group keys"). Each share-partition is one hash
// `<prefix>:s:{<group>}:<topicId>/<partition>` with fields `leaderEpoch`
// (the fence) and `state` (JSON: SPSO, SPEO and runs of in-flight records);
// the group's set `<prefix>:s:{<group>}:partitions` names them. Loads and
// writes are one Lua script each (lua/share-state-load.lua,
// lua/share-state-write.lua); `<prefix>:share-groups` indexes the group ids.
import type { RedisClient as Redis } from '../../../common/redis/connect.js';
import { Keys } from './keys.js';
import { luaSource } from './lua.js';
import { guard } from './stream-entries.js';
import { FencedStateEpochError, type SharePartitionKey, type SharePartitionStore } from '../groups/share/share-store.js';
import type { StoredSharePartition } from '../groups/share/share-partition.js';

type ScriptReply = [number, ...unknown[]];
type ShareRedis = Redis & {
  shareStateLoad(state: string, epoch: string): Promise<ScriptReply>;
  shareStateWrite(state: string, index: string, epoch: string, json: string, member: string): Promise<ScriptReply>;
};

export class RedisShareStore implements SharePartitionStore {
  private readonly k: Keys;
  private readonly redis: ShareRedis;
  private readonly indexed = new Set<string>();

  constructor(redis: Redis, prefix: string) {
    this.k = new Keys(prefix);
    redis.defineCommand('shareStateLoad', { numberOfKeys: 1, lua: luaSource('share-state-load') });
    redis.defineCommand('shareStateWrite', { numberOfKeys: 2, lua: luaSource('share-state-write') });
    this.redis = redis as ShareRedis;
  }

  private stateKey(key: SharePartitionKey): string {
    return this.k.sharePartition(key.groupId, key.topicId, key.partition);
  }

  async load(key: SharePartitionKey, leaderEpoch: number): Promise<StoredSharePartition | null> {
    const r = await guard(this.redis.shareStateLoad(this.stateKey(key), String(leaderEpoch)));
    if (r[0] !== 1) throw new FencedStateEpochError(key, leaderEpoch, Number(r[1]));
    return typeof r[1] === 'string' ? JSON.parse(r[1]) as StoredSharePartition : null;
  }

  async save(key: SharePartitionKey, leaderEpoch: number, state: StoredSharePartition): Promise<void> {
    const r = await guard(this.redis.shareStateWrite(
      this.stateKey(key), this.k.sharePartitions(key.groupId), String(leaderEpoch), JSON.stringify(state), `${key.topicId}/${key.partition}`,
    ));
    if (r[0] !== 1) throw new FencedStateEpochError(key, leaderEpoch, Number(r[1]));
    if (!this.indexed.has(key.groupId)) {
      await this.redis.sadd(this.k.shareGroupIndex, key.groupId);
      this.indexed.add(key.groupId);
    }
  }

  async listGroupIds(): Promise<string[]> {
    return this.redis.smembers(this.k.shareGroupIndex);
  }
}
