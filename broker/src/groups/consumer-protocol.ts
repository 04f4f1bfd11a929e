// Just enough of the consumer embedded protocol to learn which topics a
// consumer group subscribes to (ConsumerProtocolSubscription: OffsetDelete
// refuses those with GROUP_SUBSCRIBED_TO_TOPIC and offset expiry keeps them)
// and which partitions each member was assigned (ConsumerProtocolAssignment:
// `runnel status` and the web console show them).

/** A bounds-checked reader over the embedded protocol bytes; any overrun throws. */
class Cursor {
  private o = 0;
  constructor(private readonly b: Buffer) {}
  int16(): number { const v = this.b.readInt16BE(this.o); this.o += 2; return v; }
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
