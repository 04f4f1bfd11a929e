// Group configs in Redis (docs/redis-keys.md, "Group coordinator keys"): one
// hash per group, `<prefix>:g:{<group>}:config`, field = config name, value =
// its validated value, under the group's hash tag. Written by whichever
// broker serves the IncrementalAlterConfigs/AlterConfigs request (one
// MULTI: the whole set is replaced), read by every broker.
import type { RedisClient as Redis } from '../../../common/redis/connect.js';
import { Keys } from './keys.js';
import type { GroupConfigStore } from '../groups/config/group-config-store.js';
import { execReplies as replies, guard } from './stream-entries.js';

export class RedisGroupConfigStore implements GroupConfigStore {
  private readonly k: Keys;
  constructor(private readonly redis: Redis, prefix: string) { this.k = new Keys(prefix); }

  async get(groupId: string): Promise<Record<string, string>> {
    return { ...(await guard(this.redis.hgetall(this.k.groupConfig(groupId)))) };
  }

  async replace(groupId: string, configs: Readonly<Record<string, string>>): Promise<void> {
    const key = this.k.groupConfig(groupId);
    const m = this.redis.multi().del(key);
    if (Object.keys(configs).length > 0) m.hset(key, configs);
    replies(await guard(m.exec()));
  }
}
