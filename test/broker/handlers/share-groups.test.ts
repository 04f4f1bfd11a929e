// The share-group APIs (KIP-932) over the codec, on the in-memory log and
// share-partition store: membership, share sessions and their epochs,
// acquisition and acknowledgement through ShareFetch and ShareAcknowledge,
// release when a session closes, and the admin APIs.
import { describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../../broker/src/config/config.js';
import { LogManager } from '../../../broker/src/log/log-manager.js';
import { soloCluster } from '../../../broker/src/cluster/cluster-view.js';
import { createLogger } from '../../../common/logger/logger.js';
import { ErrorCode } from '../../../common/errors.js';
import { GroupCoordinator } from '../../../broker/src/groups/coordinator.js';
import { ShareService } from '../../../broker/src/groups/share/share-service.js';
import { DEFAULT_SHARE_SETTINGS } from '../../../broker/src/groups/share/share-configs.js';
import { decode, encode } from '../../../broker/src/protocol/codec.js';
import { Reader } from '../../../broker/src/protocol/reader.js';
import type { BrokerServices, Handler } from '../../../broker/src/handlers/support/types.js';
import { buildHandlers } from '../../../broker/src/handlers/support/registry.js';
import { MemoryLogStore } from '../support/memory-log-store.js';
import { MemoryGroupStore } from '../support/memory-group-store.js';
import { MemoryShareStore } from '../support/memory-share-store.js';
import { noTransactions } from '../support/services.js';
import { FakeClock } from '../support/fake-clock.js';
import { newSession } from '../../../broker/src/security/session.js';
import { buildBatch } from '../../helpers/batches.js';

async function services() {
  const config = loadBrokerConfig([], {});
  const log = new LogManager(new MemoryLogStore(), config);
  const t = await log.createTopic('q', 1, {});
  const clock = new FakeClock();
  const topics = async () => (await log.allTopics()).map((x) => ({ name: x.name, id: x.id, partitions: x.partitions }));
  const groups = new GroupCoordinator(new MemoryGroupStore(), clock, { topics });
  const store = new MemoryShareStore();
  const shares = new ShareService(store, clock, { ...DEFAULT_SHARE_SETTINGS, recordLockDurationMs: 10_000 }, topics);
  const cluster = soloCluster({ nodeId: config.nodeId, host: '127.0.0.1', port: 9092, rack: null });
  const b: BrokerServices = { config, clusterId: 'c', log, logger: createLogger('error', 'test'), cluster, groups, shares, txn: noTransactions };
  return { b, topicId: t.id, clock, store, topics };
}

const handlers = new Map<string, Handler>(buildHandlers().map((h) => [h.api.name, h]));

async function call(b: BrokerServices, api: string, v: number, req: Record<string, unknown>): Promise<Record<string, any>> {
  const h = handlers.get(api)!;
  const decoded = decode(h.api.request, v, new Reader(encode(h.api.request, v, req).toBuffer()));
  const res = await h.handle(decoded, { apiKey: h.api.apiKey, apiVersion: v, correlationId: 1, clientId: 'cli', session: newSession(1, '127.0.0.1') }, b);
  return decode(h.api.response, v, new Reader(encode(h.api.response, v, res!).toBuffer()));
}

async function produce(b: BrokerServices, n: number): Promise<void> {
  const r = await call(b, 'Produce', 9, {
    transactionalId: null, acks: 1, timeoutMs: 1000,
    topicData: [{ name: 'q', partitionData: [{ index: 0, records: buildBatch(Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`v${i}`) }))) }] }],
  });
  expect(r.responses[0].partitionResponses[0].errorCode).toBe(ErrorCode.NONE);
}

const fetchReq = (memberId: string, epoch: number, topicId: string, acks: Array<{ firstOffset: number; lastOffset: number; acknowledgeTypes: number[] }> = []) => ({
  groupId: 'sg', memberId, shareSessionEpoch: epoch, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500, shareAcquireMode: 0, isRenewAck: false,
  topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: acks }] }], forgottenTopicsData: [],
});
const acquired = (r: Record<string, any>) => r.responses.flatMap((t: any) => t.partitions.flatMap((p: any) => p.acquiredRecords));

describe('share groups over the codec', () => {
  it('ShareGroupHeartbeat: two members share the one partition; ShareGroupDescribe shows them', async () => {
    const { b, topicId } = await services();
    const join = (memberId: string) => call(b, 'ShareGroupHeartbeat', 1, { groupId: 'sg', memberId, memberEpoch: 0, rackId: null, subscribedTopicNames: ['q'] });
    const a = await join('member-a');
    expect(a).toMatchObject({ errorCode: ErrorCode.NONE, memberId: 'member-a', memberEpoch: 1, heartbeatIntervalMs: 5000, assignment: { topicPartitions: [{ topicId, partitions: [0] }] } });
    const c = await join('member-b');
    expect(c).toMatchObject({ memberEpoch: 2, assignment: { topicPartitions: [{ topicId, partitions: [0] }] } });
    const d = await call(b, 'ShareGroupDescribe', 1, { groupIds: ['sg', 'nope'], includeAuthorizedOperations: false });
    expect(d.groups[0]).toMatchObject({ errorCode: ErrorCode.NONE, groupState: 'Stable', groupEpoch: 2, assignorName: 'simple' });
    expect(d.groups[0].members.map((m: any) => m.memberId).sort()).toEqual(['member-a', 'member-b']);
    expect(d.groups[0].members[0].assignment.topicPartitions).toEqual([{ topicId, topicName: 'q', partitions: [0] }]);
    expect(d.groups[1].errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    // A consumer group's id is not a share group's.
    await call(b, 'ConsumerGroupHeartbeat', 1, { groupId: 'cg', memberId: 'c1', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['q'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [] });
    const clash = await call(b, 'ShareGroupHeartbeat', 1, { groupId: 'cg', memberId: 'member-c', memberEpoch: 0, rackId: null, subscribedTopicNames: ['q'] });
    expect(clash).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Group cg is not a share group.' });
    // ... and a share group's id is neither a consumer group's nor a classic group's (Kafka keeps one group per id; its answers).
    const consumer = await call(b, 'ConsumerGroupHeartbeat', 1, { groupId: 'sg', memberId: 'c2', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['q'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [] });
    expect(consumer).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Group sg is not a consumer group.' });
    const classic = await call(b, 'JoinGroup', 9, {
      groupId: 'sg', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', groupInstanceId: null, protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.alloc(0) }], reason: null,
    });
    expect(classic.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect((await call(b, 'DescribeGroups', 5, { groups: ['sg'], includeAuthorizedOperations: false })).groups[0].groupState).toBe('Dead');
    const listed = await call(b, 'ListGroups', 5, { statesFilter: [], typesFilter: ['share'] });
    expect(listed.groups).toEqual([{ groupId: 'sg', protocolType: 'share', groupState: 'Stable', groupType: 'share' }]);
  });

  it('ShareFetch and ShareAcknowledge: sessions, acquisition, acknowledgement, release on close', async () => {
    const { b, topicId, store } = await services();
    // Epoch 0 opens the session: the share-partition starts at the log end (share.auto.offset.reset latest).
    expect((await call(b, 'ShareFetch', 1, fetchReq('m1', 0, topicId, [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [1] }]))).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    const open = await call(b, 'ShareFetch', 1, fetchReq('m1', 0, topicId));
    expect(open).toMatchObject({ errorCode: ErrorCode.NONE, acquisitionLockTimeoutMs: 10_000 });
    expect(acquired(open)).toEqual([]);
    await produce(b, 5);
    const f1 = await call(b, 'ShareFetch', 1, fetchReq('m1', 1, topicId));
    expect(acquired(f1)).toEqual([{ firstOffset: 0, lastOffset: 4, deliveryCount: 1 }]);
    expect(f1.responses[0].partitions[0].records.length).toBeGreaterThan(0);
    // Wrong epochs and unknown sessions.
    expect((await call(b, 'ShareFetch', 1, fetchReq('m1', 1, topicId))).errorCode).toBe(ErrorCode.INVALID_SHARE_SESSION_EPOCH);
    expect((await call(b, 'ShareFetch', 1, fetchReq('nobody', 3, topicId))).errorCode).toBe(ErrorCode.SHARE_SESSION_NOT_FOUND);
    // Accept 0-1, release 2, leave 3-4 held; piggybacked on the next fetch.
    const f2 = await call(b, 'ShareFetch', 1, fetchReq('m1', 2, topicId, [{ firstOffset: 0, lastOffset: 2, acknowledgeTypes: [1, 1, 2] }]));
    expect(f2.responses[0].partitions[0].acknowledgeErrorCode).toBe(ErrorCode.NONE);
    expect(acquired(f2)).toEqual([{ firstOffset: 2, lastOffset: 2, deliveryCount: 2 }]);
    // Another member's record is INVALID_RECORD_STATE.
    await call(b, 'ShareFetch', 2, fetchReq('m2', 0, topicId));
    const other = await call(b, 'ShareAcknowledge', 2, { groupId: 'sg', memberId: 'm2', shareSessionEpoch: 1, isRenewAck: false, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 3, lastOffset: 3, acknowledgeTypes: [1] }] }] }] });
    expect(other.responses[0].partitions[0].errorCode).toBe(ErrorCode.INVALID_RECORD_STATE);
    expect(other.acquisitionLockTimeoutMs).toBe(10_000);
    // m1 closes its session (-1) after rejecting 2: its held records 3-4 are released to m2.
    const close = await call(b, 'ShareAcknowledge', 1, { groupId: 'sg', memberId: 'm1', shareSessionEpoch: -1, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 2, lastOffset: 2, acknowledgeTypes: [3] }] }] }] });
    expect(close.responses[0].partitions[0].errorCode).toBe(ErrorCode.NONE);
    expect(acquired(await call(b, 'ShareFetch', 2, fetchReq('m2', 2, topicId)))).toEqual([{ firstOffset: 3, lastOffset: 4, deliveryCount: 2 }]);
    // What the store holds: 0-2 done, 3-4 acquired by m2.
    expect(await store.read({ groupId: 'sg', topicId, partition: 0 })).toMatchObject({ startOffset: 3, endOffset: 5 });
  });

  it('DescribeShareGroupOffsets, AlterShareGroupOffsets and DeleteShareGroupOffsets; DeleteGroups', async () => {
    const { b, topicId } = await services();
    await call(b, 'ShareFetch', 1, fetchReq('m1', 0, topicId));
    await produce(b, 3);
    await call(b, 'ShareFetch', 1, fetchReq('m1', 1, topicId));
    await call(b, 'ShareFetch', 1, fetchReq('m1', 2, topicId, [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [1] }]));
    const described = await call(b, 'DescribeShareGroupOffsets', 1, { groups: [{ groupId: 'sg', topics: null }, { groupId: 'other', topics: null }] });
    expect(described.groups[0]).toMatchObject({ errorCode: ErrorCode.NONE, topics: [{ topicName: 'q', topicId, partitions: [{ partitionIndex: 0, startOffset: 1, lag: 2, errorCode: 0 }] }] });
    expect(described.groups[1].errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    // Fetching members have no group membership here (no heartbeat): the group is empty, so it may be reset.
    const altered = await call(b, 'AlterShareGroupOffsets', 0, { groupId: 'sg', topics: [{ topicName: 'q', partitions: [{ partitionIndex: 0, startOffset: 0 }] }, { topicName: 'missing', partitions: [{ partitionIndex: 0, startOffset: 0 }] }] });
    expect(altered.responses.map((t: any) => t.partitions[0].errorCode)).toEqual([ErrorCode.NONE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
    // The leader's copy gives way: everything is delivered again, as first deliveries.
    expect(acquired(await call(b, 'ShareFetch', 1, fetchReq('m1', 3, topicId)))).toEqual([{ firstOffset: 0, lastOffset: 2, deliveryCount: 1 }]);
    // With a member, offsets cannot be reset.
    await call(b, 'ShareGroupHeartbeat', 1, { groupId: 'sg', memberId: 'm1', memberEpoch: 0, rackId: null, subscribedTopicNames: ['q'] });
    expect((await call(b, 'AlterShareGroupOffsets', 0, { groupId: 'sg', topics: [] })).errorCode).toBe(ErrorCode.NON_EMPTY_GROUP);
    expect((await call(b, 'DeleteGroups', 2, { groupsNames: ['sg'] })).results[0].errorCode).toBe(ErrorCode.NON_EMPTY_GROUP);
    await call(b, 'ShareGroupHeartbeat', 1, { groupId: 'sg', memberId: 'm1', memberEpoch: -1, rackId: null, subscribedTopicNames: null });
    const deleted = await call(b, 'DeleteShareGroupOffsets', 0, { groupId: 'sg', topics: [{ topicName: 'q' }] });
    expect(deleted).toMatchObject({ errorCode: ErrorCode.NONE, responses: [{ topicName: 'q', topicId, errorCode: ErrorCode.NONE }] });
    expect((await call(b, 'DescribeShareGroupOffsets', 1, { groups: [{ groupId: 'sg', topics: [{ topicName: 'q', partitions: [0] }] }] })).groups[0].topics[0].partitions[0].startOffset).toBe(-1);
    expect((await call(b, 'DeleteGroups', 2, { groupsNames: ['sg'] })).results[0].errorCode).toBe(ErrorCode.NONE);
    expect((await call(b, 'ListGroups', 5, { statesFilter: [], typesFilter: [] })).groups).toEqual([]);
  });

  it('the membership is stored: a restarted coordinator carries on with the members and their epochs', async () => {
    const { b, topicId, clock, store, topics } = await services();
    const hb = (bb: BrokerServices, memberId: string, memberEpoch: number) =>
      call(bb, 'ShareGroupHeartbeat', 1, { groupId: 'sg', memberId, memberEpoch, rackId: null, subscribedTopicNames: memberEpoch === 0 ? ['q'] : null });
    await hb(b, 'a', 0);
    expect((await hb(b, 'b', 0)).memberEpoch).toBe(2);
    // A new coordinator process on the same store.
    const again: BrokerServices = { ...b, shares: new ShareService(store, clock, DEFAULT_SHARE_SETTINGS, topics) };
    // a moves to epoch 2 (its partition, shared with b, is the same: no assignment is sent).
    expect(await hb(again, 'a', 1)).toMatchObject({ errorCode: ErrorCode.NONE, memberEpoch: 2, assignment: null });
    const described = await call(again, 'ShareGroupDescribe', 1, { groupIds: ['sg'], includeAuthorizedOperations: false });
    expect(described.groups[0].members.map((m: any) => m.assignment.topicPartitions)).toEqual([[{ topicId, topicName: 'q', partitions: [0] }], [{ topicId, topicName: 'q', partitions: [0] }]]);
    expect(await hb(again, 'b', 2)).toMatchObject({ errorCode: ErrorCode.NONE, memberEpoch: 2, assignment: null });
    // Members that stop heartbeating are removed once their session runs out, as before the restart.
    await clock.advance(DEFAULT_SHARE_SETTINGS.sessionTimeoutMs + 1);
    const d = await call(again, 'ShareGroupDescribe', 1, { groupIds: ['sg'], includeAuthorizedOperations: false });
    expect(d.groups[0]).toMatchObject({ groupState: 'Empty', members: [] });
  });
});
