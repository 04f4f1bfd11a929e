import { describe, expect, it } from 'vitest';
import { placePartitions, slotOfTag } from '../../../broker/src/redis/placement.js';
import { partitionTag } from '../../../common/keys.js';

// The slot split of `redis-cli --cluster create` with 3 primaries.
const three = ['a:1', 'b:2', 'c:3'];
const ownerOf3 = (slot: number): string => (slot <= 5460 ? 'a:1' : slot <= 10922 ? 'b:2' : 'c:3');

function spread(topic: string, salts: number[], ownerOf: (s: number) => string | null): Map<string, number> {
  const m = new Map<string, number>();
  salts.forEach((s, p) => {
    const o = ownerOf(slotOfTag(partitionTag(topic, p, s)))!;
    m.set(o, (m.get(o) ?? 0) + 1);
  });
  return m;
}

describe('placePartitions', () => {
  it.each([1, 6, 16, 48])('spreads a %i-partition topic within one partition of an even share', (n) => {
    const salts = placePartitions({ topic: `t${n}`, existing: [], total: n, ownerOf: ownerOf3, primaries: three, load: new Map() });
    expect(salts).toHaveLength(n);
    const counts = spread(`t${n}`, salts, ownerOf3);
    for (const node of three) {
      const c = counts.get(node) ?? 0;
      expect(Math.abs(c - n / 3)).toBeLessThan(1);
    }
  });

  it('keeps existing salts and places only the new partitions', () => {
    const first = placePartitions({ topic: 'grow', existing: [], total: 4, ownerOf: ownerOf3, primaries: three, load: new Map() });
    const grown = placePartitions({ topic: 'grow', existing: first, total: 9, ownerOf: ownerOf3, primaries: three, load: new Map() });
    expect(grown.slice(0, 4)).toEqual(first);
    expect([...spread('grow', grown, ownerOf3).values()].sort()).toEqual([3, 3, 3]);
  });

  it('breaks ties toward the primary with the fewest partitions overall', () => {
    const salts = placePartitions({ topic: 'one', existing: [], total: 1, ownerOf: ownerOf3, primaries: three, load: new Map([['a:1', 5], ['b:2', 1], ['c:3', 5]]) });
    expect(ownerOf3(slotOfTag(partitionTag('one', 0, salts[0]!)))).toBe('b:2');
  });

  it('uses the plain tag (salt 0) when it already lands on the chosen primary', () => {
    const target = ownerOf3(slotOfTag(partitionTag('x', 0, 0)));
    const load = new Map(three.map((n) => [n, n === target ? 0 : 1]));
    expect(placePartitions({ topic: 'x', existing: [], total: 1, ownerOf: ownerOf3, primaries: three, load })).toEqual([0]);
  });
});
