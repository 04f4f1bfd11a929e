// Where client quotas live: a narrow interface (the Redis implementation is
// redis/redis-quota-store.ts). Every change bumps a version counter,
// so every broker notices it with one cheap read.

/** One quota value of one entity (entities.ts entityKey). */
export interface QuotaValue { entity: string; key: string; value: number }

export interface QuotaChange { entity: string; key: string; value: number | null }

export interface QuotaStore {
  /** The change counter (0 before the first change). */
  version(): Promise<number>;
  load(): Promise<{ version: number; values: QuotaValue[] }>;
  /** Sets (value) or removes (null) each entity's key, all at once, and bumps the version. */
  alter(changes: readonly QuotaChange[]): Promise<void>;
}
