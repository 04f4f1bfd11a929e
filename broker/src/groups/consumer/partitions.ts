// Sets of topic partitions keyed by topic id, as ConsumerGroupHeartbeat
// carries them, and the set operations reconciliation needs.

/** topic id -> partition indexes */
export type Partitions = Map<string, Set<number>>;

export function fromWire(topics: Array<{ topicId: string; partitions: number[] }>): Partitions {
  const out: Partitions = new Map();
  for (const t of topics) {
    if (t.partitions.length === 0) continue;
    const s = out.get(t.topicId) ?? new Set<number>();
    for (const p of t.partitions) s.add(p);
    out.set(t.topicId, s);
  }
  return out;
}

export function toWire(p: Partitions): Array<{ topicId: string; partitions: number[] }> {
  return [...p].filter(([, s]) => s.size > 0).map(([topicId, s]) => ({ topicId, partitions: [...s].sort((a, b) => a - b) }));
}

export function size(p: Partitions): number {
  let n = 0;
  for (const s of p.values()) n += s.size;
  return n;
}

export function has(p: Partitions, topicId: string, partition: number): boolean {
  return p.get(topicId)?.has(partition) ?? false;
}

export function equal(a: Partitions, b: Partitions): boolean {
  return size(a) === size(b) && isSubset(a, b);
}

export function isSubset(a: Partitions, b: Partitions): boolean {
  for (const [t, s] of a) for (const p of s) if (!has(b, t, p)) return false;
  return true;
}

/** Partitions in both. */
export function intersects(a: Partitions, b: Partitions): boolean {
  for (const [t, s] of a) for (const p of s) if (has(b, t, p)) return true;
  return false;
}

export function* entries(p: Partitions): Generator<[string, number]> {
  for (const [t, s] of p) for (const x of s) yield [t, x];
}

export function copy(p: Partitions): Partitions {
  return new Map([...p].map(([t, s]) => [t, new Set(s)]));
}
