// The broker's client quotas: the stored configuration, followed through the
// store's version counter (a change reaches every broker within one poll),
// the enforcement (QuotaManager) and what DescribeClientQuotas and
// AlterClientQuotas need.
import type { Logger } from '../../../common/logger/logger.js';
import { entityFromKey, entityKey, matchesFilter, parseEntity, validateQuota, type FilterComponent, type QuotaEntity, type QuotaError } from './entities.js';
import { QuotaManager, type QuotaSettings } from './quota-manager.js';
import type { QuotaChange, QuotaStore } from './quota-store.js';

export interface QuotaAlteration {
  entity: Array<{ entityType: string; entityName: string | null }>;
  ops: Array<{ key: string; value: number; remove: boolean }>;
}

export class QuotaService {
  readonly manager: QuotaManager;
  private values = new Map<string, Map<string, number>>();
  private version = -1;
  private timer: NodeJS.Timeout | null = null;
  private polling = false;

  constructor(settings: QuotaSettings, private readonly store: QuotaStore, private readonly logger?: Logger, private readonly pollMs = 500) {
    this.manager = new QuotaManager(settings);
  }

  async start(): Promise<void> {
    await this.reload();
    this.timer = setInterval(() => void this.poll(), this.pollMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      if ((await this.store.version()) !== this.version) await this.reload();
    } catch (e) {
      this.logger?.warn('quota reload failed; the last quotas stay in force', { err: e instanceof Error ? e.message : String(e) });
    } finally {
      this.polling = false;
    }
  }

  async reload(): Promise<void> {
    const { version, values } = await this.store.load();
    const next = new Map<string, Map<string, number>>();
    for (const v of values) {
      let kv = next.get(v.entity);
      if (!kv) next.set(v.entity, (kv = new Map()));
      kv.set(v.key, v.value);
    }
    this.values = next;
    this.version = version;
    this.manager.setQuotas(next);
  }

  /** DescribeClientQuotas: the entities matching the filter, with their values (read fresh from the store). */
  async describe(components: FilterComponent[], strict: boolean): Promise<Array<{ entity: QuotaEntity; values: Map<string, number> }> | QuotaError> {
    for (const c of components) {
      if (c.entityType !== 'user' && c.entityType !== 'client-id' && c.entityType !== 'ip') return { errorCode: 42, message: `Custom entity type '${c.entityType}' not supported` };
      if (c.matchType === 0 && c.match === null) return { errorCode: 42, message: `Unknown match type null for entity type ${c.entityType}` };
    }
    await this.reload();
    const out: Array<{ entity: QuotaEntity; values: Map<string, number> }> = [];
    for (const [key, values] of this.values) {
      const entity = entityFromKey(key);
      if (matchesFilter(entity, components, strict)) out.push({ entity, values });
    }
    return out;
  }

  /** AlterClientQuotas: per entry, null when applied (or valid, validateOnly) or the error. All valid entries are stored in one change. */
  async alter(entries: QuotaAlteration[], validateOnly: boolean): Promise<Array<QuotaError | null>> {
    const results: Array<QuotaError | null> = [];
    const changes: QuotaChange[] = [];
    for (const e of entries) {
      const entity = parseEntity(e.entity);
      if ('errorCode' in entity) {
        results.push(entity);
        continue;
      }
      const key = entityKey(entity);
      let error: QuotaError | null = null;
      const mine: QuotaChange[] = [];
      for (const op of e.ops) {
        if (!op.remove) error = validateQuota(entity, op.key, op.value);
        if (error) break;
        mine.push({ entity: key, key: op.key, value: op.remove ? null : op.value });
      }
      results.push(error);
      if (!error) changes.push(...mine);
    }
    if (!validateOnly && changes.length > 0) {
      await this.store.alter(changes);
      await this.reload();
    }
    return results;
  }
}
