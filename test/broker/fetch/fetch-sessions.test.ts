// The fetch session cache alone (KIP-227 rules as Kafka's FetchManager applies them).
import { describe, expect, it } from 'vitest';
import { FetchSessionCache, FINAL_EPOCH, INITIAL_EPOCH, mustRespond, nextEpoch, type FetchTarget } from '../../../broker/src/fetch/fetch-sessions.js';
import { ErrorCode } from '../../../common/errors.js';

const target = (topic: string, partition: number, fetchOffset = 0): FetchTarget => ({
  key: `${topic}\u0000${partition}`, topic, topicId: '', partition, fetchOffset, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1,
});
const ok = (highWatermark: number, hasRecords = false) => ({ errorCode: ErrorCode.NONE, highWatermark, logStartOffset: 0, hasRecords });

function ids(): () => number {
  let n = 100;
  return () => ++n;
}

describe('fetch session cache', () => {
  it('decides the context from SessionId and SessionEpoch', () => {
    const c = new FetchSessionCache(10, 120_000, ids());
    expect(c.newContext(6, 0, 0, [], [], 0).kind).toBe('sessionless'); // before v7 there are no sessions
    expect(c.newContext(12, 0, FINAL_EPOCH, [], [], 0).kind).toBe('sessionless');
    expect(c.newContext(12, 0, INITIAL_EPOCH, [], [], 0).kind).toBe('full');
    expect(c.newContext(12, 77, 1, [target('t', 0)], [], 0)).toEqual({ kind: 'error', errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND });
    const id = c.create(12, [{ target: target('t', 0), outcome: ok(5) }], 0);
    expect(id).toBe(101);
    expect(c.newContext(12, id, 2, [], [], 0)).toEqual({ kind: 'error', errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH });
    expect(c.newContext(13, id, 1, [], [], 0)).toEqual({ kind: 'error', errorCode: ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR });
    const inc = c.newContext(12, id, 1, [], [], 0);
    expect(inc.kind).toBe('incremental');
    // The epoch moved on: a replay of the same request is refused.
    expect(c.newContext(12, id, 1, [], [], 0)).toEqual({ kind: 'error', errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH });
    expect(c.newContext(12, id, 2, [], [], 0).kind).toBe('incremental');
    // A full fetch naming the session closes it.
    expect(c.newContext(12, id, INITIAL_EPOCH, [], [], 0).kind).toBe('full');
    expect(c.get(id)).toBeUndefined();
  });

  it('adds, updates and forgets partitions; a session left empty ends', () => {
    const c = new FetchSessionCache(10, 120_000, ids());
    const id = c.create(12, [{ target: target('t', 0), outcome: ok(5) }, { target: target('t', 1), outcome: ok(5) }], 0);
    const inc = c.newContext(12, id, 1, [target('t', 1, 9), target('u', 0, 3)], [], 0);
    if (inc.kind !== 'incremental') throw new Error(inc.kind);
    expect([...inc.session.partitions.values()].map((p) => [p.key, p.fetchOffset])).toEqual([['t\u00000', 0], ['t\u00001', 9], ['u\u00000', 3]]);
    const forget = c.newContext(12, id, 2, [], ['t\u00000', 't\u00001', 'u\u00000'], 0);
    expect(forget.kind).toBe('sessionless');
    expect(c.get(id)).toBeUndefined();
  });

  it('answers a partition only when it has records, moved marks or an error', () => {
    const c = new FetchSessionCache(10, 120_000, ids());
    const id = c.create(12, [{ target: target('t', 0), outcome: ok(5) }], 0);
    const cached = c.get(id)!.partitions.get('t\u00000')!;
    expect(mustRespond(cached, ok(5))).toBe(false);
    expect(mustRespond(cached, ok(5, true))).toBe(true);
    expect(mustRespond(cached, ok(6))).toBe(true);
    expect(mustRespond(cached, ok(6))).toBe(false);
    expect(mustRespond(cached, { ...ok(6), logStartOffset: 2 })).toBe(true);
    expect(mustRespond(cached, { ...ok(-1), logStartOffset: 2, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER })).toBe(true);
    // After an error the partition is sent again even with the old marks.
    expect(mustRespond(cached, { ...ok(6), logStartOffset: 2 })).toBe(true);
  });

  it('evicts as Kafka does: a stale session first, else a smaller session older than the eviction time', () => {
    const c = new FetchSessionCache(2, 1000, ids());
    const parts = (n: number) => Array.from({ length: n }, (_, i) => ({ target: target('t', i), outcome: ok(0) }));
    const a = c.create(12, parts(3), 0);
    const b = c.create(12, parts(1), 0);
    // Full and nothing old enough to evict: no session.
    expect(c.create(12, parts(5), 500)).toBe(0);
    // b is older than 1 s but used recently (not stale); a bigger session may evict the smallest old one.
    c.newContext(12, a, 1, [], [], 1400);
    c.newContext(12, b, 1, [], [], 1400);
    expect(c.create(12, parts(1), 1500)).toBe(0); // not bigger than b
    const d = c.create(12, parts(2), 1500);
    expect(d).toBeGreaterThan(0);
    expect(c.get(b)).toBeUndefined();
    expect(c.get(a)).toBeDefined();
    // a stale session (unused for more than 1 s) goes first, whatever its size
    expect(c.create(12, parts(1), 2600)).toBeGreaterThan(0);
    expect(c.get(a)).toBeUndefined();
    expect(c.size).toBe(2);
  });

  it('is off with 0 slots, and epochs wrap to 1', () => {
    expect(new FetchSessionCache(0).create(12, [], 0)).toBe(0);
    expect(nextEpoch(0)).toBe(1);
    expect(nextEpoch(0x7fffffff)).toBe(1);
    expect(nextEpoch(-1)).toBe(FINAL_EPOCH);
  });
});
