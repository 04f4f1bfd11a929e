// Producer state with transactions (Kafka's ProducerStateManager): a
// transactional batch opens the producer's transaction on the partition, a
// marker ends it; epochs fence stale batches and markers; the stored form
// stays readable by older and newer code.
import { describe, expect, it } from 'vitest';
import { ProducerStateTable, decodeProducer, encodeProducer } from '../../../broker/src/log/producer-state.js';
import { ErrorCode } from '../../../common/errors.js';
import type { BatchHeader } from '../../../broker/src/record-batch/batch.js';

const h = (producerId: number, producerEpoch: number, baseSequence: number, count = 1, isTransactional = true): BatchHeader => ({
  baseOffset: 0, batchLength: 0, size: 100, partitionLeaderEpoch: 0, magic: 2, crc: 0, attributes: isTransactional ? 0x10 : 0, codec: 0, timestampType: 0,
  isTransactional, isControl: false, lastOffsetDelta: count - 1, baseTimestamp: 0, maxTimestamp: 0, producerId, producerEpoch, baseSequence, recordCount: count,
});

const marker = (producerId: number, producerEpoch: number, commit: boolean, coordinatorEpoch = 0) => ({ producerId, producerEpoch, commit, coordinatorEpoch });

describe('ProducerStateTable with transactions', () => {
  it('opens a transaction at the first transactional batch and keeps the first offset while it continues', () => {
    const t = new ProducerStateTable();
    expect(t.firstUnstableOffset()).toBeNull();
    expect(t.beginsTransaction(h(1, 0, 0, 3))).toBe(true);
    t.record(h(1, 0, 0, 3), 10);
    expect(t.beginsTransaction(h(1, 0, 3, 2))).toBe(false);
    t.record(h(1, 0, 3, 2), 20);
    expect(t.firstUnstableOffset()).toBe(10);
    expect(t.describe()[0]).toMatchObject({ producerId: 1, txnFirstOffset: 10, coordinatorEpoch: -1 });
    // a plain batch is never a transaction begin
    expect(t.beginsTransaction(h(2, 0, 0, 1, false))).toBe(false);
  });

  it('the smallest first offset of open transactions is the first unstable offset', () => {
    const t = new ProducerStateTable();
    t.record(h(1, 0, 0), 5);
    t.record(h(2, 0, 0), 3);
    t.record(h(3, 0, 0, 1, false), 7);
    expect(t.firstUnstableOffset()).toBe(3);
  });

  it('a plain batch while the producer\'s transaction is open: INVALID_TXN_STATE', () => {
    const t = new ProducerStateTable();
    t.record(h(1, 0, 0), 0);
    expect(t.check(h(1, 0, 1, 1, false))).toMatchObject({ kind: 'error', code: ErrorCode.INVALID_TXN_STATE });
    expect(t.check(h(1, 0, 1)).kind).toBe('append');
  });

  it('a transactional batch from an older epoch: INVALID_PRODUCER_EPOCH', () => {
    const t = new ProducerStateTable();
    t.record(h(1, 3, 0), 0);
    expect(t.check(h(1, 2, 1))).toMatchObject({ kind: 'error', code: ErrorCode.INVALID_PRODUCER_EPOCH });
  });

  it('a commit marker closes the transaction only once applied, and reports the completed range', () => {
    const t = new ProducerStateTable();
    t.record(h(1, 0, 0, 2), 4);
    const plan = t.planMarker(1, marker(1, 0, true, 7), 9);
    if ('code' in plan) throw new Error('refused');
    expect(plan.completed).toEqual({ producerId: 1, firstOffset: 4, lastOffset: 9, aborted: false });
    expect(t.firstUnstableOffset()).toBe(4); // not yet applied: the marker is not stored
    t.applyMarker(plan);
    expect(t.firstUnstableOffset()).toBeNull();
    expect(t.describe()[0]).toMatchObject({ txnFirstOffset: -1, coordinatorEpoch: 7 });
    // the producer continues with its sequence in the same epoch
    expect(t.check(h(1, 0, 2)).kind).toBe('append');
    expect(t.check(h(1, 0, 0, 2))).toEqual({ kind: 'duplicate', baseOffset: 4 });
  });

  it('an abort marker with a bumped epoch restarts sequences', () => {
    const t = new ProducerStateTable();
    t.record(h(1, 0, 0, 2), 0);
    const plan = t.planMarker(1, marker(1, 1, false), 2);
    if ('code' in plan) throw new Error('refused');
    expect(plan.completed).toEqual({ producerId: 1, firstOffset: 0, lastOffset: 2, aborted: true });
    t.applyMarker(plan);
    expect(t.check(h(1, 0, 2))).toMatchObject({ kind: 'error', code: ErrorCode.INVALID_PRODUCER_EPOCH });
    expect(t.check(h(1, 1, 0)).kind).toBe('append');
  });

  it('transactions v2: the marker carries the bumped epoch; the next transaction starts at sequence 0 and opens anew', () => {
    const t = new ProducerStateTable();
    t.record(h(1, 4, 0, 3), 0);
    const plan = t.planMarker(1, marker(1, 5, true), 3);
    if ('code' in plan) throw new Error('refused');
    t.applyMarker(plan);
    // Kafka: the epoch was bumped by a control record, so the sequence must restart at 0.
    expect(t.check(h(1, 5, 3))).toMatchObject({ kind: 'error', code: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER });
    expect(t.check(h(1, 4, 3))).toMatchObject({ kind: 'error', code: ErrorCode.INVALID_PRODUCER_EPOCH }); // the ended transaction's zombie
    expect(t.beginsTransaction(h(1, 5, 0))).toBe(true);
    expect(t.check(h(1, 5, 0)).kind).toBe('append');
    t.record(h(1, 5, 0), 4);
    expect(t.beginsTransaction(h(1, 5, 1))).toBe(false);
    expect(t.firstUnstableOffset()).toBe(4);
  });

  it('a batch of a newer epoch while an older transaction is open asks the coordinator again (Kafka\'s hasOngoingTransaction(pid, epoch))', () => {
    const t = new ProducerStateTable();
    t.record(h(1, 4, 0), 0);
    expect(t.beginsTransaction(h(1, 4, 1))).toBe(false);
    expect(t.beginsTransaction(h(1, 5, 0))).toBe(true);
    expect(t.beginsTransaction(h(1, 3, 0))).toBe(false); // older: refused by the append, nothing to ask
  });

  it('refuses a marker from an older producer epoch or an older coordinator epoch', () => {
    const t = new ProducerStateTable();
    t.record(h(1, 5, 0), 0);
    expect(t.planMarker(1, marker(1, 4, false), 1)).toMatchObject({ code: ErrorCode.INVALID_PRODUCER_EPOCH });
    const plan = t.planMarker(1, marker(1, 5, true, 3), 1);
    if ('code' in plan) throw new Error('refused');
    t.applyMarker(plan);
    t.record(h(1, 5, 1), 2);
    expect(t.planMarker(1, marker(1, 5, true, 2), 3)).toMatchObject({ code: ErrorCode.TRANSACTION_COORDINATOR_FENCED });
  });

  it('a marker for a producer without an open transaction completes nothing', () => {
    const t = new ProducerStateTable();
    const plan = t.planMarker(9, marker(9, 0, false), 0);
    if ('code' in plan) throw new Error('refused');
    expect(plan.completed).toBeNull();
    t.applyMarker(plan);
    expect(t.firstUnstableOffset()).toBeNull();
    t.record(h(2, 0, 0, 1, false), 1);
    const again = t.planMarker(2, marker(2, 0, true), 2);
    expect('code' in again ? null : again.completed).toBeNull();
  });

  it('a producer with an open transaction never expires; once closed it does', () => {
    const t = new ProducerStateTable(1000);
    t.record(h(1, 0, 0), 0, 0);
    expect(t.expire(10_000)).toEqual([]);
    expect(t.firstUnstableOffset()).toBe(0);
    const plan = t.planMarker(1, marker(1, 0, true), 1, 0);
    if ('code' in plan) throw new Error('refused');
    t.applyMarker(plan);
    expect(t.expire(10_000)).toEqual([1]);
  });

  it('stores the open transaction and coordinator epoch, and still reads states written before transactions', () => {
    const old = decodeProducer('1700000000000 2 0:4:10 5:9:15');
    expect(old).toEqual({ lastAppendMs: 1700000000000, epoch: 2, batches: [{ firstSeq: 0, lastSeq: 4, baseOffset: 10 }, { firstSeq: 5, lastSeq: 9, baseOffset: 15 }], txnFirstOffset: -1, coordinatorEpoch: -1 });
    expect(encodeProducer(old!)).toBe('1700000000000 2 0:4:10 5:9:15'); // unchanged for non-transactional producers
    const t = new ProducerStateTable();
    const s = t.record(h(4, 1, 0, 5), 42, 1000)!;
    expect(s).toBe('1000 1 t42 0:4:42');
    const loaded = new ProducerStateTable();
    loaded.load(new Map([[4, s], [5, '1000 0 t7 c3 0:0:7']]), 1000);
    expect(loaded.firstUnstableOffset()).toBe(7);
    expect(loaded.describe().find((d) => d.producerId === 5)).toMatchObject({ txnFirstOffset: 7, coordinatorEpoch: 3 });
    expect(decodeProducer('1000 0 tx 0:0:1')).toBeNull();
  });
});
