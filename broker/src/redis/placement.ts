// Even placement of partitions over Redis Cluster primaries. A partition's
// keys share one hash tag, so its slot, and so its shard, follows from the
// tag. Redis would spread `{topic/p}` tags only statistically (a 6-partition
// topic on 3 primaries often lands 3-2-1 or 4-1-1); instead each new partition
// gets the smallest salt whose tag `{topic/p/salt}` hashes to a slot owned by
// the primary that holds the fewest partitions of this topic (ties: fewest
// partitions overall, then node order). The salt is stored with the topic and
// never changes, so resharding later moves the partition with its slot.
import calculateSlot from 'cluster-key-slot';
import { partitionTag } from './keys.js';

/** Salts tried per partition before settling for the best found (3 primaries: ~3 tries on average). */
const MAX_SALT = 4096;

export const slotOfTag = (tag: string): number => calculateSlot(tag);

export interface PlacementInput {
  topic: string;
  /** Salts of the partitions that exist already (kept), index = partition. */
  existing: readonly number[];
  /** Partition count wanted; partitions existing.length..total-1 are placed. */
  total: number;
  /** Current primary of a slot ("host:port"), null when unknown. */
  ownerOf(slot: number): string | null;
  /** Every primary, in a stable order. */
  primaries: readonly string[];
  /** Partitions per primary over all other topics (for ties). */
  load: ReadonlyMap<string, number>;
}

/** Salts for partitions 0..total-1: the existing ones unchanged, new ones chosen for balance. */
export function placePartitions(input: PlacementInput): number[] {
  const { topic, ownerOf, primaries } = input;
  const salts = [...input.existing];
  const inTopic = new Map<string, number>(primaries.map((n) => [n, 0]));
  const overall = new Map<string, number>(primaries.map((n) => [n, input.load.get(n) ?? 0]));
  for (let p = 0; p < salts.length; p++) {
    const owner = ownerOf(slotOfTag(partitionTag(topic, p, salts[p]!)));
    if (owner && inTopic.has(owner)) inTopic.set(owner, inTopic.get(owner)! + 1);
  }
  const rank = (n: string): [number, number, number] => [inTopic.get(n)!, overall.get(n)!, primaries.indexOf(n)];
  const less = (a: [number, number, number], b: [number, number, number]): boolean => a[0] !== b[0] ? a[0] < b[0] : a[1] !== b[1] ? a[1] < b[1] : a[2] < b[2];
  for (let p = salts.length; p < input.total; p++) {
    let target = primaries[0]!;
    for (const n of primaries) if (less(rank(n), rank(target))) target = n;
    let chosen = 0;
    for (let salt = 0; salt < MAX_SALT; salt++) {
      if (ownerOf(slotOfTag(partitionTag(topic, p, salt))) === target) {
        chosen = salt;
        break;
      }
    }
    salts.push(chosen);
    const owner = ownerOf(slotOfTag(partitionTag(topic, p, chosen)));
    if (owner && inTopic.has(owner)) {
      inTopic.set(owner, inTopic.get(owner)! + 1);
      overall.set(owner, overall.get(owner)! + 1);
    }
  }
  return salts;
}
