// An in-memory AclStore for unit tests (the Redis one is redis/redis-acl-store.ts).
import type { AclStore } from '../../../broker/src/security/acl/acl-store.js';
import { bindingKey, type AclBinding } from '../../../broker/src/security/acl/model.js';

export class MemoryAclStore implements AclStore {
  private readonly bindings = new Map<string, AclBinding>();
  private changes = 0;

  async version(): Promise<number> { return this.changes; }
  async load(): Promise<{ version: number; bindings: AclBinding[] }> { return { version: this.changes, bindings: [...this.bindings.values()] }; }
  /** As the Redis store: a call without bindings writes nothing and keeps the version. */
  async add(bindings: readonly AclBinding[]): Promise<void> {
    if (bindings.length === 0) return;
    for (const b of bindings) this.bindings.set(bindingKey(b), b);
    this.changes++;
  }
  async remove(bindings: readonly AclBinding[]): Promise<AclBinding[]> {
    if (bindings.length === 0) return [];
    const gone = bindings.filter((b) => this.bindings.delete(bindingKey(b)));
    this.changes++;
    return gone;
  }
}
