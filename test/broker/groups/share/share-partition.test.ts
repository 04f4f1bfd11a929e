import { describe, expect, it } from 'vitest';
import { AckType, RecordState, SharePartition, type ShareLimits } from '../../../../broker/src/groups/share/share-partition.js';
import { ErrorCode } from '../../../../common/errors.js';

const limits: ShareLimits = { lockMs: 30_000, deliveryLimit: 5, maxLocks: 100 };
const T0 = 1_000_000;

describe('SharePartition: acquisition', () => {
  it('acquires new records from the SPSO with delivery count 1 and moves the SPEO', () => {
    const sp = new SharePartition(10);
    expect(sp.nextFetchOffset()).toBe(10);
    expect(sp.acquire('m1', 10, 14, 500, T0, limits)).toEqual([{ firstOffset: 10, lastOffset: 14, deliveryCount: 1 }]);
    expect(sp.endOffset).toBe(15);
    expect(sp.startOffset).toBe(10);
    expect(sp.record(12)).toEqual({ state: RecordState.ACQUIRED, deliveryCount: 1, lockUntil: T0 + 30_000, memberId: 'm1' });
    // Nothing is available: the next fetch reads from the SPEO.
    expect(sp.nextFetchOffset()).toBe(15);
  });

  it('a second member gets only the records the first does not hold', () => {
    const sp = new SharePartition(0);
    sp.acquire('m1', 0, 4, 3, T0, limits); // 0..2
    expect(sp.acquire('m2', 0, 4, 500, T0, limits)).toEqual([{ firstOffset: 3, lastOffset: 4, deliveryCount: 1 }]);
    expect(sp.record(1)?.memberId).toBe('m1');
    expect(sp.record(4)?.memberId).toBe('m2');
  });

  it('bounds the in-flight window by group.share.partition.max.record.locks', () => {
    const sp = new SharePartition(0);
    expect(sp.acquire('m1', 0, 1000, 5000, T0, { ...limits, maxLocks: 10 })).toEqual([{ firstOffset: 0, lastOffset: 9, deliveryCount: 1 }]);
    expect(sp.acquire('m2', 10, 1000, 5000, T0, { ...limits, maxLocks: 10 })).toEqual([]);
    // Accepting the front of the window makes room.
    sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 2, acknowledgeTypes: [AckType.ACCEPT] }], T0, limits);
    expect(sp.startOffset).toBe(3);
    expect(sp.acquire('m2', 10, 1000, 5000, T0, { ...limits, maxLocks: 10 })).toEqual([{ firstOffset: 10, lastOffset: 12, deliveryCount: 1 }]);
  });
});

describe('SharePartition: read_committed', () => {
  it('archives the offsets `archive` names (records of aborted transactions) instead of delivering them, and the SPSO moves over them', () => {
    const sp = new SharePartition(0);
    const aborted = (o: number): boolean => o >= 0 && o <= 2;
    expect(sp.acquire('m1', 0, 5, 500, T0, limits, aborted)).toEqual([{ firstOffset: 3, lastOffset: 5, deliveryCount: 1 }]);
    expect(sp.record(1)).toBeUndefined(); // archived at the head: the window moved past it
    expect(sp.startOffset).toBe(3);
    // an AVAILABLE record later found aborted is archived too, and does not count against MaxRecords
    const sp2 = new SharePartition(0);
    sp2.acquire('m1', 0, 3, 500, T0, limits);
    sp2.acknowledge('m1', [{ firstOffset: 0, lastOffset: 3, acknowledgeTypes: [AckType.RELEASE] }], T0, limits);
    expect(sp2.acquire('m2', 0, 5, 2, T0, limits, (o) => o === 1 || o === 2)).toEqual([{ firstOffset: 0, lastOffset: 0, deliveryCount: 2 }, { firstOffset: 3, lastOffset: 3, deliveryCount: 2 }]);
    expect(sp2.record(2)?.state).toBe(RecordState.ARCHIVED);
  });
});

describe('SharePartition: acknowledgements', () => {
  it('ACCEPT completes records and the SPSO moves over them', () => {
    const sp = new SharePartition(0);
    sp.acquire('m1', 0, 9, 500, T0, limits);
    expect(sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [AckType.ACCEPT] }], T0, limits).errorCode).toBe(ErrorCode.NONE);
    expect(sp.startOffset).toBe(5);
    expect(sp.inFlightCount).toBe(5);
  });

  it('RELEASE makes a record available again; its next delivery counts 2', () => {
    const sp = new SharePartition(0);
    sp.acquire('m1', 0, 2, 500, T0, limits);
    sp.acknowledge('m1', [{ firstOffset: 1, lastOffset: 1, acknowledgeTypes: [AckType.RELEASE] }], T0, limits);
    expect(sp.record(1)?.state).toBe(RecordState.AVAILABLE);
    expect(sp.nextFetchOffset()).toBe(1);
    expect(sp.acquire('m2', 1, 2, 500, T0, limits)).toEqual([{ firstOffset: 1, lastOffset: 1, deliveryCount: 2 }]);
  });

  it('REJECT and GAP archive; per-offset types apply one by one', () => {
    const sp = new SharePartition(0);
    sp.acquire('m1', 0, 3, 500, T0, limits);
    const r = sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 3, acknowledgeTypes: [AckType.ACCEPT, AckType.REJECT, AckType.GAP, AckType.RELEASE] }], T0, limits);
    expect(r.errorCode).toBe(ErrorCode.NONE);
    expect(sp.startOffset).toBe(3);
    expect(sp.record(3)?.state).toBe(RecordState.AVAILABLE);
    expect(sp.acquire('m1', 0, 3, 500, T0, limits)).toEqual([{ firstOffset: 3, lastOffset: 3, deliveryCount: 2 }]);
  });

  it('a record not acquired by the member is INVALID_RECORD_STATE and nothing of the request is applied', () => {
    const sp = new SharePartition(0);
    sp.acquire('m1', 0, 1, 500, T0, limits);
    sp.acquire('m2', 2, 3, 500, T0, limits);
    const r = sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [AckType.ACCEPT] }, { firstOffset: 2, lastOffset: 2, acknowledgeTypes: [AckType.ACCEPT] }], T0, limits);
    expect(r.errorCode).toBe(ErrorCode.INVALID_RECORD_STATE);
    expect(sp.record(0)?.state).toBe(RecordState.ACQUIRED);
    expect(sp.acknowledge('m1', [{ firstOffset: 5, lastOffset: 5, acknowledgeTypes: [AckType.ACCEPT] }], T0, limits).errorCode).toBe(ErrorCode.INVALID_RECORD_STATE);
  });

  it('a batch whose type count matches neither 1 nor its length is INVALID_REQUEST', () => {
    const sp = new SharePartition(0);
    sp.acquire('m1', 0, 3, 500, T0, limits);
    expect(sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 3, acknowledgeTypes: [1, 1] }], T0, limits).errorCode).toBe(ErrorCode.INVALID_REQUEST);
  });

  it('RENEW starts the acquisition lock again', () => {
    const sp = new SharePartition(0);
    sp.acquire('m1', 0, 0, 500, T0, limits);
    sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [AckType.RENEW] }], T0 + 20_000, limits);
    expect(sp.record(0)?.lockUntil).toBe(T0 + 50_000);
    expect(sp.expireLocks(T0 + 40_000, limits)).toBe(false);
    expect(sp.record(0)?.state).toBe(RecordState.ACQUIRED);
  });
});

describe('SharePartition: locks, delivery counts, members', () => {
  it('an expired lock makes the record available; the old holder can no longer acknowledge it', () => {
    const sp = new SharePartition(0);
    sp.acquire('m1', 0, 1, 500, T0, limits);
    expect(sp.nextLockDeadline()).toBe(T0 + 30_000);
    expect(sp.expireLocks(T0 + 29_999, limits)).toBe(false);
    expect(sp.expireLocks(T0 + 30_000, limits)).toBe(true);
    expect(sp.record(0)).toEqual({ state: RecordState.AVAILABLE, deliveryCount: 1, lockUntil: 0, memberId: '' });
    expect(sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [AckType.ACCEPT] }], T0 + 30_001, limits).errorCode).toBe(ErrorCode.INVALID_RECORD_STATE);
    expect(sp.acquire('m2', 0, 1, 500, T0 + 30_001, limits)).toEqual([{ firstOffset: 0, lastOffset: 1, deliveryCount: 2 }]);
  });

  it('a record released at the delivery-count limit is archived, and the SPSO passes it', () => {
    const sp = new SharePartition(0);
    const lim = { ...limits, deliveryLimit: 3 };
    for (let d = 1; d <= 3; d++) {
      expect(sp.acquire('m1', 0, 0, 500, T0, lim)).toEqual([{ firstOffset: 0, lastOffset: 0, deliveryCount: d }]);
      sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [AckType.RELEASE] }], T0, lim);
    }
    expect(sp.startOffset).toBe(1);
    expect(sp.acquire('m1', 0, 0, 500, T0, lim)).toEqual([]);
  });

  it('a lock expiring at the limit archives too', () => {
    const sp = new SharePartition(0);
    const lim = { ...limits, deliveryLimit: 1 };
    sp.acquire('m1', 0, 0, 500, T0, lim);
    sp.expireLocks(T0 + 30_000, lim);
    expect(sp.startOffset).toBe(1);
  });

  it('a member leaving releases what it holds, and nothing of others', () => {
    const sp = new SharePartition(0);
    sp.acquire('m1', 0, 1, 500, T0, limits);
    sp.acquire('m2', 2, 3, 500, T0, limits);
    expect(sp.releaseMember('m1', limits)).toBe(true);
    expect(sp.record(0)?.state).toBe(RecordState.AVAILABLE);
    expect(sp.record(2)?.state).toBe(RecordState.ACQUIRED);
    expect(sp.releaseMember('m1', limits)).toBe(false);
  });

  it('a log start past the SPSO drops the records below it', () => {
    const sp = new SharePartition(0);
    sp.acquire('m1', 0, 4, 500, T0, limits);
    expect(sp.moveStartTo(3)).toBe(true);
    expect(sp.startOffset).toBe(3);
    expect(sp.record(1)).toBeUndefined();
    expect(sp.moveStartTo(2)).toBe(false);
  });
});

describe('SharePartition: stored form', () => {
  it('round-trips through runs of equal records', () => {
    const sp = new SharePartition(0);
    sp.acquire('m1', 0, 9, 500, T0, limits);
    sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [AckType.ACCEPT] }, { firstOffset: 4, lastOffset: 5, acknowledgeTypes: [AckType.RELEASE] }, { firstOffset: 6, lastOffset: 6, acknowledgeTypes: [AckType.REJECT] }], T0, limits);
    const stored = sp.toStored();
    expect(stored).toEqual({
      startOffset: 2, endOffset: 10,
      runs: [[2, 3, RecordState.ACQUIRED, 1, T0 + 30_000, 'm1'], [4, 5, RecordState.AVAILABLE, 1, 0, ''], [6, 6, RecordState.ARCHIVED, 1, 0, ''], [7, 9, RecordState.ACQUIRED, 1, T0 + 30_000, 'm1']],
    });
    const back = SharePartition.fromStored(JSON.parse(JSON.stringify(stored)));
    expect(back.toStored()).toEqual(stored);
    // The holder keeps its records across a reload: its acknowledgement still applies.
    expect(back.acknowledge('m1', [{ firstOffset: 2, lastOffset: 3, acknowledgeTypes: [AckType.ACCEPT] }], T0, limits).errorCode).toBe(ErrorCode.NONE);
    expect(back.startOffset).toBe(4);
  });
});
