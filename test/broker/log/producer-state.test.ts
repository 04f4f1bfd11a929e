import { describe, expect, it } from 'vitest';
import { ProducerStateTable, decodeProducer } from '../../../broker/src/log/producer-state.js';
import { ErrorCode } from '../../../common/errors.js';
import { readHeader, type BatchHeader } from '../../../broker/src/record-batch/batch.js';
import { buildBatch } from '../../helpers/batches.js';

/** The header of a real batch of `count` records from that producer. */
const h = (producerId: number, producerEpoch: number, baseSequence: number, count = 1): BatchHeader =>
  readHeader(buildBatch(Array.from({ length: count }, () => ({ key: null, value: Buffer.from('v') })), { producerId, producerEpoch, baseSequence, baseTimestamp: 0 }));

describe('ProducerStateTable', () => {
  it('accepts contiguous sequences and detects a duplicate of one of the last 5 batches', () => {
    const t = new ProducerStateTable();
    let offset = 0;
    for (let seq = 0; seq < 30; seq += 3) {
      expect(t.check(h(7, 0, seq, 3)).kind).toBe('append');
      t.record(h(7, 0, seq, 3), offset);
      offset += 3;
    }
    expect(t.check(h(7, 0, 27, 3))).toEqual({ kind: 'duplicate', baseOffset: 27 });
    expect(t.check(h(7, 0, 15, 3))).toEqual({ kind: 'duplicate', baseOffset: 15 });
    // older than the 5 cached batches: a sequence error, as in Kafka
    expect(t.check(h(7, 0, 3, 3))).toMatchObject({ kind: 'error', code: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER });
  });

  it('rejects a gap with OUT_OF_ORDER_SEQUENCE_NUMBER', () => {
    const t = new ProducerStateTable();
    t.record(h(1, 0, 0, 5), 0);
    expect(t.check(h(1, 0, 6))).toMatchObject({ kind: 'error', code: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER });
    expect(t.check(h(1, 0, 5)).kind).toBe('append');
  });

  it('fences an older epoch and requires sequence 0 for a new one', () => {
    const t = new ProducerStateTable();
    t.record(h(1, 3, 0), 0);
    expect(t.check(h(1, 2, 1))).toMatchObject({ kind: 'error', code: ErrorCode.INVALID_PRODUCER_EPOCH });
    expect(t.check(h(1, 4, 5))).toMatchObject({ kind: 'error', code: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER });
    expect(t.check(h(1, 4, 0)).kind).toBe('append');
  });

  it('wraps sequences at Int32.MAX', () => {
    const t = new ProducerStateTable();
    t.record(h(1, 0, 2147483646, 2), 0);
    expect(t.check(h(1, 0, 0)).kind).toBe('append');
  });

  it('round-trips through the stored form and keeps detecting duplicates', () => {
    const t = new ProducerStateTable();
    let stored = '';
    for (let seq = 0; seq < 20; seq += 2) stored = t.record(h(5, 1, seq, 2), seq, 1000)!;
    expect(decodeProducer(stored)).toEqual({ epoch: 1, lastAppendMs: 1000, batches: [10, 12, 14, 16, 18].map((f) => ({ firstSeq: f, lastSeq: f + 1, baseOffset: f })), txnFirstOffset: -1, coordinatorEpoch: -1 });
    const reloaded = new ProducerStateTable();
    reloaded.load(new Map([[5, stored]]), 2000);
    expect(reloaded.check(h(5, 1, 18, 2), 2000)).toEqual({ kind: 'duplicate', baseOffset: 18 });
    expect(reloaded.check(h(5, 1, 10, 2), 2000)).toEqual({ kind: 'duplicate', baseOffset: 10 });
    expect(reloaded.check(h(5, 1, 24, 2), 2000).kind).toBe('error');
    expect(reloaded.check(h(5, 0, 20, 2), 2000)).toMatchObject({ kind: 'error', code: ErrorCode.INVALID_PRODUCER_EPOCH });
    expect(reloaded.check(h(5, 1, 20, 2), 2000).kind).toBe('append');
  });

  it('forgets a producer after producer.id.expiration.ms, then accepts it as new (KIP-360)', () => {
    const t = new ProducerStateTable(60_000);
    t.record(h(9, 0, 0, 1), 0, 1_000);
    t.record(h(8, 0, 0, 1), 1, 50_000);
    expect(t.check(h(9, 0, 5), 60_999).kind).toBe('error'); // still known: gap
    expect(t.expire(61_000)).toEqual([9]);
    expect(t.check(h(9, 0, 5), 61_000).kind).toBe('append'); // unknown now: any sequence
    expect(t.describe().map((d) => d.producerId)).toEqual([8]);
    const reloaded = new ProducerStateTable(60_000);
    reloaded.load(new Map([[9, '1000 0 0:0:0'], [8, '50000 0 0:0:1']]), 61_000);
    expect(reloaded.describe().map((d) => d.producerId)).toEqual([8]);
  });
});
