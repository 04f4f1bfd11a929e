// Splitting many keys into script calls: every key of one call must be in one
// hash slot on a Redis Cluster, and one call should not hold the server long.
import calculateSlot from 'cluster-key-slot';

/**
 * The indexes 0..count-1, grouped into calls of at most `size`: all in one
 * group on a single node, one group per hash slot of `keyOf(i)` when `perSlot`.
 * Order within a call follows the index.
 */
export function slotChunks(count: number, keyOf: (i: number) => string, perSlot: boolean, size: number): number[][] {
  const groups = new Map<number, number[]>();
  for (let i = 0; i < count; i++) {
    const g = perSlot ? calculateSlot(keyOf(i)) : 0;
    let idx = groups.get(g);
    if (!idx) groups.set(g, (idx = []));
    idx.push(i);
  }
  const out: number[][] = [];
  for (const idx of groups.values()) for (let at = 0; at < idx.length; at += size) out.push(idx.slice(at, at + size));
  return out;
}
