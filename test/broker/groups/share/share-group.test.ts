import { describe, expect, it } from 'vitest';
import { ShareGroup, invalidShareHeartbeat } from '../../../../broker/src/groups/share/share-group.js';
import { simpleAssign } from '../../../../broker/src/groups/share/simple-assignor.js';
import type { TopicMeta } from '../../../../broker/src/groups/consumer/assignors.js';
import { ErrorCode } from '../../../../common/errors.js';

const topics = (...ts: Array<[string, number]>): Map<string, TopicMeta> => new Map(ts.map(([name, partitions]) => [name, { name, id: `id-${name}`, partitions }]));
const join = (memberId: string, subs: string[]) => ({ memberId, memberEpoch: 0, rackId: null, subscribedTopicNames: subs, clientId: 'c', clientHost: '/h' });
const beat = (memberId: string, memberEpoch: number) => ({ memberId, memberEpoch, rackId: null, subscribedTopicNames: null, clientId: 'c', clientHost: '/h' });

describe('simple assignor (share groups)', () => {
  it('several members share a partition when they outnumber the partitions', () => {
    const a = simpleAssign([{ memberId: 'a', subscribedTopicNames: ['t'] }, { memberId: 'b', subscribedTopicNames: ['t'] }, { memberId: 'c', subscribedTopicNames: ['t'] }], topics(['t', 2]));
    expect(a.get('a')?.get('id-t')).toEqual([0]);
    expect(a.get('b')?.get('id-t')).toEqual([1]);
    expect(a.get('c')?.get('id-t')).toEqual([0]);
  });

  it('partitions are spread when they outnumber the members', () => {
    const a = simpleAssign([{ memberId: 'a', subscribedTopicNames: ['t'] }, { memberId: 'b', subscribedTopicNames: ['t'] }], topics(['t', 5]));
    expect(a.get('a')?.get('id-t')).toEqual([0, 2, 4]);
    expect(a.get('b')?.get('id-t')).toEqual([1, 3]);
  });
});

describe('ShareGroup membership', () => {
  it('a joining member gets the group epoch and its assignment; two members share one partition', () => {
    const g = new ShareGroup('g');
    const t = topics(['t', 1]);
    const a = g.heartbeat(join('a', ['t']), t, 10);
    expect(a).toMatchObject({ errorCode: ErrorCode.NONE, memberId: 'a', memberEpoch: 1 });
    expect(a.assignment).toEqual(new Map([['id-t', [0]]]));
    const b = g.heartbeat(join('b', ['t']), t, 10);
    expect(b.memberEpoch).toBe(2);
    expect(b.assignment).toEqual(new Map([['id-t', [0]]]));
    // a moves to the new epoch; its assignment did not change, so none is sent.
    expect(g.heartbeat(beat('a', 1), t, 10)).toMatchObject({ errorCode: ErrorCode.NONE, memberEpoch: 2, assignment: null });
    expect(g.heartbeat(beat('a', 2), t, 10)).toMatchObject({ memberEpoch: 2, assignment: null });
  });

  it('a member of an old epoch is fenced; an unknown one is UNKNOWN_MEMBER_ID', () => {
    const g = new ShareGroup('g');
    const t = topics(['t', 2]);
    g.heartbeat(join('a', ['t']), t, 10);
    g.heartbeat(join('b', ['t']), t, 10);
    g.heartbeat(beat('a', 1), t, 10);
    expect(g.heartbeat(beat('a', 1), t, 10).errorCode).toBe(ErrorCode.FENCED_MEMBER_EPOCH);
    expect(g.heartbeat(beat('zz', 3), t, 10).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('a partition added to a subscribed topic is assigned on the next heartbeat', () => {
    const g = new ShareGroup('g');
    g.heartbeat(join('a', ['t']), topics(['t', 1]), 10);
    const r = g.heartbeat(beat('a', 1), topics(['t', 3]), 10);
    expect(r.memberEpoch).toBe(2);
    expect(r.assignment).toEqual(new Map([['id-t', [0, 1, 2]]]));
  });

  it('leaving (-1) and removal bump the epoch and reassign the others', () => {
    const g = new ShareGroup('g');
    const t = topics(['t', 2]);
    g.heartbeat(join('a', ['t']), t, 10);
    g.heartbeat(join('b', ['t']), t, 10);
    expect(g.heartbeat(beat('a', 1), t, 10)).toMatchObject({ memberEpoch: 2, assignment: new Map([['id-t', [0]]]) });
    expect(g.heartbeat({ ...beat('b', 2), memberEpoch: -1 }, t, 10)).toMatchObject({ errorCode: ErrorCode.NONE, memberEpoch: -1 });
    expect(g.members.size).toBe(1);
    const r = g.heartbeat(beat('a', 2), t, 10);
    expect(r.memberEpoch).toBe(3);
    expect(r.assignment).toEqual(new Map([['id-t', [0, 1]]]));
    expect(g.state).toBe('Stable');
    g.removeMember('a');
    expect(g.state).toBe('Empty');
  });

  it('GROUP_MAX_SIZE_REACHED past group.share.max.size', () => {
    const g = new ShareGroup('g');
    g.heartbeat(join('a', ['t']), topics(['t', 1]), 1);
    expect(g.heartbeat(join('b', ['t']), topics(['t', 1]), 1).errorCode).toBe(ErrorCode.GROUP_MAX_SIZE_REACHED);
  });

  it('Kafka\'s request checks', () => {
    expect(invalidShareHeartbeat({ groupId: '', memberId: 'a', memberEpoch: 0, subscribedTopicNames: ['t'] })).toMatch(/GroupId/);
    expect(invalidShareHeartbeat({ groupId: 'g', memberId: '', memberEpoch: 0, subscribedTopicNames: ['t'] })).toMatch(/MemberId/);
    expect(invalidShareHeartbeat({ groupId: 'g', memberId: 'a', memberEpoch: 0, subscribedTopicNames: null })).toMatch(/SubscribedTopicNames/);
    expect(invalidShareHeartbeat({ groupId: 'g', memberId: 'a', memberEpoch: -2, subscribedTopicNames: null })).toMatch(/MemberEpoch/);
    expect(invalidShareHeartbeat({ groupId: 'g', memberId: 'a', memberEpoch: 3, subscribedTopicNames: null })).toBeNull();
  });
});
