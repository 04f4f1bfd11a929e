import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../common/errors.js';
import { guardStoredTopic, partitionLimitError, quarantinedCount, usablePartitionCount } from '../../../broker/src/topics/partition-limits.js';

const cfg = { topicMaxPartitions: 100, clusterMaxPartitions: 250 };

describe('partition limits', () => {
  it('refuses a topic past topic.max.partitions or a cluster past cluster.max.partitions with POLICY_VIOLATION', () => {
    expect(partitionLimitError(cfg, 't', 100, 100, 150)).toBeNull();
    expect(partitionLimitError(cfg, 't', 101, 101, 0)?.code).toBe(ErrorCode.POLICY_VIOLATION);
    expect(partitionLimitError(cfg, 't', 100, 100, 151)?.message).toMatch(/cluster\.max\.partitions=250/);
    expect(partitionLimitError(cfg, 't', 60, 10, 240)).toBeNull();
  });

  it('quarantines stored records whose count is not an integer in 1..topic.max.partitions', () => {
    for (const bad of [2147483647, 0, -3, 1.5, '7' as unknown as number, null as unknown as number]) {
      expect(usablePartitionCount(bad, cfg)).toBe(false);
      const q = guardStoredTopic({ name: `bad-${String(bad)}`, id: `id-${String(bad)}`, partitions: bad, configs: {}, created: 0 }, cfg);
      expect(q.partitions).toBe(0);
      expect(quarantinedCount(q)).not.toBeNull();
    }
    const good = { name: 'good', id: 'g', partitions: 100, configs: {}, created: 0 };
    expect(guardStoredTopic(good, cfg)).toBe(good);
    expect(quarantinedCount(good)).toBeNull();
  });
});
