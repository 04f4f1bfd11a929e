// Just enough of the consumer embedded protocol (ConsumerProtocolSubscription)
// to learn which topics a consumer group subscribes to: OffsetDelete refuses
// those (GROUP_SUBSCRIBED_TO_TOPIC) and offset expiry keeps them.

/** Topics of one subscription, or null when the bytes do not parse. */
export function subscribedTopics(metadata: Buffer): string[] | null {
  try {
    let o = 0;
    const version = metadata.readInt16BE(o); o += 2;
    if (version < 0) return null;
    const n = metadata.readInt32BE(o); o += 4;
    if (n < 0 || n > 1_000_000) return null;
    const topics: string[] = [];
    for (let i = 0; i < n; i++) {
      const len = metadata.readInt16BE(o); o += 2;
      if (len < 0 || o + len > metadata.length) return null;
      topics.push(metadata.toString('utf8', o, o + len)); o += len;
    }
    return topics;
  } catch {
    return null;
  }
}

/**
 * Partitions of one member's assignment (ConsumerProtocolAssignment: int16
 * version, then [topic string, [partition int32]]; user data ignored), or null
 * when the bytes do not parse (another protocol type, e.g. Connect's).
 */
export function assignedPartitions(assignment: Buffer): Array<{ topic: string; partitions: number[] }> | null {
  try {
    let o = 0;
    const version = assignment.readInt16BE(o); o += 2;
    if (version < 0) return null;
    const n = assignment.readInt32BE(o); o += 4;
    if (n < 0 || n > 1_000_000) return null;
    const out: Array<{ topic: string; partitions: number[] }> = [];
    for (let i = 0; i < n; i++) {
      const len = assignment.readInt16BE(o); o += 2;
      if (len < 0 || o + len > assignment.length) return null;
      const topic = assignment.toString('utf8', o, o + len); o += len;
      const count = assignment.readInt32BE(o); o += 4;
      if (count < 0 || o + 4 * count > assignment.length) return null;
      const partitions: number[] = [];
      for (let j = 0; j < count; j++) { partitions.push(assignment.readInt32BE(o)); o += 4; }
      out.push({ topic, partitions });
    }
    return out;
  } catch {
    return null;
  }
}
