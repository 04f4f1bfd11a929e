import { describe, expect, it } from 'vitest';
import { CachedSchemaIds } from '../../../broker/src/schema-registry/schema-ids.js';

/** A store whose ids are `have`, counting reads. */
function store(have: Set<number>) {
  const reads: number[] = [];
  return {
    reads,
    schema: async (id: number) => {
      reads.push(id);
      return have.has(id) ? { schemaType: 'AVRO' as const, schema: '"string"', references: [] } : null;
    },
  };
}

describe('CachedSchemaIds', () => {
  it('asks the store once for a known id', async () => {
    const s = store(new Set([1, 2]));
    const ids = new CachedSchemaIds(s);
    expect(await ids.unknown([1, 2, 3])).toEqual([3]);
    expect(await ids.unknown([1, 2])).toEqual([]);
    expect(s.reads).toEqual([1, 2, 3]);
  });

  it('asks again for a missing id after the TTL, so a schema registered meanwhile is accepted', async () => {
    const have = new Set<number>();
    const s = store(have);
    let now = 0;
    const ids = new CachedSchemaIds(s, 1000, 10, () => now);
    expect(await ids.unknown([5])).toEqual([5]);
    have.add(5);
    now = 999;
    expect(await ids.unknown([5])).toEqual([5]); // still within the TTL: not asked
    expect(s.reads).toEqual([5]);
    now = 1000;
    expect(await ids.unknown([5])).toEqual([]);
    expect(s.reads).toEqual([5, 5]);
  });

  it('remembers at most maxMisses missing ids', async () => {
    const s = store(new Set());
    const ids = new CachedSchemaIds(s, 60_000, 3, () => 0);
    expect(await ids.unknown([1, 2, 3])).toEqual([1, 2, 3]);
    expect(await ids.unknown([4])).toEqual([4]); // the misses were cleared to hold it
    s.reads.length = 0;
    expect(await ids.unknown([1, 4])).toEqual([1, 4]);
    expect(s.reads).toEqual([1]); // 4 is remembered, 1 was forgotten
  });
});
