// The narrow storage interface of group configs: the overrides set for one
// group (kafka-configs --entity-type groups), name -> value as validated.
// The Redis implementation (redis/redis-group-config-store.ts) owns the key
// names. A group need not exist for its configs to be stored (as in Kafka).
export interface GroupConfigStore {
  /** The group's overrides; empty when none are set. */
  get(groupId: string): Promise<Record<string, string>>;
  /** Replaces the group's overrides with `configs` (empty: removes them all). */
  replace(groupId: string, configs: Readonly<Record<string, string>>): Promise<void>;
}

