// The server-side assignors of consumer-protocol groups: uniform (balanced,
// sticky, heterogeneous subscriptions) and range (contiguous per topic).
import { describe, expect, it } from 'vitest';
import { ASSIGNORS, rangeAssignor, uniformAssignor, type AssignorMember, type TopicMeta } from '../../../../broker/src/groups/consumer/assignors.js';
import { CONSUMER_ASSIGNOR_NAMES } from '../../../../broker/src/config/group-consumer.js';
import type { Partitions } from '../../../../broker/src/groups/consumer/partitions.js';

const topic = (name: string, partitions: number): TopicMeta => ({ name, id: `id-${name}`, partitions });
const member = (memberId: string, topics: string[], current: Partitions = new Map()): AssignorMember => ({ memberId, topics: new Set(topics.map((t) => `id-${t}`)), current });
const flat = (p: Partitions | undefined): string[] => [...(p ?? new Map())].flatMap(([t, s]) => [...s].sort((a, b) => a - b).map((x) => `${t.slice(3)}-${x}`));
const counts = (r: Map<string, Partitions>): number[] => [...r.values()].map((p) => flat(p).length);

describe('uniform assignor', () => {
  it('spreads 7 partitions over 3 members 3/2/2, every partition exactly once', () => {
    const topics = new Map([topic('t', 7)].map((t) => [t.id, t]));
    const r = uniformAssignor.assign([member('a', ['t']), member('b', ['t']), member('c', ['t'])], topics);
    expect(counts(r).sort()).toEqual([2, 2, 3]);
    expect(new Set([...r.values()].flatMap(flat)).size).toBe(7);
  });

  it('is sticky: after a member leaves, the others keep what they had', () => {
    const topics = new Map([topic('t', 6)].map((t) => [t.id, t]));
    const first = uniformAssignor.assign([member('a', ['t']), member('b', ['t']), member('c', ['t'])], topics);
    const second = uniformAssignor.assign([member('a', ['t'], first.get('a')), member('b', ['t'], first.get('b'))], topics);
    expect(flat(second.get('a'))).toEqual(expect.arrayContaining(flat(first.get('a'))));
    expect(flat(second.get('b'))).toEqual(expect.arrayContaining(flat(first.get('b'))));
    expect(counts(second)).toEqual([3, 3]);
  });

  it('heterogeneous subscriptions: each member gets only topics it subscribes to, balanced where it can', () => {
    const topics = new Map([topic('x', 4), topic('y', 2)].map((t) => [t.id, t]));
    const r = uniformAssignor.assign([member('a', ['x']), member('b', ['x', 'y']), member('c', ['y'])], topics);
    expect(flat(r.get('a')).every((p) => p.startsWith('x-'))).toBe(true);
    expect(flat(r.get('c')).every((p) => p.startsWith('y-'))).toBe(true);
    expect(counts(r).reduce((a, b) => a + b)).toBe(6);
    expect(Math.max(...counts(r)) - Math.min(...counts(r))).toBeLessThanOrEqual(1);
  });
});

describe('range assignor', () => {
  it('gives each member a contiguous range per topic, the first members one more', () => {
    const topics = new Map([topic('x', 5), topic('y', 3)].map((t) => [t.id, t]));
    const r = rangeAssignor.assign([member('b', ['x', 'y']), member('a', ['x', 'y'])], topics);
    expect(flat(r.get('a'))).toEqual(['x-0', 'x-1', 'x-2', 'y-0', 'y-1']);
    expect(flat(r.get('b'))).toEqual(['x-3', 'x-4', 'y-2']);
  });
});

describe('group.consumer.assignors', () => {
  it('names exactly the assignors there are', () => {
    expect([...ASSIGNORS.keys()]).toEqual(CONSUMER_ASSIGNOR_NAMES);
  });
});
