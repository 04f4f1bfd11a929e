import { describe, expect, it } from 'vitest';
import { SharePartitions } from '../../../../broker/src/groups/share/share-partitions.js';
import { FencedStateEpochError } from '../../../../broker/src/groups/share/share-store.js';
import { AckType, type ShareLimits } from '../../../../broker/src/groups/share/share-partition.js';
import { MemoryShareStore } from '../../support/memory-share-store.js';
import { FakeClock } from '../../support/fake-clock.js';

const key = { groupId: 'g', topicId: 't', partition: 0 };
const limits: ShareLimits = { lockMs: 1000, deliveryLimit: 5, maxLocks: 100 };

describe('SharePartitions', () => {
  it('a share-partition without state starts at the initial offset and is saved at once (a restart keeps that start)', async () => {
    const store = new MemoryShareStore();
    const parts = new SharePartitions(store, new FakeClock());
    await parts.run(key, 0, () => 42, async () => ({ value: undefined, changed: false }));
    expect((await store.read(key))?.startOffset).toBe(42);
    // Another broker (or a restart) loads it: the initial offset is not asked again.
    const other = new SharePartitions(store, new FakeClock());
    expect(await other.run(key, 0, () => 99, async (sp) => ({ value: sp.startOffset, changed: false }))).toBe(42);
  });

  it('operations on one share-partition run one at a time, each saved before the next', async () => {
    const store = new MemoryShareStore();
    const parts = new SharePartitions(store, new FakeClock());
    const order: string[] = [];
    const slow = parts.run(key, 0, () => 0, async (sp) => {
      await new Promise((r) => setTimeout(r, 20));
      order.push('acquire');
      return { value: sp.acquire('m', 0, 4, 10, 0, limits), changed: true };
    });
    const ack = parts.run(key, 0, () => 0, async (sp) => {
      order.push('ack');
      return { value: sp.acknowledge('m', [{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [AckType.ACCEPT] }], 0, limits), changed: true };
    });
    expect(await slow).toEqual([{ firstOffset: 0, lastOffset: 4, deliveryCount: 1 }]);
    expect((await ack).errorCode).toBe(0);
    expect(order).toEqual(['acquire', 'ack']);
    expect((await store.read(key))?.startOffset).toBe(5);
  });

  it('an administrative reset in between: the stale write is refused and the operation runs again on the reset state', async () => {
    const store = new MemoryShareStore();
    const parts = new SharePartitions(store, new FakeClock());
    await parts.run(key, 0, () => 0, async (sp) => ({ value: sp.acquire('m', 0, 9, 10, 0, limits), changed: true }));
    await store.overwrite(key, { startOffset: 100, endOffset: 100, runs: [] });
    const got = await parts.run(key, 0, () => 0, async (sp) => ({ value: sp.acquire('m', 100, 101, 10, 0, limits), changed: true }));
    expect(got).toEqual([{ firstOffset: 100, lastOffset: 101, deliveryCount: 1 }]);
    expect(await store.read(key)).toMatchObject({ startOffset: 100, endOffset: 102 });
  });

  it('a fenced leader gets NOT_LEADER_OR_FOLLOWER and keeps nothing cached', async () => {
    const store = new MemoryShareStore();
    const old = new SharePartitions(store, new FakeClock());
    await old.run(key, 1, () => 0, async (sp) => ({ value: sp.acquire('m', 0, 0, 1, 0, limits), changed: true }));
    await store.load(key, 2); // a new leader took the partition over
    await expect(old.run(key, 1, () => 0, async (sp) => ({ value: sp.acquire('m', 1, 1, 1, 0, limits), changed: true }))).rejects.toBeInstanceOf(FencedStateEpochError);
    expect(await store.read(key)).toMatchObject({ endOffset: 1 });
  });
});

describe('SharePartitions across a restart', () => {
  it('acquired records stay with their holder until the lock deadline; acknowledged ones stay done', async () => {
    const store = new MemoryShareStore();
    const before = new SharePartitions(store, new FakeClock());
    await before.run(key, 0, () => 0, async (sp) => ({ value: sp.acquire('m1', 0, 9, 10, 1_000, limits), changed: true }));
    await before.run(key, 0, () => 0, async (sp) => ({ value: sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [AckType.ACCEPT] }], 1_000, limits), changed: true }));
    // A new broker process: nothing in memory, the same store.
    const after = new SharePartitions(store, new FakeClock());
    const early = await after.run(key, 0, () => 0, async (sp) => ({ value: { from: sp.nextFetchOffset(), got: sp.acquire('m2', sp.nextFetchOffset(), 9, 10, 1_500, limits) }, changed: false }));
    expect(early).toEqual({ from: 10, got: [] });
    const late = await after.run(key, 0, () => 0, async (sp) => {
      sp.expireLocks(2_000, limits);
      return { value: sp.acquire('m2', sp.nextFetchOffset(), 9, 10, 2_000, limits), changed: true };
    });
    expect(late).toEqual([{ firstOffset: 5, lastOffset: 9, deliveryCount: 2 }]);
  });

  it('a share-partition unused for the idle time leaves memory; the next operation reloads it from the store, acquired records and their locks included', async () => {
    const store = new MemoryShareStore();
    const clock = new FakeClock();
    const parts = new SharePartitions(store, clock, 60_000);
    const other = { ...key, partition: 1 };
    const got = await parts.run(key, 0, () => 0, async (sp) => ({ value: sp.acquire('m', 0, 4, 10, clock.now(), limits), changed: true }));
    expect(got.length).toBeGreaterThan(0);
    const deadline = await parts.run(key, 0, () => 0, async (sp) => ({ value: sp.nextLockDeadline(), changed: false }));
    expect(deadline).toBe(clock.now() + limits.lockMs);
    await parts.run(other, 0, () => 0, async () => ({ value: undefined, changed: false }));
    expect(parts.size).toBe(2);
    // A busy share-partition stays while an idle one goes.
    await clock.advance(59_000);
    await parts.run(other, 0, () => 0, async () => ({ value: undefined, changed: false }));
    await clock.advance(16_000);
    await parts.run(other, 0, () => 0, async () => ({ value: undefined, changed: false }));
    expect(parts.size).toBe(1);
    // Reloaded from the store, not started again at the initial offset: the records are still acquired under the same lock deadline.
    const reloaded = await parts.run(key, 0, () => 99, async (sp) => ({ value: { deadline: sp.nextLockDeadline(), start: sp.startOffset, inFlight: sp.inFlightCount }, changed: false }));
    expect(reloaded).toEqual({ deadline, start: 0, inFlight: got.reduce((n, r) => n + r.lastOffset - r.firstOffset + 1, 0) });
    expect(parts.size).toBe(2);
  });
});
