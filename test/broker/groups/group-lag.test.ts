// Group lag as `runnel status` and the console show it: per partition with a
// committed offset or an assigned member, log end - committed.
import { describe, expect, it } from 'vitest';
import { assignedPartitions } from '../../../broker/src/groups/consumer-protocol.js';
import { groupLag } from '../../../broker/src/groups/group-lag.js';
import type { CommittedOffset, StoredMember } from '../../../broker/src/groups/group-store.js';

/** ConsumerProtocolAssignment v0 bytes. */
function assignment(topics: Record<string, number[]>): Buffer {
  const parts: Buffer[] = [Buffer.from([0, 0]), Buffer.alloc(4)];
  parts[1]!.writeInt32BE(Object.keys(topics).length);
  for (const [t, ps] of Object.entries(topics)) {
    const name = Buffer.from(t);
    const head = Buffer.alloc(2 + name.length + 4);
    head.writeInt16BE(name.length, 0);
    name.copy(head, 2);
    head.writeInt32BE(ps.length, 2 + name.length);
    parts.push(head, Buffer.concat(ps.map((p) => { const b = Buffer.alloc(4); b.writeInt32BE(p); return b; })));
  }
  parts.push(Buffer.from([0xff, 0xff, 0xff, 0xff])); // null user data
  return Buffer.concat(parts);
}

const off = (offset: number): CommittedOffset => ({ offset, leaderEpoch: -1, metadata: '', commitTimestamp: 0 });
const member = (clientId: string, a: Buffer): StoredMember => ({
  memberId: `${clientId}-m`, groupInstanceId: null, clientId, clientHost: '/127.0.0.1', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, metadata: Buffer.alloc(0), assignment: a,
});

describe('group lag', () => {
  it('decodes consumer-protocol assignments; other bytes are null', () => {
    expect(assignedPartitions(assignment({ a: [0, 2], b: [1] }))).toEqual([{ topic: 'a', partitions: [0, 2] }, { topic: 'b', partitions: [1] }]);
    expect(assignedPartitions(Buffer.from([0, 0, 0, 0, 0, 5, 0]))).toBeNull();
    expect(assignedPartitions(Buffer.alloc(1))).toBeNull();
  });

  it('lag = log end - committed per partition, assigned partitions without commits included, total summed', () => {
    const ends: Record<string, number> = { 'a/0': 10, 'a/1': 4, 'a/2': 7 };
    const g = groupLag('g', {
      group: { groupId: 'g', protocolType: 'consumer', protocolName: 'range', generation: 3, leader: 'c1-m', stateTimestamp: 0, members: [member('c1', assignment({ a: [0, 1, 2] }))] },
      offsets: new Map([['a/0', off(6)], ['a/1', off(4)], ['gone/0', off(3)]]),
    }, (t, p) => ends[`${t}/${p}`] ?? null);
    expect(g).toMatchObject({ groupId: 'g', state: 'Stable', protocolType: 'consumer', protocolName: 'range', generation: 3, totalLag: 4 });
    expect(g.members).toEqual([{ memberId: 'c1-m', groupInstanceId: null, clientId: 'c1', clientHost: '/127.0.0.1', assignment: [{ topic: 'a', partitions: [0, 1, 2] }] }]);
    expect(g.partitions).toEqual([
      { topic: 'a', partition: 0, committedOffset: 6, logEndOffset: 10, lag: 4, clientId: 'c1' },
      { topic: 'a', partition: 1, committedOffset: 4, logEndOffset: 4, lag: 0, clientId: 'c1' },
      { topic: 'a', partition: 2, committedOffset: null, logEndOffset: 7, lag: null, clientId: 'c1' },
      { topic: 'gone', partition: 0, committedOffset: 3, logEndOffset: null, lag: null, clientId: null },
    ]);
  });

  it('a group with only offsets is Empty; a commit past the log end is lag 0', () => {
    const g = groupLag('s', { group: null, offsets: new Map([['a/0', off(12)]]) }, () => 10);
    expect(g).toMatchObject({ state: 'Empty', members: [], generation: 0, totalLag: 0 });
    expect(g.partitions[0]!.lag).toBe(0);
  });

  it('a consumer-protocol group (KIP-848) lists its members, Stable, type consumer, with its offsets\' lag', () => {
    const g = groupLag('cg', {
      group: {
        groupId: 'cg', protocolType: null, protocolName: null, generation: 3, leader: null, stateTimestamp: 0, members: [],
        consumer: {
          groupEpoch: 3, assignmentEpoch: 3, assignorName: 'uniform', subscriptionMetadata: '',
          members: [{ memberId: 'm', instanceId: null, rackId: null, clientId: 'java', clientHost: '/h', rebalanceTimeoutMs: 1, subscribedTopicNames: ['t'], subscribedTopicRegex: null,
            serverAssignor: null, memberEpoch: 3, previousMemberEpoch: 2, state: 'STABLE', assigned: [], pendingRevocation: [], target: [] }],
        },
      },
      offsets: new Map([['t/0', off(4)]]),
    }, () => 10);
    expect(g).toMatchObject({ state: 'Stable', protocolType: 'consumer', generation: 3, totalLag: 6 });
    expect(g.members).toEqual([{ memberId: 'm', groupInstanceId: null, clientId: 'java', clientHost: '/h', assignment: null }]);
  });
});
