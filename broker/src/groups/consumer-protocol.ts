// Just enough of the consumer embedded protocol to learn which topics a
// consumer group subscribes to (ConsumerProtocolSubscription: OffsetDelete
// refuses those with GROUP_SUBSCRIBED_TO_TOPIC and offset expiry keeps them)
// and which partitions each member was assigned (ConsumerProtocolAssignment:
// `runnel status` and the web console show them); and, for classic members
// of a consumer-protocol group (KIP-848 online upgrade), their full
// subscription and the assignment their SyncGroup gets.

/** A bounds-checked reader over the embedded protocol bytes; any overrun throws. */
class Cursor {
  private o = 0;
  constructor(private readonly b: Buffer) {}
  /** Skips n bytes (n < 0: a null field, nothing to skip). */
  skip(n: number): void {
    if (n > 0 && this.o + n > this.b.length) throw new RangeError('bad bytes');
    if (n > 0) this.o += n;
  }
  int16(): number { const v = this.b.readInt16BE(this.o); this.o += 2; return v; }
  peekInt16(): number { return this.b.readInt16BE(this.o); }
  more(): boolean { return this.o < this.b.length; }
  int32(): number { const v = this.b.readInt32BE(this.o); this.o += 4; return v; }
  /** An array count: refused when negative or absurd. */
  count(): number {
    const n = this.int32();
    if (n < 0 || n > 1_000_000) throw new RangeError('bad count');
    return n;
  }
  string(): string {
    const len = this.int16();
    if (len < 0 || this.o + len > this.b.length) throw new RangeError('bad string');
    const s = this.b.toString('utf8', this.o, this.o + len);
    this.o += len;
    return s;
  }
}

/** Reads a message that starts with int16 version and an array; null when the bytes do not parse. */
function parse<T>(bytes: Buffer, item: (c: Cursor) => T): T[] | null {
  try {
    const c = new Cursor(bytes);
    if (c.int16() < 0) return null;
    return Array.from({ length: c.count() }, () => item(c));
  } catch {
    return null;
  }
}

/** Topics of one subscription, or null when the bytes do not parse. */
export function subscribedTopics(metadata: Buffer): string[] | null {
  return parse(metadata, (c) => c.string());
}

/**
 * Partitions of one member's assignment ([topic string, [partition int32]];
 * user data ignored), or null when the bytes do not parse (another protocol
 * type, e.g. Connect's).
 */
export function assignedPartitions(assignment: Buffer): Array<{ topic: string; partitions: number[] }> | null {
  return parse(assignment, (c) => ({ topic: c.string(), partitions: Array.from({ length: c.count() }, () => c.int32()) }));
}

/**
 * A classic member's ConsumerProtocolSubscription (v0: topics, user data; v1+:
 * owned partitions; v3+: rack), as a consumer-protocol group reads it when the
 * member joins through JoinGroup; null when the bytes do not parse.
 */
export function decodeSubscription(metadata: Buffer): { version: number; topics: string[]; owned: Array<{ topic: string; partitions: number[] }>; rackId: string | null } | null {
  try {
    const c = new Cursor(metadata);
    const version = c.int16();
    if (version < 0) return null;
    const topics = Array.from({ length: c.count() }, () => c.string());
    c.skip(c.int32()); // user data (nullable bytes)
    if (version < 1 || !c.more()) return { version, topics, owned: [], rackId: null };
    const owned = Array.from({ length: c.count() }, () => ({ topic: c.string(), partitions: Array.from({ length: c.count() }, () => c.int32()) }));
    if (version >= 2 && c.more()) c.int32(); // generation id
    let rackId: string | null = null;
    if (version >= 3 && c.more()) {
      const len = c.peekInt16();
      rackId = len < 0 ? (c.int16(), null) : c.string();
    }
    return { version, topics, owned, rackId };
  } catch {
    return null;
  }
}

/** ConsumerProtocolAssignment at `version` (0-3 share one layout): the partitions by topic name, no user data. */
export function encodeAssignment(version: number, partitions: Array<{ topic: string; partitions: number[] }>): Buffer {
  const parts: Buffer[] = [];
  const int16 = (n: number) => { const b = Buffer.alloc(2); b.writeInt16BE(n); parts.push(b); };
  const int32 = (n: number) => { const b = Buffer.alloc(4); b.writeInt32BE(n); parts.push(b); };
  int16(Math.max(0, Math.min(version, 3)));
  int32(partitions.length);
  for (const t of partitions) {
    const name = Buffer.from(t.topic, 'utf8');
    int16(name.length);
    parts.push(name);
    int32(t.partitions.length);
    for (const p of t.partitions) int32(p);
  }
  int32(-1); // user data: null
  return Buffer.concat(parts);
}
