// SchemaIds over the registry's store, cached: an id once registered keeps its
// schema (ids are never reused), so a known id is never asked again; an id
// found missing is asked again after `missTtlMs`, so a schema registered a
// moment ago on another broker is accepted within that time. At most
// `maxMisses` missing ids are remembered (a producer sending random ids costs
// one store read per batch and id, never unbounded memory).
import type { SchemaIds } from '../storage/schema-ids.js';
import type { RegistryStore } from './store.js';

export class CachedSchemaIds implements SchemaIds {
  private readonly known = new Set<number>();
  private readonly misses = new Map<number, number>();

  constructor(
    private readonly store: Pick<RegistryStore, 'schema'>,
    private readonly missTtlMs = 1000,
    private readonly maxMisses = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  async unknown(ids: readonly number[]): Promise<number[]> {
    const out = new Set<number>();
    const ask: number[] = [];
    for (const id of ids) {
      if (this.known.has(id)) continue;
      const missedAt = this.misses.get(id);
      if (missedAt !== undefined && this.now() - missedAt < this.missTtlMs) out.add(id);
      else ask.push(id);
    }
    const found = await Promise.all(ask.map(async (id) => [id, (await this.store.schema(id)) !== null] as const));
    for (const [id, ok] of found) {
      if (ok) {
        this.known.add(id);
        this.misses.delete(id);
        continue;
      }
      if (this.misses.size >= this.maxMisses) this.misses.clear();
      this.misses.set(id, this.now());
      out.add(id);
    }
    return ids.filter((id) => out.has(id));
  }
}
