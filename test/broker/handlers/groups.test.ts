// The consumer-group handlers at every advertised version, through the real
// codec: requests are encoded and decoded as a client would send them, and
// every response must encode (no null in a non-nullable field, ...).
import { describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../../broker/src/config/config.js';
import { LogManager } from '../../../broker/src/log/log-manager.js';
import { soloCluster } from '../../../broker/src/cluster/cluster-view.js';
import { createLogger } from '../../../common/logger/logger.js';
import { ErrorCode } from '../../../common/errors.js';
import { GroupCoordinator } from '../../../broker/src/groups/coordinator.js';
import { decode, encode } from '../../../broker/src/protocol/codec.js';
import { Reader } from '../../../broker/src/protocol/reader.js';
import type { BrokerServices, Handler } from '../../../broker/src/handlers/support/types.js';
import { buildHandlers } from '../../../broker/src/handlers/support/registry.js';
import { MemoryLogStore } from '../support/memory-log-store.js';
import { MemoryGroupStore } from '../support/memory-group-store.js';
import { noTransactions } from '../support/services.js';
import { FakeClock, flush } from '../support/fake-clock.js';
import { newSession } from '../../../broker/src/security/session.js';

const E = ErrorCode;

function services() {
  const config = loadBrokerConfig([], {});
  const store = new MemoryLogStore();
  const clock = new FakeClock();
  const groups = new GroupCoordinator(new MemoryGroupStore(), clock, { settings: { initialRebalanceDelayMs: 0 } });
  const cluster = soloCluster({ nodeId: config.nodeId, host: '127.0.0.1', port: 9092, rack: null });
  const b: BrokerServices = { config, clusterId: 'c', log: new LogManager(store, config), logger: createLogger('error', 'test'), cluster, groups, txn: noTransactions };
  return { b, clock };
}

const handlers = new Map<string, Handler>(buildHandlers().map((h) => [h.api.name, h]));

/** Encodes the request at `v`, decodes it as the broker does, handles it and round-trips the response. */
async function call(b: BrokerServices, api: string, v: number, req: Record<string, unknown>, clock?: FakeClock): Promise<Record<string, any>> {
  const h = handlers.get(api)!;
  const wire = encode(h.api.request, v, req).toBuffer();
  const decoded = decode(h.api.request, v, new Reader(wire));
  const pending = h.handle(decoded, { apiKey: h.api.apiKey, apiVersion: v, correlationId: 1, clientId: 'cli', session: newSession(1, '127.0.0.1') }, b);
  if (clock) await clock.advance(0);
  const res = await pending;
  const out = encode(h.api.response, v, res!).toBuffer();
  return decode(h.api.response, v, new Reader(out));
}

const sub = Buffer.from([0, 0, 0, 0, 0, 1, 0, 1, 0x74, 0xff, 0xff, 0xff, 0xff]); // v0 subscription to topic "t"

describe('group handlers over the codec, every version', () => {
  it('advertise exactly the issue\'s version ranges', () => {
    const ranges = Object.fromEntries([...handlers.values()].map((h) => [h.api.name, `${h.minVersion}-${h.maxVersion}`]));
    expect(ranges).toMatchObject({
      FindCoordinator: '0-4', JoinGroup: '0-9', SyncGroup: '0-5', Heartbeat: '0-4', LeaveGroup: '0-5', OffsetCommit: '0-9',
      OffsetFetch: '0-9', ListGroups: '0-5', DescribeGroups: '0-5', DeleteGroups: '0-2', OffsetDelete: '0-0',
      ConsumerGroupHeartbeat: '0-1', ConsumerGroupDescribe: '0-1',
    });
  });

  it('FindCoordinator v0-4: this broker for groups and for transactional ids', async () => {
    const { b } = services();
    for (let v = 0; v <= 3; v++) {
      const r = await call(b, 'FindCoordinator', v, { key: 'g', keyType: 0 });
      expect(r).toMatchObject({ errorCode: 0, nodeId: b.config.nodeId, host: b.config.advertisedHost, port: b.config.advertisedPort });
      if (v >= 1) expect(await call(b, 'FindCoordinator', v, { key: 'tx', keyType: 1 })).toMatchObject({ errorCode: 0, nodeId: b.config.nodeId });
      if (v >= 1) expect((await call(b, 'FindCoordinator', v, { key: 'x', keyType: 2 })).errorCode).toBe(E.INVALID_REQUEST);
    }
    const r4 = await call(b, 'FindCoordinator', 4, { keyType: 0, coordinatorKeys: ['a', 'b'] });
    expect(r4.coordinators.map((c: any) => [c.key, c.errorCode, c.nodeId])).toEqual([['a', 0, b.config.nodeId], ['b', 0, b.config.nodeId]]);
    const t4 = await call(b, 'FindCoordinator', 4, { keyType: 1, coordinatorKeys: ['tx'] });
    expect(t4.coordinators[0]).toMatchObject({ key: 'tx', errorCode: 0, nodeId: b.config.nodeId });
  });

  for (let v = 0; v <= 9; v++) {
    it(`JoinGroup v${v} + SyncGroup + Heartbeat + OffsetCommit/Fetch + LeaveGroup`, async () => {
      const { b, clock } = services();
      await b.log.createTopic('t', 2, {});
      const groupId = `g${v}`;
      const join = (memberId: string) => call(b, 'JoinGroup', v, {
        groupId, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 20_000, memberId, groupInstanceId: null, protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: sub }], reason: null,
      }, clock);
      let j = await join('');
      if (v >= 4) {
        expect(j.errorCode).toBe(E.MEMBER_ID_REQUIRED);
        j = await join(j.memberId);
      }
      expect(j).toMatchObject({ errorCode: 0, generationId: 1, protocolName: 'range' });
      expect(j.leader).toBe(j.memberId);
      expect(j.members).toHaveLength(1);
      if (v >= 7) expect(j.protocolType).toBe('consumer');
      const memberId = j.memberId;

      const sv = Math.min(v, 5);
      const s = await call(b, 'SyncGroup', sv, { groupId, generationId: 1, memberId, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [{ memberId, assignment: Buffer.from('as') }] });
      expect(s.errorCode).toBe(0);
      expect(Buffer.from(s.assignment).toString()).toBe('as');
      if (sv >= 5) expect(s).toMatchObject({ protocolType: 'consumer', protocolName: 'range' });

      const hv = Math.min(v, 4);
      expect((await call(b, 'Heartbeat', hv, { groupId, generationId: 1, memberId, groupInstanceId: null })).errorCode).toBe(0);
      expect((await call(b, 'Heartbeat', hv, { groupId, generationId: 0, memberId, groupInstanceId: null })).errorCode).toBe(E.ILLEGAL_GENERATION);

      // Offsets at every OffsetCommit/OffsetFetch version (v0 commits outside the group).
      for (let cv = 1; cv <= 8; cv++) {
        const c = await call(b, 'OffsetCommit', cv, {
          groupId, generationIdOrMemberEpoch: 1, memberId, groupInstanceId: null, retentionTimeMs: -1,
          topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 100 + cv, committedLeaderEpoch: 3, commitTimestamp: -1, committedMetadata: `m${cv}` }, { partitionIndex: 9, committedOffset: 1, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] },
            { name: 'nope', partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] }],
        });
        expect(c.topics.map((t: any) => t.partitions.map((p: any) => p.errorCode))).toEqual([[0, E.UNKNOWN_TOPIC_OR_PARTITION], [E.UNKNOWN_TOPIC_OR_PARTITION]]);
        for (let fv = 0; fv <= 8; fv++) {
          const req = fv >= 8
            ? { groups: [{ groupId, topics: [{ name: 't', partitionIndexes: [0, 1] }] }, { groupId: 'other', topics: null }], requireStable: false }
            : { groupId, topics: [{ name: 't', partitionIndexes: [0, 1] }], requireStable: false };
          const f = await call(b, 'OffsetFetch', fv, req);
          const parts = fv >= 8 ? f.groups[0].topics[0].partitions : f.topics[0].partitions;
          expect(parts[0]).toMatchObject({ partitionIndex: 0, committedOffset: 100 + cv, metadata: `m${cv}` });
          expect(parts[1]).toMatchObject({ partitionIndex: 1, committedOffset: -1, metadata: '' });
          if (fv >= 5) expect(parts[0].committedLeaderEpoch).toBe(cv >= 6 ? 3 : -1);
          if (fv >= 8) expect(f.groups[1]).toMatchObject({ groupId: 'other', errorCode: 0, topics: [] });
        }
      }
      // Fetch of all offsets (null topics, v2+).
      const all = await call(b, 'OffsetFetch', 2, { groupId, topics: null });
      expect(all.topics).toHaveLength(1);

      const lv = Math.min(v, 5);
      const leave = await call(b, 'LeaveGroup', lv, { groupId, memberId, members: [{ memberId, groupInstanceId: null, reason: null }] });
      expect(leave.errorCode).toBe(0);
      if (lv >= 3) expect(leave.members).toEqual([{ memberId, groupInstanceId: null, errorCode: 0 }]);
      const again = await call(b, 'LeaveGroup', lv, { groupId, memberId, members: [{ memberId, groupInstanceId: null, reason: null }] });
      if (lv >= 3) expect(again.members[0].errorCode).toBe(E.UNKNOWN_MEMBER_ID);
      else expect(again.errorCode).toBe(E.UNKNOWN_MEMBER_ID);

      // v0 commit: outside group management, fine now that the group is empty.
      const c0 = await call(b, 'OffsetCommit', 0, { groupId, topics: [{ name: 't', partitions: [{ partitionIndex: 1, committedOffset: 5, committedMetadata: null }] }] });
      expect(c0.topics[0].partitions[0].errorCode).toBe(0);
    });
  }

  it('ListGroups v0-4, DescribeGroups v0-5, OffsetDelete v0, DeleteGroups v0-2', async () => {
    const { b, clock } = services();
    await b.log.createTopic('t', 1, {});
    const j = await call(b, 'JoinGroup', 3, { groupId: 'live', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 20_000, memberId: '', protocolType: 'consumer', protocols: [{ name: 'range', metadata: sub }] }, clock);
    await call(b, 'SyncGroup', 0, { groupId: 'live', generationId: 1, memberId: j.memberId, assignments: [{ memberId: j.memberId, assignment: Buffer.from('x') }] });
    await call(b, 'OffsetCommit', 2, { groupId: 'idle', generationIdOrMemberEpoch: -1, memberId: '', retentionTimeMs: -1, topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 3, committedMetadata: null }] }] });
    for (let v = 0; v <= 4; v++) {
      const l = await call(b, 'ListGroups', v, { statesFilter: v >= 4 ? ['Stable'] : [] });
      expect(l.errorCode).toBe(0);
      expect(l.groups.map((g: any) => g.groupId)).toEqual(v >= 4 ? ['live'] : ['idle', 'live']);
      if (v >= 4) expect(l.groups[0].groupState).toBe('Stable');
    }
    for (let v = 0; v <= 5; v++) {
      const d = await call(b, 'DescribeGroups', v, { groups: ['live', 'idle', 'missing'], includeAuthorizedOperations: true });
      expect(d.groups.map((g: any) => [g.groupId, g.errorCode, g.groupState, g.protocolType, g.protocolData])).toEqual([
        ['live', 0, 'Stable', 'consumer', 'range'], ['idle', 0, 'Empty', '', ''], ['missing', 0, 'Dead', '', ''],
      ]);
      expect(d.groups[0].members[0]).toMatchObject({ memberId: j.memberId, clientId: 'cli' });
      expect(Buffer.from(d.groups[0].members[0].memberAssignment).toString()).toBe('x');
      if (v >= 3) expect(d.groups[0].authorizedOperations).toBe(328);
    }
    const od = await call(b, 'OffsetDelete', 0, { groupId: 'live', topics: [{ name: 't', partitions: [{ partitionIndex: 0 }] }, { name: 'zz', partitions: [{ partitionIndex: 0 }] }] });
    expect(od.errorCode).toBe(0);
    expect(od.topics.map((t: any) => t.partitions[0].errorCode)).toEqual([E.GROUP_SUBSCRIBED_TO_TOPIC, E.UNKNOWN_TOPIC_OR_PARTITION]);
    for (let v = 0; v <= 2; v++) {
      const r = await call(b, 'DeleteGroups', v, { groupsNames: ['live', 'missing'] });
      expect(r.results.map((x: any) => x.errorCode)).toEqual([E.NON_EMPTY_GROUP, E.GROUP_ID_NOT_FOUND]);
    }
    expect((await call(b, 'DeleteGroups', 2, { groupsNames: ['idle'] })).results[0].errorCode).toBe(0);
    await flush();
  });
});
