// Rendezvous (highest-random-weight) hashing: each key goes to the node with
// the highest hash(key, node). Adding or removing a node moves only the keys
// that node wins or held, so leadership shifts gradually.
import { createHash } from 'node:crypto';

function weight(key: string, node: number): number {
  return createHash('sha1').update(`${key}\u0000${node}`).digest().readUInt32BE(0);
}

export function rendezvous(key: string, nodes: number[]): number | null {
  let best: number | null = null;
  let bestWeight = -1;
  for (const n of nodes) {
    const w = weight(key, n);
    if (w > bestWeight || (w === bestWeight && best !== null && n < best)) {
      best = n;
      bestWeight = w;
    }
  }
  return best;
}
