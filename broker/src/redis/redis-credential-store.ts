// SCRAM credentials in Redis (docs/redis-keys.md, "SASL/SCRAM credentials"):
// one hash `<prefix>:scram-credentials`, field `<mechanism>:<user>`, value in
// Kafka's text form `salt=<b64>,stored_key=<b64>,server_key=<b64>,iterations=<n>`.
// One key, so every command is single-slot (Redis Cluster safe) and an
// AlterUserScramCredentials request is one atomic MULTI on it. Nothing is
// cached: each authentication reads the hash, so a change made through any
// broker applies to the next authentication on every broker.
import type { RedisClient as Redis } from '../../../common/redis/connect.js';
import { Keys } from './keys.js';
import { guard, storageError } from './stream-entries.js';
import {
  formatCredential, parseCredential, scramMechanismByName, type CredentialStore, type ScramCredential, type ScramCredentialInfo, type ScramMechanism,
} from '../security/sasl/credentials.js';

export class RedisCredentialStore implements CredentialStore {
  private readonly key: string;

  constructor(private readonly redis: Redis, prefix: string) {
    this.key = new Keys(prefix).scramCredentials;
  }

  async get(user: string, mechanism: ScramMechanism): Promise<ScramCredential | null> {
    const v = await guard(this.redis.hget(this.key, `${mechanism.name}:${user}`));
    return v === null ? null : parseCredential(v);
  }

  async list(): Promise<Map<string, ScramCredentialInfo[]>> {
    const all = await guard(this.redis.hgetall(this.key));
    const out = new Map<string, ScramCredentialInfo[]>();
    for (const [field, value] of Object.entries(all)) {
      const i = field.indexOf(':');
      const mechanism = i > 0 ? scramMechanismByName(field.slice(0, i)) : undefined;
      const cred = parseCredential(value);
      if (!mechanism || !cred) continue;
      const user = field.slice(i + 1);
      const infos = out.get(user) ?? [];
      infos.push({ mechanism, iterations: cred.iterations });
      out.set(user, infos);
    }
    return out;
  }

  async alter(
    deletions: Array<{ user: string; mechanism: ScramMechanism }>,
    upsertions: Array<{ user: string; mechanism: ScramMechanism; credential: ScramCredential }>,
  ): Promise<void> {
    if (deletions.length === 0 && upsertions.length === 0) return;
    const m = this.redis.multi();
    if (deletions.length > 0) m.hdel(this.key, ...deletions.map((d) => `${d.mechanism.name}:${d.user}`));
    if (upsertions.length > 0) m.hset(this.key, Object.fromEntries(upsertions.map((u) => [`${u.mechanism.name}:${u.user}`, formatCredential(u.credential)])));
    const res = await guard(m.exec());
    const failed = res?.find(([err]) => err);
    if (failed) throw storageError(failed[0]);
  }
}
