// Consumer-group lag as computed at scrape time: the high watermark where this
// broker leads the partition, the stored log end elsewhere, bounded per scrape.
import { describe, expect, it } from 'vitest';
import { groupLag } from '../../../broker/src/http/broker-metrics.js';
import type { BrokerServices } from '../../../broker/src/handlers/support/types.js';
import { buildBatch } from '../../helpers/batches.js';

function services(offsets: Record<string, Array<{ topic: string; partition: number; offset: number }>>): BrokerServices {
  const lastBatch = buildBatch([{ key: null, value: Buffer.from('a') }, { key: null, value: Buffer.from('b') }]); // lastOffsetDelta 1
  const fake = {
    groups: {
      listGroups: async () => Object.keys(offsets).map((groupId) => ({ groupId, protocolType: 'consumer', state: 'Empty' })),
      fetchOffsets: async (g: string) => offsets[g]!.map((o) => ({ ...o, leaderEpoch: -1, metadata: '', errorCode: 0 })),
    },
    cluster: { leads: (u: { topic: string }) => u.topic === 'here' },
    log: {
      cachedTopic: (t: string) => (t === 'gone' ? undefined : { name: t }),
      cachedPartition: (t: string, p: number) => (t === 'here' ? { ready: true, unit: { kind: 'partition', topic: t, partition: p }, highWatermark: 100 } : undefined),
      tail: async (tp: { topic: string }) => (tp.topic === 'elsewhere'
        ? { last: null, nextOffset: 50, logStartOffset: 0 }
        : { last: { baseOffset: 20, bytes: lastBatch }, nextOffset: null, logStartOffset: 0 }),
    },
  };
  return fake as unknown as BrokerServices;
}

describe('consumer-group lag', () => {
  it('is the partition end minus the committed offset; unknown topics and uncommitted partitions are left out', async () => {
    const b = services({
      g1: [{ topic: 'here', partition: 0, offset: 90 }, { topic: 'elsewhere', partition: 1, offset: 45 }, { topic: 'derived', partition: 0, offset: 10 }],
      g2: [{ topic: 'gone', partition: 0, offset: 3 }, { topic: 'here', partition: 0, offset: -1 }, { topic: 'here', partition: 0, offset: 120 }],
    });
    const r = await groupLag(b, 100);
    expect(r.truncated).toBe(0);
    expect(r.samples).toEqual([
      { labels: { group: 'g1', topic: 'here', partition: 0 }, value: 10 },
      { labels: { group: 'g1', topic: 'elsewhere', partition: 1 }, value: 5 },
      // no stored end: the last batch's base offset + lastOffsetDelta + 1 = 22
      { labels: { group: 'g1', topic: 'derived', partition: 0 }, value: 12 },
      // a committed offset past the end (the log was truncated) is lag 0, not negative
      { labels: { group: 'g2', topic: 'here', partition: 0 }, value: 0 },
    ]);
  });

  it('stops at the per-scrape bound and counts what it left out', async () => {
    const many = Array.from({ length: 7 }, (_, i) => ({ topic: 'here', partition: i, offset: 1 }));
    const r = await groupLag(services({ g: many }), 5);
    expect(r.samples).toHaveLength(5);
    expect(r.truncated).toBe(2);
  });
});
