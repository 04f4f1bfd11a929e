import { describe, expect, it } from 'vitest';
import { Partition } from '../../../broker/src/log/partition.js';
import { MemoryLogStore } from '../support/memory-log-store.js';
import { buildBatch } from '../../helpers/batches.js';
import { ErrorCode } from '../../../common/errors.js';

const history = () => ({ recordEpochStart: async () => undefined, epochHistory: async () => new Map<number, number>() });

const tp = { topic: 't', partition: 0 };
const batch = (pid: number, seq: number) => buildBatch([{ key: null, value: Buffer.alloc(1000, 1) }], { producerId: pid, producerEpoch: 0, baseSequence: seq });

describe('Partition', () => {
  it('keeps producer state durable: a retry after thousands of other batches and a reload is still a duplicate', async () => {
    const store = new MemoryLogStore();
    const writer = new Partition(tp, store);
    expect((await writer.append(batch(7, 0), { logAppendTime: false })).baseOffset).toBe(0);
    for (let i = 0; i < 3000; i++) await writer.append(batch(100 + i, 0), { logAppendTime: false });
    const reloaded = new Partition(tp, store);
    await reloaded.ensureLoaded();
    expect(reloaded.nextOffset).toBe(3001);
    const dup = await reloaded.append(batch(7, 0), { logAppendTime: false });
    expect(dup).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect(reloaded.nextOffset).toBe(3001);
    expect((await reloaded.append(batch(7, 1), { logAppendTime: false })).baseOffset).toBe(3001);
  });

  it('fences a writer whose epoch is not current, and one whose base is not the stored log end', async () => {
    const store = new MemoryLogStore();
    const stale = new Partition(tp, store);
    await stale.takeLeadership(1, history());
    store.parts.get('t/0')!.leaderEpoch = 1;
    expect((await stale.append(batch(-1, 0), { logAppendTime: false })).baseOffset).toBe(0);
    const fresh = new Partition(tp, store);
    store.parts.get('t/0')!.leaderEpoch = 2;
    await fresh.takeLeadership(2, history());
    expect((await fresh.append(batch(-1, 0), { logAppendTime: false })).baseOffset).toBe(1);
    const out = await stale.append(batch(-1, 0), { logAppendTime: false });
    expect(out.errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    // a reload does not adopt the newer epoch: the stale writer stays fenced
    expect((await stale.append(batch(-1, 0), { logAppendTime: false })).errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    expect(store.parts.get('t/0')!.batches.map((b) => b.baseOffset)).toEqual([0, 1]);
    // someone else moved the log end: the leader is fenced once, reloads, and continues densely
    store.parts.get('t/0')!.next = 5;
    store.parts.get('t/0')!.batches.push({ baseOffset: 2, bytes: batch(-1, 0) });
    expect((await fresh.append(batch(-1, 0), { logAppendTime: false })).errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    expect((await fresh.append(batch(-1, 0), { logAppendTime: false })).baseOffset).toBe(5);
  });

  it('restores its epoch when a Redis failover lost it, and continues after the surviving log end', async () => {
    const store = new MemoryLogStore();
    const leader = new Partition(tp, store);
    await leader.takeLeadership(3, history());
    store.parts.get('t/0')!.leaderEpoch = 3;
    for (let i = 0; i < 3; i++) await leader.append(batch(-1, 0), { logAppendTime: false });
    // The promoted replica missed the epoch bump and the last batch (async replication).
    const part = store.parts.get('t/0')!;
    part.leaderEpoch = 2;
    part.batches.pop();
    part.next = 2;
    expect((await leader.append(batch(-1, 0), { logAppendTime: false })).errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    const again = await leader.append(batch(-1, 0), { logAppendTime: false });
    expect(again).toMatchObject({ errorCode: ErrorCode.NONE, baseOffset: 2 });
    expect(part.leaderEpoch).toBe(3);
    // A newer leader's epoch is never lowered: the old leader stays fenced.
    part.leaderEpoch = 4;
    leader.invalidate();
    expect((await leader.append(batch(-1, 0), { logAppendTime: false })).errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    expect(part.leaderEpoch).toBe(4);
  });

  it('moves the high watermark only over settled appends, in order', async () => {
    const store = new MemoryLogStore();
    const p = new Partition(tp, store);
    const a = await p.append(batch(-1, 0), { logAppendTime: false, deferVisibility: true });
    const b = await p.append(batch(-1, 0), { logAppendTime: false });
    expect(a.pending).not.toBeNull();
    expect(p.nextOffset).toBe(2);
    expect(p.highWatermark).toBe(0); // b is stored, but a before it is not yet confirmed
    expect(await p.read(0, 1 << 20)).toEqual([]);
    p.settle(a.pending!);
    expect(p.highWatermark).toBe(2);
    expect((await p.read(0, 1 << 20)).map((x) => x.baseOffset)).toEqual([0, 1]);
    expect(b.pending).toBeNull();
  });

  it('reports the end offset of earlier leader epochs from the epoch history', () => {
    const p = new Partition(tp, new MemoryLogStore());
    p.leaderEpoch = 5;
    p.highWatermark = 300;
    p.epochStarts = new Map([[1, 0], [3, 120], [5, 250]]);
    expect(p.endOffsetForEpoch(5)).toEqual({ epoch: 5, endOffset: 300 });
    expect(p.endOffsetForEpoch(4)).toEqual({ epoch: 3, endOffset: 250 });
    expect(p.endOffsetForEpoch(2)).toEqual({ epoch: 1, endOffset: 120 });
    expect(p.endOffsetForEpoch(0)).toEqual({ epoch: -1, endOffset: -1 });
    expect(p.endOffsetForEpoch(6)).toEqual({ epoch: -1, endOffset: -1 });
  });
});

// acks=all with min.insync.replicas > 1: the replica checks Partition makes
// for the produce path (before the append, then after it).
describe('Partition replica checks', () => {
  class ReplicaStore extends MemoryLogStore {
    connected = 0;
    confirm: { replicas: number; aofLocal: boolean } | Error = { replicas: 0, aofLocal: false };
    asked: unknown[] = [];
    override async connectedReplicas() { return this.connected; }
    override async waitReplicas(...args: unknown[]) {
      this.asked.push(args);
      if (this.confirm instanceof Error) throw this.confirm;
      return this.confirm;
    }
  }

  it('before the append: NOT_ENOUGH_REPLICAS while fewer than min.insync.replicas - 1 Redis replicas are connected', async () => {
    const store = new ReplicaStore();
    const p = new Partition(tp, store);
    store.connected = 1;
    expect(await p.checkReplicasConnected(3)).toEqual({ errorCode: ErrorCode.NOT_ENOUGH_REPLICAS, errorMessage: 'min.insync.replicas=3 needs 2 Redis replicas' });
    store.connected = 2;
    expect(await p.checkReplicasConnected(3)).toBeNull();
  });

  it('after the append: confirmed, or NOT_ENOUGH_REPLICAS_AFTER_APPEND / KAFKA_STORAGE_ERROR with the partition reloaded before its next append', async () => {
    const store = new ReplicaStore();
    const p = new Partition(tp, store);
    await p.ensureLoaded();
    store.confirm = { replicas: 1, aofLocal: true };
    expect(await p.confirmReplicas(2, true, 100, false)).toBeNull();
    expect(p.ready).toBe(true);
    expect(store.asked).toEqual([[tp, 1, true, 100, false]]);

    store.confirm = { replicas: 0, aofLocal: true };
    expect(await p.confirmReplicas(2, false, 100, true)).toEqual({ errorCode: ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, errorMessage: '0 of 1 Redis replicas confirmed within 100 ms' });
    expect(p.ready).toBe(false);

    await p.ensureLoaded();
    store.confirm = { replicas: 1, aofLocal: false };
    expect(await p.confirmReplicas(2, true, 50, false)).toEqual({ errorCode: ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, errorMessage: 'the Redis primary did not confirm the AOF fsync within 50 ms' });
    expect(p.ready).toBe(false);
    expect(await p.confirmReplicas(2, false, 50, false)).toBeNull(); // the local AOF is asked for only with aof

    await p.ensureLoaded();
    store.confirm = new Error('Connection is closed.');
    expect(await p.confirmReplicas(2, false, 50, false)).toEqual({ errorCode: ErrorCode.KAFKA_STORAGE_ERROR, errorMessage: 'Connection is closed.' });
    expect(p.ready).toBe(false);
  });
});
