// The latest offset of every key in the part of the log a compaction pass
// cleans (Kafka's cleaner OffsetMap). Its size is bounded: when it is full the
// pass cleans only up to where it got, and the next pass continues.
import { createHash } from 'node:crypto';

/** Keys up to this many bytes are stored as they are; longer ones by their MD5 digest, as Kafka's map does. */
const EXACT_KEY_BYTES = 16;

export class KeyOffsetMap {
  private readonly map = new Map<string, number>();

  constructor(readonly capacity: number) {}

  get size(): number { return this.map.size; }

  /** True once the map holds `capacity` keys. */
  get full(): boolean { return this.map.size >= this.capacity; }

  put(key: Buffer, offset: number): void {
    this.map.set(mapKey(key), offset);
  }

  get(key: Buffer): number | undefined {
    return this.map.get(mapKey(key));
  }
}

function mapKey(key: Buffer): string {
  // The first character keeps exact keys and digests apart.
  return key.length <= EXACT_KEY_BYTES ? `=${key.toString('latin1')}` : `#${createHash('md5').update(key).digest().toString('latin1')}`;
}
