// An in-memory CredentialStore for unit tests (the broker uses redis/redis-credential-store.ts).
import type { CredentialStore, ScramCredential, ScramCredentialInfo, ScramMechanism } from '../../../broker/src/security/sasl/credentials.js';

export class MemoryCredentialStore implements CredentialStore {
  readonly data = new Map<string, { mechanism: ScramMechanism; credential: ScramCredential }>();
  reads = 0;

  async get(user: string, mechanism: ScramMechanism): Promise<ScramCredential | null> {
    this.reads++;
    return this.data.get(`${mechanism.name}:${user}`)?.credential ?? null;
  }

  async list(): Promise<Map<string, ScramCredentialInfo[]>> {
    const out = new Map<string, ScramCredentialInfo[]>();
    for (const [k, v] of this.data) {
      const user = k.slice(k.indexOf(':') + 1);
      out.set(user, [...(out.get(user) ?? []), { mechanism: v.mechanism, iterations: v.credential.iterations }]);
    }
    return out;
  }

  async alter(
    deletions: Array<{ user: string; mechanism: ScramMechanism }>,
    upsertions: Array<{ user: string; mechanism: ScramMechanism; credential: ScramCredential }>,
  ): Promise<void> {
    for (const d of deletions) this.data.delete(`${d.mechanism.name}:${d.user}`);
    for (const u of upsertions) this.data.set(`${u.mechanism.name}:${u.user}`, { mechanism: u.mechanism, credential: u.credential });
  }
}
