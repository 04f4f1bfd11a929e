// ACL bindings in Redis (docs/redis-keys.md, "ACL keys"): one hash of
// bindings and a version counter, both under the hash tag {acls} so that a
// change and its version bump are one MULTI on one Redis Cluster shard.
import type { RedisClient as Redis } from '../../../common/redis/connect.js';
import { Keys } from './keys.js';
import { bindingKey, parseBindingKey, type AclBinding } from '../security/acl/model.js';
import type { AclStore } from '../security/acl/acl-store.js';
import { execReplies as replies, guard } from './stream-entries.js';

export class RedisAclStore implements AclStore {
  private readonly k: Keys;
  constructor(private readonly redis: Redis, prefix: string) { this.k = new Keys(prefix); }

  async version(): Promise<number> {
    return Number((await guard(this.redis.get(this.k.aclVersion))) ?? 0);
  }

  async load(): Promise<{ version: number; bindings: AclBinding[] }> {
    const out = replies(await guard(this.redis.multi().get(this.k.aclVersion).hkeys(this.k.aclBindings).exec()));
    const version = Number((out[0] as string | null) ?? 0);
    const bindings: AclBinding[] = [];
    for (const f of out[1] as string[]) {
      const b = parseBindingKey(f);
      if (b) bindings.push(b);
    }
    return { version, bindings };
  }

  async add(bindings: readonly AclBinding[]): Promise<void> {
    if (bindings.length === 0) return;
    const fields = bindings.flatMap((b) => [bindingKey(b), '1']);
    replies(await guard(this.redis.multi().hset(this.k.aclBindings, ...fields).incr(this.k.aclVersion).exec()));
  }

  async remove(bindings: readonly AclBinding[]): Promise<AclBinding[]> {
    if (bindings.length === 0) return [];
    const m = this.redis.multi();
    for (const b of bindings) m.hdel(this.k.aclBindings, bindingKey(b));
    m.incr(this.k.aclVersion);
    const out = replies(await guard(m.exec()));
    return bindings.filter((_, i) => Number(out[i]) === 1);
  }
}
