import { describe, expect, it } from 'vitest';
import { ProducerStateTable } from '../../../broker/src/log/producer-state.js';
import { ErrorCode } from '../../../broker/src/errors.js';
import type { BatchHeader } from '../../../broker/src/record-batch/batch.js';

const h = (producerId: number, producerEpoch: number, baseSequence: number, count = 1): BatchHeader => ({
  baseOffset: 0, size: 100, partitionLeaderEpoch: 0, attributes: 0, lastOffsetDelta: count - 1,
  baseTimestamp: 0, maxTimestamp: 0, producerId, producerEpoch, baseSequence, recordCount: count,
});

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

  it('rebuilds from batches seen newest-first', () => {
    const t = new ProducerStateTable();
    for (let i = 9; i >= 0; i--) t.recordOlder({ ...h(5, 1, i * 2, 2), baseOffset: i * 2 });
    expect(t.check(h(5, 1, 18, 2))).toEqual({ kind: 'duplicate', baseOffset: 18 });
    expect(t.check(h(5, 1, 20, 2)).kind).toBe('append');
  });
});
