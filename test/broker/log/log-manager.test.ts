// LogManager's side of leadership, given at construction: the partitions it
// offers as lease units, the takeover of one (leader epoch bumped, partition
// reloaded under it), the leadership it asks before serving a partition; and
// the store reads handlers make through it (producer ids, partition sizes).
import { describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../../broker/src/config/config.js';
import { LogManager, type LeaderEpochs, type LeadershipView } from '../../../broker/src/log/log-manager.js';
import { OFFSETS_TOPIC } from '../../../broker/src/log/internal-topics.js';
import type { LeaseUnit } from '../../../broker/src/storage/cluster-store.js';
import { ErrorCode, KafkaError } from '../../../common/errors.js';
import { MemoryLogStore } from '../support/memory-log-store.js';

const config = loadBrokerConfig([], {});

/** Leader epochs in memory, with the calls made. */
function memoryEpochs(): LeaderEpochs & { calls: string[] } {
  const epochs = new Map<string, number>();
  const history = new Map<string, Map<number, number>>();
  const calls: string[] = [];
  return {
    calls,
    async bumpLeaderEpoch(t, p) { const e = (epochs.get(`${t}/${p}`) ?? 0) + 1; epochs.set(`${t}/${p}`, e); calls.push(`bump ${t}/${p} -> ${e}`); return e; },
    async recordEpochStart(t, p, e, o) { calls.push(`start ${t}/${p} ${e}@${o}`); history.set(`${t}/${p}`, new Map([...(history.get(`${t}/${p}`) ?? []), [e, o]])); },
    async epochHistory(t, p) { return history.get(`${t}/${p}`) ?? new Map(); },
  };
}

const leadingNothing: LeadershipView = { leads: () => false, claim: async () => false, coordinatorEpoch: () => null };

describe('LogManager', () => {
  it('offers every partition of its topics as a lease unit, leaving out internal and quarantined topics', async () => {
    const store = new MemoryLogStore();
    const log = new LogManager(store, config);
    await log.createTopic('a', 2, {});
    await log.ensureOffsetsTopic(3);
    await store.createTopic({ name: 'bomb', id: 'bomb-id', partitions: config.topicMaxPartitions + 1, configs: {}, created: 0 });
    const units: LeaseUnit[] = await log.partitionUnits();
    expect(units).toEqual([{ kind: 'partition', topic: 'a', partition: 0 }, { kind: 'partition', topic: 'a', partition: 1 }]);
    expect(units.some((u) => u.kind === 'partition' && (u.topic === OFFSETS_TOPIC || u.topic === 'bomb'))).toBe(false);
  });

  it('takes a partition over under a freshly bumped leader epoch, recording where that epoch starts', async () => {
    const store = new MemoryLogStore();
    const epochs = memoryEpochs();
    const log = new LogManager(store, config, { epochs });
    const t = await log.createTopic('a', 1, {});
    await log.takeLeadership('a', 0);
    await log.takeLeadership('a', 0);
    expect(epochs.calls).toEqual(['bump a/0 -> 1', 'start a/0 1@0', 'bump a/0 -> 2', 'start a/0 2@0']);
    expect(log.partitionOf(t, 0).leaderEpoch).toBe(2);
    // A topic deleted meanwhile: no epoch is bumped for it.
    await expect(log.takeLeadership('gone', 0)).rejects.toThrow('topic gone vanished');
    expect(epochs.calls).toHaveLength(4);
  });

  it('serves a partition only while the leadership it was built with says this broker leads it', async () => {
    const store = new MemoryLogStore();
    await new LogManager(store, config).createTopic('a', 1, {});
    const log = new LogManager(store, config, { leadership: leadingNothing });
    expect(log.leadership).toBe(leadingNothing);
    await expect(log.partition('a', 0)).rejects.toThrow(KafkaError);
    await expect(log.partition('a', 0)).rejects.toMatchObject({ code: ErrorCode.NOT_LEADER_OR_FOLLOWER });
  });

  it('hands out producer ids and partition sizes from its store', async () => {
    const store = new MemoryLogStore();
    const log = new LogManager(store, config);
    expect([await log.nextProducerId(), await log.nextProducerId()]).toEqual([1, 2]);
    expect(await log.sizeBytes({ topic: 'a', partition: 0 })).toBe(await store.sizeBytes({ topic: 'a', partition: 0 }));
  });
});
