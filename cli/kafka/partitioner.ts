// Kafka's default partitioning: a keyed record goes to
// toPositive(murmur2(key)) % partitions (Utils.murmur2, seed 0x9747b28c), so a
// key lands where the Java client would put it; records without a key stick
// to one partition per batch (the sticky partitioner, KIP-480).

/** Kafka's Utils.murmur2 over `data[start, end)` (a signed 32-bit result). */
export function murmur2(data: Uint8Array, start = 0, end = data.length): number {
  const length = end - start;
  const m = 0x5bd1e995;
  let h = (0x9747b28c ^ length) | 0;
  const length4 = length >> 2;
  for (let i = 0; i < length4; i++) {
    const i4 = start + i * 4;
    let k = data[i4]! | (data[i4 + 1]! << 8) | (data[i4 + 2]! << 16) | (data[i4 + 3]! << 24);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m) ^ k;
  }
  const tail = start + (length & ~3);
  const rest = length % 4;
  if (rest === 3) h ^= data[tail + 2]! << 16;
  if (rest >= 2) h ^= data[tail + 1]! << 8;
  if (rest >= 1) h = Math.imul(h ^ data[tail]!, m);
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

/** The partition of a keyed record, as Kafka's BuiltInPartitioner.partitionForKey. */
export function partitionForKey(key: Uint8Array, start: number, end: number, partitions: number): number {
  return (murmur2(key, start, end) & 0x7fffffff) % partitions;
}
