// ConsumerGroupHeartbeat (v0, v1) and ConsumerGroupDescribe (v0) through the
// real codec, as a client sends them: request validation (Kafka's
// INVALID_REQUEST messages), member ids (coordinator-generated in v0, the
// client's own in v1), assignments by topic id, and ApiVersions advertising
// the APIs with the group.version feature finalized at 1.
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
import { FakeClock } from '../support/fake-clock.js';
import { newSession } from '../../../broker/src/security/session.js';

async function services() {
  const config = loadBrokerConfig([], {});
  const log = new LogManager(new MemoryLogStore(), config);
  const t = await log.createTopic('t', 3, {});
  const groups = new GroupCoordinator(new MemoryGroupStore(), new FakeClock(), {
    topics: async () => (await log.allTopics()).map((x) => ({ name: x.name, id: x.id, partitions: x.partitions })),
  });
  const cluster = soloCluster({ nodeId: config.nodeId, host: '127.0.0.1', port: 9092, rack: null });
  const b: BrokerServices = { config, clusterId: 'c', log, logger: createLogger('error', 'test'), cluster, groups, txn: noTransactions };
  return { b, topicId: t.id };
}

const handlers = new Map<string, Handler>(buildHandlers().map((h) => [h.api.name, h]));

/** Encodes the request at `v`, decodes it as the broker does, handles it and round-trips the response. */
async function call(b: BrokerServices, api: string, v: number, req: Record<string, unknown>): Promise<Record<string, any>> {
  const h = handlers.get(api)!;
  const decoded = decode(h.api.request, v, new Reader(encode(h.api.request, v, req).toBuffer()));
  const res = await h.handle(decoded, { apiKey: h.api.apiKey, apiVersion: v, correlationId: 1, clientId: 'cli', session: newSession(1, '127.0.0.1') }, b);
  return decode(h.api.response, v, new Reader(encode(h.api.response, v, res!).toBuffer()));
}

const joinReq = (memberId: string, over: Record<string, unknown> = {}) => ({
  groupId: 'g', memberId, memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
  subscribedTopicNames: ['t'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [], ...over,
});

describe('ConsumerGroupHeartbeat and ConsumerGroupDescribe over the codec', () => {
  it('v0: the coordinator generates the member id; the assignment names topic ids', async () => {
    const { b, topicId } = await services();
    const r = await call(b, 'ConsumerGroupHeartbeat', 0, joinReq(''));
    expect(r).toMatchObject({ errorCode: ErrorCode.NONE, memberEpoch: 1, heartbeatIntervalMs: 5000 });
    expect(r.memberId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(r.assignment).toEqual({ topicPartitions: [{ topicId, partitions: [0, 1, 2] }] });
  });

  it('v1: the client\'s member id and a regex subscription; an empty member id is INVALID_REQUEST', async () => {
    const { b, topicId } = await services();
    const bad = await call(b, 'ConsumerGroupHeartbeat', 1, joinReq(''));
    expect(bad).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'MemberId can\'t be empty.' });
    const r = await call(b, 'ConsumerGroupHeartbeat', 1, joinReq('my-id', { subscribedTopicNames: null, subscribedTopicRegex: '[st]' }));
    expect(r).toMatchObject({ errorCode: ErrorCode.NONE, memberId: 'my-id', memberEpoch: 1, assignment: { topicPartitions: [{ topicId, partitions: [0, 1, 2] }] } });
    // A plain heartbeat: nothing changed, no assignment.
    const hb = await call(b, 'ConsumerGroupHeartbeat', 1, { ...joinReq('my-id'), memberEpoch: 1, rebalanceTimeoutMs: -1, subscribedTopicNames: null, topicPartitions: null });
    expect(hb).toMatchObject({ errorCode: ErrorCode.NONE, memberEpoch: 1, assignment: null });
  });

  it('a join without a rebalance timeout or subscription is INVALID_REQUEST', async () => {
    const { b } = await services();
    expect((await call(b, 'ConsumerGroupHeartbeat', 0, joinReq('', { rebalanceTimeoutMs: -1 }))).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect((await call(b, 'ConsumerGroupHeartbeat', 0, joinReq('', { subscribedTopicNames: null }))).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect((await call(b, 'ConsumerGroupHeartbeat', 0, { ...joinReq('m'), memberEpoch: -2 })).errorCode).toBe(ErrorCode.INVALID_REQUEST);
  });

  it('ConsumerGroupDescribe: epochs, assignor, member with its assignment by name and id; unknown group GROUP_ID_NOT_FOUND', async () => {
    const { b, topicId } = await services();
    const j = await call(b, 'ConsumerGroupHeartbeat', 1, joinReq('m1', { serverAssignor: 'range' }));
    const d = await call(b, 'ConsumerGroupDescribe', 0, { groupIds: ['g', 'nope'], includeAuthorizedOperations: false });
    expect(d.groups[0]).toMatchObject({ errorCode: ErrorCode.NONE, groupId: 'g', groupState: 'Stable', groupEpoch: 1, assignmentEpoch: 1, assignorName: 'range' });
    expect(d.groups[0].members).toEqual([expect.objectContaining({
      memberId: 'm1', memberEpoch: j.memberEpoch, clientId: 'cli', clientHost: '/127.0.0.1', subscribedTopicNames: ['t'],
      assignment: { topicPartitions: [{ topicId, topicName: 't', partitions: [0, 1, 2] }] },
      targetAssignment: { topicPartitions: [{ topicId, topicName: 't', partitions: [0, 1, 2] }] },
    })]);
    expect(d.groups[1]).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, groupId: 'nope' });
    const listed = await call(b, 'ListGroups', 5, { statesFilter: [], typesFilter: ['consumer'] });
    expect(listed.groups).toEqual([{ groupId: 'g', protocolType: 'consumer', groupState: 'Stable', groupType: 'consumer' }]);
    expect((await call(b, 'ListGroups', 5, { statesFilter: [], typesFilter: ['classic'] })).groups).toEqual([]);
  });

  it('ApiVersions lists both APIs and group.version (supported 0-1, v3: from 1; finalized 1)', async () => {
    const { b } = await services();
    for (const v of [3, 4]) {
      const r = await call(b, 'ApiVersions', v, { clientSoftwareName: 'x', clientSoftwareVersion: '1' });
      expect(r.apiKeys).toEqual(expect.arrayContaining([{ apiKey: 68, minVersion: 0, maxVersion: 1 }, { apiKey: 69, minVersion: 0, maxVersion: 1 }]));
      expect(r.supportedFeatures).toContainEqual({ name: 'group.version', minVersion: v === 3 ? 1 : 0, maxVersion: 1 });
      expect(r.finalizedFeatures).toContainEqual({ name: 'group.version', maxVersionLevel: 1, minVersionLevel: 1 });
    }
  });
});
