// Kafka's murmur2 and default key partitioning: the values of Kafka's own
// UtilsTest.testMurmur2, so keyed records land where the Java client puts them.
import { describe, expect, it } from 'vitest';
import { murmur2, partitionForKey } from '../../../cli/kafka/partitioner.js';

const b = (s: string): Buffer => Buffer.from(s, 'utf8');

describe('murmur2', () => {
  it('matches the Java client for keys of every length modulo 4', () => {
    const cases: Array<[string, number]> = [
      ['21', -973932308],
      ['foobar', -790332482],
      ['a-little-bit-long-string', -985981536],
      ['a-little-bit-longer-string', -1486304829],
      ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
      ['abc', 479470107],
    ];
    for (const [k, h] of cases) expect(murmur2(b(k)), k).toBe(h);
  });

  it('hashes a slice like the same bytes on their own', () => {
    const buf = b('xxfoobaryy');
    expect(murmur2(buf, 2, 8)).toBe(murmur2(b('foobar')));
  });

  it('partitions as toPositive(murmur2) % n', () => {
    expect(partitionForKey(b('foobar'), 0, 6, 7)).toBe((-790332482 & 0x7fffffff) % 7);
    const seen = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const k = b(`key-${i}`);
      const p = partitionForKey(k, 0, k.length, 6);
      expect(p).toBeGreaterThanOrEqual(0);
      expect(p).toBeLessThan(6);
      seen.add(p);
    }
    expect(seen.size).toBe(6);
  });
});
