// common/rendezvous.ts: one highest-random-weight engine; the broker's and the
// archiver's hash inputs stay what running processes of each kind agree on.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { highestWeight, rendezvousMember, rendezvousNode } from '../../common/rendezvous.js';

const sha1 = (s: string): Buffer => createHash('sha1').update(s).digest();

describe('rendezvous hashing', () => {
  it('a broker unit goes to the node with the largest first 4 bytes of SHA-1(<key>\\0<node>)', () => {
    for (let i = 0; i < 200; i++) {
      const key = `p:t/${i}`;
      const nodes = [1, 2, 3, 4, 5];
      const byHand = [...nodes].sort((a, b) => sha1(`${key}\0${b}`).readUInt32BE(0) - sha1(`${key}\0${a}`).readUInt32BE(0))[0];
      expect(rendezvousNode(key, nodes)).toBe(byHand);
    }
    expect(rendezvousNode('p:t/0', [])).toBeNull();
  });

  it('an archiver partition goes to the member with the largest first 8 bytes of SHA-1(<member>\\0<item>)', () => {
    const members = ['a', 'b', 'c'];
    const counts = new Map<string, number>();
    for (let p = 0; p < 300; p++) {
      const item = `t/${p}`;
      const w = (m: string): bigint => sha1(`${m}\0${item}`).readBigUInt64BE(0);
      const byHand = [...members].sort((x, y) => (w(y) > w(x) ? 1 : w(y) < w(x) ? -1 : 0))[0];
      const owner = rendezvousMember(members, item)!;
      expect(owner).toBe(byHand);
      counts.set(owner, (counts.get(owner) ?? 0) + 1);
    }
    for (const m of members) expect(counts.get(m)!).toBeGreaterThan(60); // spread evenly
    expect(rendezvousMember([], 't/0')).toBeUndefined();
  });

  it('a tie goes to the smaller candidate, whatever the order given', () => {
    expect(highestWeight([3, 1, 2], () => 7n)).toBe(1);
    expect(highestWeight(['b', 'c', 'a'], (m) => (m === 'a' ? 1n : 5n))).toBe('b');
  });
});
