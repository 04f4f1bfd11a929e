// The consumer protocol's subscription and assignment encodings and the range assignor.
import { describe, expect, it } from 'vitest';
import { decodeAssignment, decodeSubscription, encodeAssignment, encodeSubscription, rangeAssign } from '../../../cli/kafka/consumer-protocol.js';

describe('consumer protocol', () => {
  it('encodes a v0 subscription as Kafka lays it out and reads it back', () => {
    const b = encodeSubscription(['t']);
    // version 0, one topic "t", null user data
    expect([...b]).toEqual([0, 0, 0, 0, 0, 1, 0, 1, 0x74, 0xff, 0xff, 0xff, 0xff]);
    expect(decodeSubscription(encodeSubscription(['orders', 'pay']))).toEqual(['orders', 'pay']);
  });

  it('round-trips an assignment; an empty one reads as none', () => {
    const a = new Map([['orders', [0, 2]], ['pay', [1]]]);
    expect(decodeAssignment(encodeAssignment(a))).toEqual(a);
    expect(decodeAssignment(Buffer.alloc(0)).size).toBe(0);
  });

  it('gives each member a contiguous range, the first ones one more (RangeAssignor)', () => {
    const plan = rangeAssign(new Map([['m-b', ['t', 'u']], ['m-a', ['t']], ['m-c', ['t']]]), new Map([['t', 7], ['u', 2]]));
    expect(plan.get('m-a')!.get('t')).toEqual([0, 1, 2]);
    expect(plan.get('m-b')!.get('t')).toEqual([3, 4]);
    expect(plan.get('m-c')!.get('t')).toEqual([5, 6]);
    expect(plan.get('m-b')!.get('u')).toEqual([0, 1]);
    expect(plan.get('m-a')!.has('u')).toBe(false);
  });

  it('leaves members past the partition count without any', () => {
    const plan = rangeAssign(new Map([['a', ['t']], ['b', ['t']], ['c', ['t']]]), new Map([['t', 2]]));
    expect([...plan].map(([m, a]) => [m, a.get('t') ?? []])).toEqual([['a', [0]], ['b', [1]], ['c', []]]);
  });
});
