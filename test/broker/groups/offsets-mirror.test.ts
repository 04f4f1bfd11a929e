// The __consumer_offsets mirror over the real LogManager and an in-memory
// store: records land in the group's slot partition, stamped with the slot's
// coordinator epoch; a stale coordinator is fenced and the commit unaffected.
import { describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../../broker/src/config/config.js';
import { LogManager, type LeadershipView } from '../../../broker/src/log/log-manager.js';
import { OFFSETS_TOPIC } from '../../../broker/src/log/internal-topics.js';
import { OffsetsTopicMirror } from '../../../broker/src/groups/offsets-mirror.js';
import { decodeOffsetCommitKey, decodeOffsetCommitValue } from '../../../broker/src/groups/offsets-records.js';
import { createLogger, type Logger } from '../../../common/logger/logger.js';
import { forEachRecord } from '../../../common/record-batch/rebuild.js';
import { MemoryLogStore } from '../support/memory-log-store.js';

const SLOTS = 5;
const leadingWith = (epoch: number): LeadershipView => ({ leads: () => true, claim: async () => true, coordinatorEpoch: () => epoch });

function manager(store: MemoryLogStore, epoch: number): LogManager {
  return new LogManager(store, loadBrokerConfig([], {}), { leadership: leadingWith(epoch) });
}

describe('OffsetsTopicMirror', () => {
  it('appends commits to the slot partition with the coordinator epoch, removals as tombstones', async () => {
    const store = new MemoryLogStore();
    const log = manager(store, 3);
    expect((await log.ensureOffsetsTopic(SLOTS)).configs).toEqual({ 'cleanup.policy': 'compact' });
    const mirror = new OffsetsTopicMirror(log, () => 2, createLogger('error', 'test'), () => 777);
    await mirror.committed('g', new Map([['t/0', { offset: 9, leaderEpoch: 4, metadata: 'x', commitTimestamp: 555 }]]));
    await mirror.removed('g', ['t/0']);
    const p = await log.partition(OFFSETS_TOPIC, 2);
    expect(p.leaderEpoch).toBe(3);
    const batches = await p.read(0, 1 << 20);
    expect(batches).toHaveLength(2);
    expect(batches.map((b) => b.bytes.readInt32BE(12))).toEqual([3, 3]); // partitionLeaderEpoch = coordinator epoch
    const recs: Array<{ key: Buffer | null; tombstone: boolean }> = [];
    for (const b of batches) forEachRecord(b.bytes, (r) => recs.push({ key: r.key, tombstone: r.tombstone }));
    expect(recs.map((r) => [decodeOffsetCommitKey(r.key!), r.tombstone])).toEqual([
      [{ group: 'g', topic: 't', partition: 0 }, false], [{ group: 'g', topic: 't', partition: 0 }, true],
    ]);
    // The only record's value (25 bytes) ends the batch, followed by its header count (varint 0).
    const first = batches[0]!.bytes;
    const value = first.subarray(first.length - 26, first.length - 1);
    expect(decodeOffsetCommitValue(value)).toEqual({ offset: 9, leaderEpoch: 4, metadata: 'x', commitTimestamp: 555 });
  });

  it('a stale coordinator is fenced: nothing appended, the failure logged, no exception', async () => {
    const store = new MemoryLogStore();
    const fresh = manager(store, 5);
    await fresh.ensureOffsetsTopic(SLOTS);
    await new OffsetsTopicMirror(fresh, () => 1, createLogger('error', 'test')).committed('g', new Map([['t/0', { offset: 1, leaderEpoch: -1, metadata: '', commitTimestamp: 1 }]]));
    const stale = manager(store, 4);
    await stale.ensureOffsetsTopic(SLOTS);
    const warnings: string[] = [];
    const logger = { ...createLogger('error', 'test'), warn: (msg: string) => warnings.push(msg) } as Logger;
    await new OffsetsTopicMirror(stale, () => 1, logger).committed('g', new Map([['t/0', { offset: 2, leaderEpoch: -1, metadata: '', commitTimestamp: 2 }]]));
    expect(warnings).toEqual(['offset commit not mirrored to __consumer_offsets']);
    const p = await fresh.partition(OFFSETS_TOPIC, 1);
    p.invalidate();
    expect(await p.read(0, 1 << 20)).toHaveLength(1);
  });
});
