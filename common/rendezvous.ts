// Rendezvous (highest-random-weight) hashing: each item goes to the candidate
// with the highest weight(item, candidate). Adding or removing a candidate
// moves only the items that candidate wins or held, so work shifts gradually.
// The broker deals partition and coordinator-slot leadership over live brokers
// with it, the archiver partitions over live archivers.
//
// Each process kind keeps its own hash input (order of the pair and weight
// width, below): every process of a kind must compute the same owner, also
// during a rolling upgrade, so neither may change.
import { createHash } from 'node:crypto';

/** The weight of a pair: the first 8 bytes of SHA-1(`<first>\0<second>`), big-endian. */
export function pairWeight(first: string, second: string): bigint {
  return createHash('sha1').update(first).update('\0').update(second).digest().readBigUInt64BE(0);
}

/** The candidate with the highest weight; a tie goes to the smaller candidate; undefined when there are none. */
export function highestWeight<T extends string | number>(candidates: Iterable<T>, weight: (c: T) => bigint): T | undefined {
  let best: T | undefined;
  let bestWeight = -1n;
  for (const c of candidates) {
    const w = weight(c);
    if (w > bestWeight || (w === bestWeight && best !== undefined && c < best)) {
      best = c;
      bestWeight = w;
    }
  }
  return best;
}

/** Broker leadership: the node for a lease unit key, weighed by the first 4 bytes of SHA-1(`<key>\0<node>`). */
export function rendezvousNode(key: string, nodes: Iterable<number>): number | null {
  return highestWeight(nodes, (n) => pairWeight(key, String(n)) >> 32n) ?? null;
}

/** Archiver assignment: the member for an item (`<topic>/<partition>`), weighed by SHA-1(`<member>\0<item>`). */
export function rendezvousMember(members: Iterable<string>, item: string): string | undefined {
  return highestWeight(members, (m) => pairWeight(m, item));
}
