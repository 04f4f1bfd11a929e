// Where ACL bindings live: a narrow interface (the Redis implementation is
// redis/redis-acl-store.ts). Every change bumps a version counter so
// that every broker notices it with one cheap read.
import type { AclBinding } from './model.js';

export interface AclStore {
  /** The change counter (0 before the first change). */
  version(): Promise<number>;
  /** Every stored binding with the version it was read at. */
  load(): Promise<{ version: number; bindings: AclBinding[] }>;
  /** Stores the bindings (present ones stay) and bumps the version. */
  add(bindings: readonly AclBinding[]): Promise<void>;
  /** Removes the bindings and bumps the version; resolves to those that were present. */
  remove(bindings: readonly AclBinding[]): Promise<AclBinding[]>;
}
