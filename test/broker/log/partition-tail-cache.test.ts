// The tail cache as the partition uses it, on the in-memory store: Fetch at
// the tail is answered without a store read and with the stored bytes; never
// past the high watermark or the last stable offset; emptied by reloads,
// leadership changes, fenced appends, release and topic deletion; and never
// serving what retention, DeleteRecords or the cleaner removed.
import { describe, expect, it } from 'vitest';
import { Partition } from '../../../broker/src/log/partition.js';
import { TailCache } from '../../../broker/src/log/tail-cache.js';
import { LogManager } from '../../../broker/src/log/log-manager.js';
import { loadBrokerConfig } from '../../../broker/src/config/config.js';
import { ErrorCode, KafkaError } from '../../../common/errors.js';
import { MemoryLogStore } from '../support/memory-log-store.js';
import { buildBatch } from '../../helpers/batches.js';

const tp = { topic: 't', partition: 0 };
const opts = { logAppendTime: false };
const plain = (v: string, n = 1) => buildBatch(Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`${v}${i}`) })));
const txn = (pid: number, seq: number, v = 't') => buildBatch([{ key: null, value: Buffer.from(v) }], { producerId: pid, producerEpoch: 0, baseSequence: seq, transactional: true });
const bytesOf = (bs: Array<{ pieces: Buffer[] }>) => Buffer.concat(bs.flatMap((b) => b.pieces));
const bases = (bs: Array<{ baseOffset: number }>) => bs.map((b) => b.baseOffset);

/** A store whose reads are counted, and a partition with a tail cache on it. */
function setup(limit = 1 << 20) {
  const store = new MemoryLogStore();
  const reads: number[] = [];
  const read = store.read.bind(store);
  store.read = (t, offset, count) => { reads.push(offset); return read(t, offset, count); };
  const cache = new TailCache(limit);
  const p = new Partition(tp, store, { producerIdExpirationMs: 86_400_000, tailCache: cache, readAheadBudget: undefined });
  return { store, reads, cache, p };
}

/** What a broker without the cache answers from the same store. */
const fromStore = (store: MemoryLogStore, offset: number, committed = false) => new Partition(tp, store).readForFetch(offset, 1 << 20, committed);

describe('Partition with a tail cache', () => {
  it('answers a consumer at the tail from memory, with exactly the bytes the store holds', async () => {
    const { store, reads, cache, p } = setup();
    for (let i = 0; i < 5; i++) await p.append(plain(`v${i}`, i + 1), { logAppendTime: i % 2 === 0 });
    const got = await p.readForFetch(0, 1 << 20);
    const got3 = await p.readForFetch(4, 1 << 20);
    expect(await p.readForFetch(15, 1 << 20)).toEqual([]); // at the high watermark: nothing, no read
    expect(reads).toEqual([]);
    expect(cache.hits).toBe(2);
    expect(bases(got)).toEqual([0, 1, 3, 6, 10]);
    expect(bytesOf(got).equals(bytesOf(await fromStore(store, 0)))).toBe(true); // offsets, epochs, log-append times stamped alike
    expect(bytesOf(got3).equals(bytesOf(await fromStore(store, 4)))).toBe(true);
  });

  it('keeps an acks=all batch out until it settles, though Redis stored it', async () => {
    const { reads, p } = setup();
    await p.append(plain('a'), opts); // 0
    const deferred = await p.append(plain('b'), { logAppendTime: false, deferVisibility: true }); // 1, stored, not yet visible
    expect(p.tailCache.endOffset).toBe(2); // cached as soon as Redis acknowledged it...
    expect(p.highWatermark).toBe(1);
    expect(bases(await p.readForFetch(0, 1 << 20))).toEqual([0]); // ...but never served above the high watermark
    expect(await p.readForFetch(1, 1 << 20)).toEqual([]);
    p.settle(deferred.pending!);
    expect(bases(await p.readForFetch(1, 1 << 20))).toEqual([1]);
    expect(reads).toEqual([]);
  });

  it('read_committed: nothing past the last stable offset, and the aborted transactions stay right', async () => {
    const { store, reads, p } = setup();
    await p.append(plain('p'), opts); // 0
    await p.append(txn(1, 0, 'x'), opts); // 1, producer 1 opens a transaction
    await p.append(plain('q'), opts); // 2
    expect(p.lastStableOffset).toBe(1);
    expect(bases(await p.readForFetch(0, 1 << 20, true))).toEqual([0]);
    expect(await p.readForFetch(1, 1 << 20, true)).toEqual([]);
    expect(bases(await p.readForFetch(0, 1 << 20, false))).toEqual([0, 1, 2]); // read_uncommitted sees it all
    await p.appendMarker({ producerId: 1, producerEpoch: 0, commit: false, coordinatorEpoch: 0 }); // 3: abort
    expect(p.lastStableOffset).toBe(4);
    const got = await p.readForFetch(0, 1 << 20, true);
    expect(bases(got)).toEqual([0, 1, 2, 3]);
    expect(reads).toEqual([]);
    expect(bytesOf(got).equals(bytesOf(await fromStore(store, 0, true)))).toBe(true); // the marker too
    expect(await p.abortedTxns(0, 4)).toEqual([{ producerId: 1, firstOffset: 1, lastOffset: 3 }]);
  });

  it('a takeover by another broker fences this one: its cache empties and it reads the new leader\'s batches', async () => {
    const { store, p, cache } = setup();
    for (let i = 0; i < 3; i++) await p.append(plain(`old${i}`), opts);
    expect(cache.used).toBeGreaterThan(0);
    // Another broker takes the partition over (epoch 1) and appends its own batches.
    const other = new Partition(tp, store);
    await other.takeLeadership(1, { recordEpochStart: async () => undefined, epochHistory: async () => new Map() });
    await other.append(plain('new3'), opts);
    // This broker still believes it leads: its next append is fenced, and nothing stale stays.
    expect((await p.append(plain('stale'), opts)).errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    expect(p.tailCache.length).toBe(0);
    expect(cache.used).toBe(0);
    const got = await p.readForFetch(3, 1 << 20);
    expect(bytesOf(got).equals(bytesOf(await fromStore(store, 3)))).toBe(true);
  });

  it('taking leadership (a new epoch) and every reload empty the cache', async () => {
    const { reads, p } = setup();
    await p.append(plain('a'), opts);
    await p.takeLeadership(5, { recordEpochStart: async () => undefined, epochHistory: async () => new Map() });
    expect(p.tailCache.length).toBe(0);
    await p.append(plain('b'), opts);
    p.invalidate();
    expect(p.tailCache.length).toBe(0);
    await p.readForFetch(1, 1 << 20);
    expect(reads).toEqual([1]); // from the store
  });

  it('a trimmed offset (DeleteRecords, retention) is never served from it: OFFSET_OUT_OF_RANGE', async () => {
    const store = new MemoryLogStore();
    const log = new LogManager(store, loadBrokerConfig([], {}));
    await log.createTopic('t', 1, {});
    const p = await log.partition('t', 0);
    for (let i = 0; i < 6; i++) await p.append(plain(`v${i}`), opts);
    await log.advanceLogStart(p, 4);
    expect(p.tailCache.startOffset).toBe(4);
    const err = await p.readForFetch(2, 1 << 20).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KafkaError);
    expect((err as KafkaError).code).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    expect(bytesOf(await p.readForFetch(4, 1 << 20)).equals(bytesOf(await fromStore(store, 4)))).toBe(true);
  });

  it('a compacted offset is never served from it', async () => {
    const { reads, p } = setup();
    for (let i = 0; i < 6; i++) await p.append(plain(`v${i}`), opts);
    p.cleanedTo = 4; // what the cleaner sets once its pass is swapped in
    expect(p.tailCache.startOffset).toBe(4);
    await p.readForFetch(2, 1 << 20);
    expect(reads).toEqual([2]); // the compacted prefix comes from the store
    await p.readForFetch(4, 1 << 20);
    expect(reads).toEqual([2]);
  });

  it('release and topic deletion give the bytes back, and a recreated topic serves only its own batches', async () => {
    const store = new MemoryLogStore();
    const log = new LogManager(store, loadBrokerConfig([], {}));
    await log.createTopic('t', 2, {});
    const p0 = await log.partition('t', 0);
    const p1 = await log.partition('t', 1);
    await p0.append(plain('a'), opts);
    await p1.append(plain('b'), opts);
    const one = log.tailCache.used / 2;
    log.release('t', 0);
    expect(log.tailCache.used).toBe(one);
    await log.deleteTopic(log.cachedTopic('t')!);
    expect(log.tailCache.used).toBe(0);
    await log.createTopic('t', 1, {});
    const again = await log.partition('t', 0);
    expect(again).not.toBe(p0);
    expect(await again.readForFetch(0, 1 << 20)).toEqual([]);
  });

  it('starts no read ahead at an offset it holds (the next fetch is answered from memory)', async () => {
    const { store, reads, p } = setup();
    for (let i = 0; i < 10; i++) await p.append(plain(`v${i}`), opts);
    p.readAhead(4, 1 << 20, false);
    expect(p.ahead.size).toBe(0);
    expect(reads).toEqual([]);
    // The same partition without the cache reads ahead there.
    const bare = new Partition(tp, store);
    await bare.ensureLoaded();
    bare.readAhead(4, 1 << 20, false);
    expect(bare.ahead.size).toBe(1);
    bare.ahead.clear();
  });

  it('is off with log.tail.cache.bytes=0: every fetch reads the store', async () => {
    const store = new MemoryLogStore();
    const log = new LogManager(store, loadBrokerConfig(['--set', 'log.tail.cache.bytes=0'], {}));
    await log.createTopic('t', 1, {});
    const p = await log.partition('t', 0);
    await p.append(plain('a'), opts);
    expect(p.tailCache.length).toBe(0);
    expect(await p.readForFetch(0, 1 << 20)).toHaveLength(1);
    expect(log.tailCache.hits + log.tailCache.misses).toBe(0);
  });
});
