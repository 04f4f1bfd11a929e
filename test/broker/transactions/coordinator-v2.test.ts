// Transactions v2 (KIP-890 part 2) in the transaction coordinator: the epoch
// bump at every EndTxn v5, the markers written with the new epoch, the
// fencing of the old epoch, Kafka's answers to a retried EndTxn, the abort of
// a transaction that added nothing, the rotation of an exhausted epoch onto a
// new producer id, and the double bump of a v2 transaction's timeout abort.
// The expected answers are Kafka's (TransactionCoordinator.endTransaction and
// its table for transactions v2, TransactionMetadata.prepareAbortOrCommit and
// prepareComplete).
import { describe, expect, it } from 'vitest';
import { ErrorCode, type KafkaErrorCode } from '../../../common/errors.js';
import { TransactionCoordinator } from '../../../broker/src/transactions/coordinator.js';
import type { MarkerWriter } from '../../../broker/src/transactions/types.js';
import type { TxnMarker } from '../../../broker/src/log/txn-marker.js';
import type { TopicPartition } from '../../../broker/src/storage/log-store.js';
import { MAX_EPOCH, TXN_V2 } from '../../../broker/src/transactions/txn-metadata.js';
import { FakeClock, flush } from '../support/fake-clock.js';
import { MemoryTxnStore } from './memory-txn-store.js';

const E = ErrorCode;
const ID = 'txn-v2';
const tp = (topic: string, partition = 0): TopicPartition => ({ topic, partition });

class Markers implements MarkerWriter {
  readonly written: Array<{ tp: string; marker: TxnMarker }> = [];
  readonly failures = new Map<string, number>();
  async writeMarker(p: TopicPartition, marker: TxnMarker): Promise<KafkaErrorCode> {
    const k = `${p.topic}/${p.partition}`;
    const left = this.failures.get(k) ?? 0;
    if (left > 0) { this.failures.set(k, left - 1); return E.NOT_LEADER_OR_FOLLOWER; }
    this.written.push({ tp: k, marker });
    return E.NONE;
  }
}

function setup(store = new MemoryTxnStore(), clock = new FakeClock()) {
  const markers = new Markers();
  const c = new TransactionCoordinator(store, markers, clock, {
    settings: { maxTimeoutMs: 60_000, abortTimedOutIntervalMs: 1000, takeoverScanMs: 100 },
    slotOf: () => 7, epochOf: () => 3, ownedSlots: () => [7],
    offsetsPartitionOf: () => tp('__consumer_offsets', 7),
  });
  return { c, store, markers, clock };
}

const init = (c: TransactionCoordinator, timeoutMs = 10_000) => c.initProducerId({ transactionalId: ID, timeoutMs, producerId: -1, producerEpoch: -1 });
/** The implicit AddPartitionsToTxn of Produce v12 / TxnOffsetCommit v5. */
const add = async (c: TransactionCoordinator, epoch: number, topic: string, pid = 1000) => (await c.addPartitions(ID, pid, epoch, [tp(topic)], false, TXN_V2)).get(`${topic}/0`);
/** EndTxn v5. */
const end = (c: TransactionCoordinator, epoch: number, commit: boolean, pid = 1000) => c.endTxn(ID, pid, epoch, commit, TXN_V2);

describe('EndTxn v5 bumps the producer epoch at every transaction end', () => {
  it('commit and abort each answer with the next epoch, and the markers carry it', async () => {
    const { c, markers, store } = setup();
    expect(await init(c)).toMatchObject({ producerId: 1000, producerEpoch: 0 });
    expect(await add(c, 0, 'a')).toBe(E.NONE);
    expect(store.txns.get(ID)).toMatchObject({ state: 'Ongoing', txnVersion: TXN_V2 });
    expect(await end(c, 0, true)).toEqual({ errorCode: E.NONE, producerId: 1000, producerEpoch: 1 });
    await flush();
    expect(markers.written).toEqual([{ tp: 'a/0', marker: { producerId: 1000, producerEpoch: 1, commit: true, coordinatorEpoch: 3 } }]);
    expect(store.txns.get(ID)).toMatchObject({ state: 'CompleteCommit', producerEpoch: 1, lastProducerEpoch: 0, partitions: [] });

    expect(await add(c, 1, 'b')).toBe(E.NONE);
    expect(await end(c, 1, false)).toEqual({ errorCode: E.NONE, producerId: 1000, producerEpoch: 2 });
    await flush();
    expect(markers.written.at(-1)).toEqual({ tp: 'b/0', marker: { producerId: 1000, producerEpoch: 2, commit: false, coordinatorEpoch: 3 } });
    expect(await c.describe(ID)).toMatchObject({ state: 'CompleteAbort', producerEpoch: 2 });
  });

  it('fences the epoch a transaction ended with: its late adds, verifications and EndTxn', async () => {
    const { c } = setup();
    await init(c);
    await add(c, 0, 'a');
    await end(c, 0, true);
    await flush();
    expect(await add(c, 1, 'b')).toBe(E.NONE); // the next transaction, on the new epoch
    // A zombie of the old epoch (a retried produce of the ended transaction) is refused everywhere.
    expect(await add(c, 0, 'a')).toBe(E.PRODUCER_FENCED);
    expect(await c.verify(ID, 1000, 0, tp('a'))).toBe(E.PRODUCER_FENCED);
    expect((await end(c, 0, true)).errorCode).toBe(E.PRODUCER_FENCED); // Ongoing takes only the current epoch
    expect(await c.describe(ID)).toMatchObject({ state: 'Ongoing', producerEpoch: 1, partitions: [tp('b')] });
  });

  it('InitProducerId over an ongoing v2 transaction still aborts it first, and the next transaction starts on a new epoch', async () => {
    const { c, markers } = setup();
    await init(c);
    await add(c, 0, 'a');
    expect((await init(c)).errorCode).toBe(E.CONCURRENT_TRANSACTIONS);
    await flush();
    expect(markers.written).toEqual([{ tp: 'a/0', marker: { producerId: 1000, producerEpoch: 2, commit: false, coordinatorEpoch: 3 } }]);
    expect(await init(c)).toMatchObject({ errorCode: E.NONE, producerEpoch: 3 });
  });
});

describe('a retried EndTxn v5 (the previous epoch), answered as Kafka does', () => {
  it('after a commit: commit again is NONE with the current id and epoch and writes nothing; abort is INVALID_TXN_STATE', async () => {
    const { c, store, markers } = setup();
    await init(c);
    await add(c, 0, 'a');
    await end(c, 0, true);
    await flush();
    const writes = store.writes;
    expect(await end(c, 0, true)).toEqual({ errorCode: E.NONE, producerId: 1000, producerEpoch: 1 });
    expect((await end(c, 0, false)).errorCode).toBe(E.INVALID_TXN_STATE);
    expect(store.writes).toBe(writes);
    expect(markers.written).toHaveLength(1);
    // The current epoch asking to commit a transaction it never started: INVALID_TXN_STATE.
    expect((await end(c, 1, true)).errorCode).toBe(E.INVALID_TXN_STATE);
  });

  it('after an abort: abort again is NONE, commit is INVALID_TXN_STATE', async () => {
    const { c } = setup();
    await init(c);
    await add(c, 0, 'a');
    await end(c, 0, false);
    await flush();
    expect(await end(c, 0, false)).toEqual({ errorCode: E.NONE, producerId: 1000, producerEpoch: 1 });
    expect((await end(c, 0, true)).errorCode).toBe(E.INVALID_TXN_STATE);
  });

  it('while the markers are retried: the same outcome is CONCURRENT_TRANSACTIONS, the other INVALID_TXN_STATE, the new epoch PRODUCER_FENCED', async () => {
    const { c, markers, clock } = setup();
    await init(c);
    await add(c, 0, 'a');
    markers.failures.set('a/0', 2);
    expect(await end(c, 0, true)).toEqual({ errorCode: E.NONE, producerId: 1000, producerEpoch: 1 });
    expect((await c.describe(ID)).state).toBe('PrepareCommit');
    expect((await end(c, 0, true)).errorCode).toBe(E.CONCURRENT_TRANSACTIONS);
    expect((await end(c, 0, false)).errorCode).toBe(E.INVALID_TXN_STATE);
    expect((await end(c, 1, true)).errorCode).toBe(E.PRODUCER_FENCED);
    // The next transaction's first partition waits for the markers (the produce is retried).
    expect(await add(c, 1, 'b')).toBe(E.CONCURRENT_TRANSACTIONS);
    await clock.advance(1000);
    expect((await c.describe(ID)).state).toBe('CompleteCommit');
    expect(await add(c, 1, 'b')).toBe(E.NONE);
  });

  it('an epoch two behind is fenced, a producer id never seen is INVALID_PRODUCER_ID_MAPPING', async () => {
    const { c } = setup();
    expect((await end(c, 0, true)).errorCode).toBe(E.INVALID_PRODUCER_ID_MAPPING);
    await init(c);
    for (let e = 0; e < 2; e++) { await add(c, e, 'a'); await end(c, e, true); await flush(); }
    expect((await end(c, 0, true)).errorCode).toBe(E.PRODUCER_FENCED);
    expect((await end(c, 2, true, 999)).errorCode).toBe(E.INVALID_PRODUCER_ID_MAPPING);
  });
});

describe('an abort with no partition added (transactions v2 allows it)', () => {
  it('from Empty and from a completed transaction: bumps the epoch, no marker; a commit there is INVALID_TXN_STATE', async () => {
    const { c, markers } = setup();
    await init(c); // Empty, epoch 0
    expect((await end(c, 0, true)).errorCode).toBe(E.INVALID_TXN_STATE);
    expect(await end(c, 0, false)).toEqual({ errorCode: E.NONE, producerId: 1000, producerEpoch: 1 });
    await flush();
    expect(await c.describe(ID)).toMatchObject({ state: 'CompleteAbort', producerEpoch: 1, partitions: [] });
    await add(c, 1, 'a');
    await end(c, 1, true);
    await flush();
    expect(await end(c, 2, false)).toEqual({ errorCode: E.NONE, producerId: 1000, producerEpoch: 3 });
    await flush();
    expect(markers.written.map((w) => w.tp)).toEqual(['a/0']);
    expect((await c.describe(ID)).state).toBe('CompleteAbort');
    // Empty: a retry (the epoch before) is fenced.
    const fresh = setup();
    await fresh.c.initProducerId({ transactionalId: ID, timeoutMs: 10_000, producerId: -1, producerEpoch: -1 });
    await fresh.c.initProducerId({ transactionalId: ID, timeoutMs: 10_000, producerId: -1, producerEpoch: -1 }); // Empty, epoch 1
    expect((await end(fresh.c, 0, false)).errorCode).toBe(E.PRODUCER_FENCED);
  });
});

describe('epoch exhaustion and timeouts', () => {
  it('an exhausted epoch ends its transaction on a new producer id at epoch 0; the old id retrying is answered with it', async () => {
    const { c, store, markers } = setup();
    await init(c);
    store.txns.get(ID)!.producerEpoch = MAX_EPOCH - 1;
    const { c: c2, markers: m2 } = setup(store); // a fresh load of the stored state
    expect(await add(c2, MAX_EPOCH - 1, 'a')).toBe(E.NONE);
    expect(await end(c2, MAX_EPOCH - 1, true)).toEqual({ errorCode: E.NONE, producerId: 1001, producerEpoch: 0 });
    await flush();
    // Markers still name the old producer id, with the last epoch it can have.
    expect(m2.written).toEqual([{ tp: 'a/0', marker: { producerId: 1000, producerEpoch: MAX_EPOCH, commit: true, coordinatorEpoch: 3 } }]);
    expect(store.txns.get(ID)).toMatchObject({ state: 'CompleteCommit', producerId: 1001, producerEpoch: 0, lastProducerId: 1000, nextProducerId: -1 });
    expect(await end(c2, MAX_EPOCH - 1, true, 1000)).toEqual({ errorCode: E.NONE, producerId: 1001, producerEpoch: 0 });
    expect(await add(c2, 0, 'b', 1001)).toBe(E.NONE);
    expect(markers.written).toEqual([]);
  });

  it('a v2 transaction past its timeout is aborted with the epoch bumped twice, so its producer is fenced, not answered as a retry', async () => {
    const { c, markers, clock } = setup();
    c.start();
    await init(c, 5000);
    await add(c, 0, 'a');
    await clock.advance(6000);
    expect(markers.written).toEqual([{ tp: 'a/0', marker: { producerId: 1000, producerEpoch: 2, commit: false, coordinatorEpoch: 3 } }]);
    expect(await c.describe(ID)).toMatchObject({ state: 'CompleteAbort', producerEpoch: 2 });
    expect((await end(c, 0, false)).errorCode).toBe(E.PRODUCER_FENCED);
    expect((await end(c, 0, true)).errorCode).toBe(E.PRODUCER_FENCED);
    expect(await add(c, 0, 'a')).toBe(E.PRODUCER_FENCED);
    c.stop();
  });

  it('EndTxn v0-v4 keep transactions v1: no bump, the same epoch goes on', async () => {
    const { c, markers } = setup();
    await init(c);
    await c.addPartitions(ID, 1000, 0, [tp('a')]);
    expect(await c.endTxn(ID, 1000, 0, true)).toEqual({ errorCode: E.NONE, producerId: 1000, producerEpoch: 0 });
    await flush();
    expect(markers.written[0]!.marker.producerEpoch).toBe(0);
    expect(await c.describe(ID)).toMatchObject({ state: 'CompleteCommit', producerEpoch: 0 });
  });
});
