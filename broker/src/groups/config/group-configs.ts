// Group configs as a service: DescribeConfigs and (Incremental)AlterConfigs
// on the GROUP resource read and replace a group's overrides through it, and
// the group coordinators read each group's effective values with get()
// (consumer.* for KIP-848 groups, share.* for share groups). Overrides are
// stored in Redis so that every broker sees them; get() caches them for
// CACHE_TTL_MS, so a change reaches the coordinator of the group within that
// time (at once on the broker that stored it), as Kafka's coordinators see a
// config change once its metadata record reaches them.
import type { Clock } from '../../../../common/clock.js';
import type { GroupConfigStore } from './group-config-store.js';
import { effectiveGroupConfig, resolveGroupConfigs, validateGroupConfigs, type BrokerSettings, type EffectiveGroupConfig, type ResolvedGroupConfig } from './group-config-rules.js';

export type { EffectiveGroupConfig } from './group-config-rules.js';

/** What a group coordinator needs: a group's effective configs. */
export interface GroupConfigReader {
  get(groupId: string): Promise<EffectiveGroupConfig>;
}

export const CACHE_TTL_MS = 1000;

export class GroupConfigs implements GroupConfigReader {
  private readonly cache = new Map<string, { at: number; value: Promise<EffectiveGroupConfig> }>();

  constructor(private readonly store: GroupConfigStore, readonly broker: BrokerSettings, private readonly clock: Pick<Clock, 'now'>) {}

  /** The group's effective configs (overrides over the broker's settings), at most CACHE_TTL_MS old. */
  get(groupId: string): Promise<EffectiveGroupConfig> {
    const now = this.clock.now();
    const hit = this.cache.get(groupId);
    if (hit && now - hit.at < CACHE_TTL_MS) return hit.value;
    if (this.cache.size > 10_000) this.cache.clear();
    const value = this.store.get(groupId).then((o) => effectiveGroupConfig(o, this.broker));
    this.cache.set(groupId, { at: now, value });
    value.catch(() => { if (this.cache.get(groupId)?.value === value) this.cache.delete(groupId); });
    return value;
  }

  /** The overrides set for the group (read from the store, not cached). */
  overrides(groupId: string): Promise<Record<string, string>> {
    return this.store.get(groupId);
  }

  /** Every config of the group as DescribeConfigs lists it. */
  async describe(groupId: string): Promise<ResolvedGroupConfig[]> {
    return resolveGroupConfigs(await this.store.get(groupId), this.broker);
  }

  /**
   * Validates the group's complete new set of overrides and, unless
   * `validateOnly`, stores it: null when done, else the INVALID_CONFIG message.
   */
  async replace(groupId: string, next: Readonly<Record<string, string>>, validateOnly: boolean): Promise<string | null> {
    const v = validateGroupConfigs(next, this.broker);
    if ('error' in v) return v.error;
    if (validateOnly) return null;
    await this.store.replace(groupId, v.configs);
    this.cache.delete(groupId);
    return null;
  }
}
