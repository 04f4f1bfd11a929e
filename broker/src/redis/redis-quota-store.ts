// Client quotas in Redis (docs/redis-keys.md, "Quota keys"): one hash whose
// fields are `<entity key>\t<quota key>`, and a version counter, both under
// the hash tag {quotas} so that a change and its version bump are one MULTI
// on one Redis Cluster shard.
import type { RedisClient as Redis } from '../../../common/redis/connect.js';
import { Keys } from './keys.js';
import type { QuotaChange, QuotaStore, QuotaValue } from '../quotas/quota-store.js';
import { execReplies as replies, guard } from './stream-entries.js';

export class RedisQuotaStore implements QuotaStore {
  private readonly k: Keys;
  constructor(private readonly redis: Redis, prefix: string) { this.k = new Keys(prefix); }

  async version(): Promise<number> {
    return Number((await guard(this.redis.get(this.k.quotaVersion))) ?? 0);
  }

  async load(): Promise<{ version: number; values: QuotaValue[] }> {
    const out = replies(await guard(this.redis.multi().get(this.k.quotaVersion).hgetall(this.k.quotaValues).exec()));
    const values: QuotaValue[] = [];
    for (const [field, v] of Object.entries(out[1] as Record<string, string>)) {
      const tab = field.indexOf('\t');
      const value = Number(v);
      if (tab > 0 && Number.isFinite(value)) values.push({ entity: field.slice(0, tab), key: field.slice(tab + 1), value });
    }
    return { version: Number((out[0] as string | null) ?? 0), values };
  }

  async alter(changes: readonly QuotaChange[]): Promise<void> {
    if (changes.length === 0) return;
    const m = this.redis.multi();
    for (const c of changes) {
      const field = `${c.entity}\t${c.key}`;
      if (c.value === null) m.hdel(this.k.quotaValues, field);
      else m.hset(this.k.quotaValues, field, String(c.value));
    }
    m.incr(this.k.quotaVersion);
    replies(await guard(m.exec()));
  }
}
