// The transaction coordinator's state machine: every transition and error of
// Kafka's TransactionCoordinator that Runnel implements, with an in-memory
// store, a scripted marker writer and a fake clock.
import { describe, expect, it } from 'vitest';
import { ErrorCode, type KafkaErrorCode } from '../../../common/errors.js';
import { TransactionCoordinator } from '../../../broker/src/transactions/coordinator.js';
import type { MarkerWriter } from '../../../broker/src/transactions/types.js';
import type { TxnMarker } from '../../../broker/src/log/txn-marker.js';
import type { TopicPartition } from '../../../broker/src/storage/log-store.js';
import { MAX_EPOCH } from '../../../broker/src/transactions/txn-metadata.js';
import { FakeClock, flush } from '../support/fake-clock.js';
import { MemoryTxnStore } from './memory-txn-store.js';

const E = ErrorCode;
const ID = 'txn-1';
const tp = (topic: string, partition = 0): TopicPartition => ({ topic, partition });

class ScriptedMarkers implements MarkerWriter {
  readonly written: Array<{ tp: string; marker: TxnMarker }> = [];
  /** Partitions that fail this many more times. */
  readonly failures = new Map<string, number>();
  async writeMarker(p: TopicPartition, marker: TxnMarker): Promise<KafkaErrorCode> {
    const k = `${p.topic}/${p.partition}`;
    const left = this.failures.get(k) ?? 0;
    if (left > 0) { this.failures.set(k, left - 1); return E.NOT_LEADER_OR_FOLLOWER; }
    this.written.push({ tp: k, marker });
    return E.NONE;
  }
}

function setup(o: { epoch?: () => number | null; store?: MemoryTxnStore; markers?: ScriptedMarkers; clock?: FakeClock } = {}) {
  const store = o.store ?? new MemoryTxnStore();
  const markers = o.markers ?? new ScriptedMarkers();
  const clock = o.clock ?? new FakeClock();
  const epoch = o.epoch ?? (() => 3);
  const c = new TransactionCoordinator(store, markers, clock, {
    settings: { maxTimeoutMs: 60_000, abortTimedOutIntervalMs: 1000, takeoverScanMs: 100 },
    slotOf: () => 7, epochOf: () => epoch(), ownedSlots: () => (epoch() === null ? [] : [7]),
    offsetsPartitionOf: () => tp('__consumer_offsets', 7),
  });
  return { c, store, markers, clock };
}

const init = (c: TransactionCoordinator, o: Partial<{ timeoutMs: number; producerId: number; producerEpoch: number }> = {}) =>
  c.initProducerId({ transactionalId: ID, timeoutMs: 10_000, producerId: -1, producerEpoch: -1, ...o });

describe('InitProducerId with a transactional id', () => {
  it('allocates a producer id at epoch 0, then bumps the epoch on every init', async () => {
    const { c } = setup();
    expect(await init(c)).toEqual({ errorCode: E.NONE, producerId: 1000, producerEpoch: 0 });
    expect(await init(c)).toEqual({ errorCode: E.NONE, producerId: 1000, producerEpoch: 1 });
    expect(await init(c)).toEqual({ errorCode: E.NONE, producerId: 1000, producerEpoch: 2 });
  });

  it('refuses a timeout above transaction.max.timeout.ms or not positive', async () => {
    const { c, store } = setup();
    expect((await init(c, { timeoutMs: 60_001 })).errorCode).toBe(E.INVALID_TRANSACTION_TIMEOUT);
    expect((await init(c, { timeoutMs: 0 })).errorCode).toBe(E.INVALID_TRANSACTION_TIMEOUT);
    expect(store.txns.size).toBe(0);
    expect((await init(c, { timeoutMs: 60_000 })).errorCode).toBe(E.NONE);
  });

  it('KIP-360: bumps from the current id/epoch, answers a retry of the last init unchanged, fences anything else', async () => {
    const { c } = setup();
    await init(c); // 1000/0
    expect(await init(c, { producerId: 1000, producerEpoch: 0 })).toMatchObject({ errorCode: E.NONE, producerId: 1000, producerEpoch: 1 });
    // The answer was lost; the client retries with what it had: the same new epoch, no second bump.
    expect(await init(c, { producerId: 1000, producerEpoch: 0 })).toMatchObject({ errorCode: E.NONE, producerId: 1000, producerEpoch: 1 });
    expect((await init(c, { producerId: 1000, producerEpoch: 5 })).errorCode).toBe(E.PRODUCER_FENCED);
    expect((await init(c, { producerId: 99, producerEpoch: 1 })).errorCode).toBe(E.PRODUCER_FENCED);
  });

  it('gives a new producer id when the epoch is exhausted', async () => {
    const { c, store } = setup();
    await init(c);
    store.txns.get(ID)!.producerEpoch = MAX_EPOCH - 1;
    const c2 = setup({ store, epoch: () => 4 }).c; // a fresh load of the stored state
    expect(await init(c2)).toEqual({ errorCode: E.NONE, producerId: 1001, producerEpoch: 0 });
  });

  it('aborts an ongoing transaction with a bumped epoch, answering CONCURRENT_TRANSACTIONS until it completed', async () => {
    const { c, markers } = setup();
    await init(c);
    expect((await c.addPartitions(ID, 1000, 0, [tp('a')])).get('a/0')).toBe(E.NONE);
    markers.failures.set('a/0', 1);
    expect((await init(c)).errorCode).toBe(E.CONCURRENT_TRANSACTIONS);
    expect((await init(c)).errorCode).toBe(E.CONCURRENT_TRANSACTIONS); // marker still being retried
    expect((await c.describe(ID)).state).toBe('PrepareAbort');
    await setup().clock.advance(0);
    await flush();
    // the coordinator retries on its own clock
    await (c as any).clock.advance(1000);
    expect(markers.written).toEqual([{ tp: 'a/0', marker: { producerId: 1000, producerEpoch: 1, commit: false, coordinatorEpoch: 3 } }]);
    expect((await c.describe(ID)).state).toBe('CompleteAbort');
    expect(await init(c)).toMatchObject({ errorCode: E.NONE, producerId: 1000, producerEpoch: 2 });
    // The fenced producer's late requests are refused.
    expect(((await c.endTxn(ID, 1000, 0, true)).errorCode)).toBe(E.PRODUCER_FENCED);
  });
});

describe('AddPartitionsToTxn and AddOffsetsToTxn', () => {
  it('starts a transaction, adds partitions once, and checks the producer', async () => {
    const { c, store, clock } = setup();
    await init(c);
    expect([...(await c.addPartitions(ID, 1000, 0, [tp('a'), tp('b', 1)])).values()]).toEqual([E.NONE, E.NONE]);
    const d = await c.describe(ID);
    expect(d).toMatchObject({ state: 'Ongoing', txnStartMs: clock.now(), partitions: [tp('a'), tp('b', 1)] });
    const writes = store.writes;
    await c.addPartitions(ID, 1000, 0, [tp('a')]);
    expect(store.writes).toBe(writes); // nothing new: no write
    expect((await c.addPartitions(ID, 1000, 1, [tp('c')])).get('c/0')).toBe(E.PRODUCER_FENCED);
    expect((await c.addPartitions(ID, 1001, 0, [tp('c')])).get('c/0')).toBe(E.INVALID_PRODUCER_ID_MAPPING);
    expect((await c.addPartitions('unknown', 1000, 0, [tp('c')])).get('c/0')).toBe(E.INVALID_PRODUCER_ID_MAPPING);
  });

  it('verifyOnly (KIP-890) answers per partition without adding anything', async () => {
    const { c } = setup();
    await init(c);
    await c.addPartitions(ID, 1000, 0, [tp('a')]);
    const r = await c.addPartitions(ID, 1000, 0, [tp('a'), tp('b')], true);
    expect([...r]).toEqual([['a/0', E.NONE], ['b/0', E.INVALID_TXN_STATE]]);
    expect(await c.verify(ID, 1000, 0, tp('b'))).toBe(E.INVALID_TXN_STATE);
    expect(await c.verify(ID, 1000, 1, tp('a'))).toBe(E.PRODUCER_FENCED);
    expect((await c.describe(ID)).partitions).toEqual([tp('a')]);
  });

  it('AddOffsetsToTxn adds the group\'s __consumer_offsets partition', async () => {
    const { c } = setup();
    await init(c);
    expect(await c.addOffsets(ID, 1000, 0, 'group-1')).toBe(E.NONE);
    expect((await c.describe(ID)).partitions).toEqual([tp('__consumer_offsets', 7)]);
    expect(await c.addOffsets(ID, 1000, 3, 'group-1')).toBe(E.PRODUCER_FENCED);
  });
});

describe('EndTxn', () => {
  it('commits: Prepare, a marker to every partition, Complete; a retry is answered NONE', async () => {
    const { c, markers, store, clock } = setup();
    await init(c);
    await c.addPartitions(ID, 1000, 0, [tp('a'), tp('b')]);
    await c.addOffsets(ID, 1000, 0, 'g');
    expect((await c.endTxn(ID, 1000, 0, true)).errorCode).toBe(E.NONE);
    await flush();
    expect(markers.written.map((w) => w.tp).sort()).toEqual(['__consumer_offsets/7', 'a/0', 'b/0']);
    expect(markers.written.every((w) => w.marker.commit && w.marker.producerEpoch === 0 && w.marker.coordinatorEpoch === 3)).toBe(true);
    expect(store.txns.get(ID)).toMatchObject({ state: 'CompleteCommit', partitions: [], groups: [] });
    // Kafka keeps the start time of a completed transaction (DescribeTransactions, kafka-transactions describe).
    expect(await c.describe(ID)).toMatchObject({ state: 'CompleteCommit', txnStartMs: clock.now() });
    expect((await c.endTxn(ID, 1000, 0, true)).errorCode).toBe(E.NONE);
    expect((await c.endTxn(ID, 1000, 0, false)).errorCode).toBe(E.INVALID_TXN_STATE);
    // the next transaction
    expect((await c.addPartitions(ID, 1000, 0, [tp('c')])).get('c/0')).toBe(E.NONE);
    expect((await c.endTxn(ID, 1000, 0, false)).errorCode).toBe(E.NONE);
    await flush();
    expect(markers.written.at(-1)).toMatchObject({ tp: 'c/0', marker: { commit: false } });
  });

  it('answers while markers are retried, CONCURRENT_TRANSACTIONS meanwhile, and completes later', async () => {
    const { c, markers, clock } = setup();
    await init(c);
    await c.addPartitions(ID, 1000, 0, [tp('a'), tp('b')]);
    markers.failures.set('b/0', 3);
    expect((await c.endTxn(ID, 1000, 0, true)).errorCode).toBe(E.NONE);
    expect((await c.describe(ID)).state).toBe('PrepareCommit');
    expect((await c.endTxn(ID, 1000, 0, true)).errorCode).toBe(E.CONCURRENT_TRANSACTIONS);
    expect((await c.endTxn(ID, 1000, 0, false)).errorCode).toBe(E.INVALID_TXN_STATE);
    expect((await c.addPartitions(ID, 1000, 0, [tp('x')])).get('x/0')).toBe(E.CONCURRENT_TRANSACTIONS);
    expect((await init(c)).errorCode).toBe(E.CONCURRENT_TRANSACTIONS);
    await clock.advance(5000);
    expect((await c.describe(ID)).state).toBe('CompleteCommit');
    expect(markers.written.map((w) => w.tp)).toEqual(['a/0', 'b/0']);
  });

  it('refuses EndTxn without a transaction, with a wrong producer id or an old epoch', async () => {
    const { c } = setup();
    expect((await c.endTxn(ID, 1000, 0, true)).errorCode).toBe(E.INVALID_PRODUCER_ID_MAPPING);
    await init(c);
    expect((await c.endTxn(ID, 1000, 0, true)).errorCode).toBe(E.INVALID_TXN_STATE); // Empty
    await init(c);
    expect((await c.endTxn(ID, 1000, 0, true)).errorCode).toBe(E.PRODUCER_FENCED);
    expect((await c.endTxn(ID, 7, 1, true)).errorCode).toBe(E.INVALID_PRODUCER_ID_MAPPING);
  });
});

describe('timeouts, takeover and fencing', () => {
  it('aborts a transaction past its timeout with an epoch bump that fences the producer', async () => {
    const { c, markers, clock } = setup();
    c.start();
    await init(c, { timeoutMs: 5000 });
    await c.addPartitions(ID, 1000, 0, [tp('a')]);
    await clock.advance(4000);
    expect((await c.describe(ID)).state).toBe('Ongoing');
    await clock.advance(2000);
    expect(markers.written).toEqual([{ tp: 'a/0', marker: { producerId: 1000, producerEpoch: 1, commit: false, coordinatorEpoch: 3 } }]);
    expect(await c.describe(ID)).toMatchObject({ state: 'CompleteAbort', producerEpoch: 1 });
    expect((await c.endTxn(ID, 1000, 0, true)).errorCode).toBe(E.PRODUCER_FENCED);
    expect((await c.addPartitions(ID, 1000, 0, [tp('a')])).get('a/0')).toBe(E.PRODUCER_FENCED);
    // KIP-360/588: the fenced producer re-initialises with its old epoch and continues with the current one.
    expect(await init(c, { producerId: 1000, producerEpoch: 0 })).toMatchObject({ errorCode: E.NONE, producerId: 1000, producerEpoch: 1 });
    c.stop();
  });

  it('a coordinator taking the slot over completes a decided transaction and times out an ongoing one', async () => {
    const store = new MemoryTxnStore();
    const clock = new FakeClock();
    const old = setup({ store, clock, epoch: () => 3 });
    await init(old.c);
    await old.c.addPartitions(ID, 1000, 0, [tp('a')]);
    old.markers.failures.set('a/0', 1000); // the old coordinator dies before any marker lands
    (await old.c.endTxn(ID, 1000, 0, true)).errorCode;
    await old.c.initProducerId({ transactionalId: 'other', timeoutMs: 2000, producerId: -1, producerEpoch: -1 });
    await old.c.addPartitions('other', 1001, 0, [tp('b')]);
    old.c.stop();

    const next = setup({ store, clock, epoch: () => 4 });
    next.c.start();
    await clock.advance(100);
    expect(next.markers.written).toEqual([{ tp: 'a/0', marker: { producerId: 1000, producerEpoch: 0, commit: true, coordinatorEpoch: 4 } }]);
    expect(store.txns.get(ID)!.state).toBe('CompleteCommit');
    await clock.advance(3000);
    expect(store.txns.get('other')).toMatchObject({ state: 'CompleteAbort', producerEpoch: 1 });
    // The old coordinator still believes in its cached state, but can no longer write it.
    expect((await old.c.addPartitions('other', 1001, 0, [tp('z')])).get('z/0')).toBe(E.NOT_COORDINATOR);
    expect(store.txns.get('other')!.partitions).toEqual([]);
    next.c.stop();
  });

  it('answers NOT_COORDINATOR without the slot', async () => {
    const { c } = setup({ epoch: () => null });
    expect((await init(c)).errorCode).toBe(E.NOT_COORDINATOR);
    expect(c.isLocal(ID)).toBe(false);
  });
});

describe('DescribeTransactions and ListTransactions', () => {
  it('describes and lists with state, producer id and duration filters', async () => {
    const { c, clock } = setup();
    await init(c);
    await c.initProducerId({ transactionalId: 'b', timeoutMs: 10_000, producerId: -1, producerEpoch: -1 });
    await c.addPartitions('b', 1001, 0, [tp('t')]);
    expect((await c.describe('missing')).errorCode).toBe(E.TRANSACTIONAL_ID_NOT_FOUND);
    expect(await c.list([], [])).toEqual(expect.arrayContaining([
      { transactionalId: ID, producerId: 1000, state: 'Empty' }, { transactionalId: 'b', producerId: 1001, state: 'Ongoing' },
    ]));
    expect(await c.list(['Ongoing'], [])).toEqual([{ transactionalId: 'b', producerId: 1001, state: 'Ongoing' }]);
    expect(await c.list([], [1000])).toEqual([{ transactionalId: ID, producerId: 1000, state: 'Empty' }]);
    await clock.advance(500);
    expect(await c.list([], [], 1000)).toEqual([]);
    expect(await c.list([], [], 400)).toEqual([{ transactionalId: 'b', producerId: 1001, state: 'Ongoing' }]);
  });
});
