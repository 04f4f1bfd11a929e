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
