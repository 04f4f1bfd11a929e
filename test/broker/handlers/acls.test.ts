// The ACL handlers (CreateAcls, DescribeAcls, DeleteAcls) and the checks of the
// other handlers, over an AclService with an in-memory store.
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../common/errors.js';
import { buildHandlers } from '../../../broker/src/handlers/support/registry.js';
import type { BrokerServices, Handler, RequestContext } from '../../../broker/src/handlers/support/types.js';
import { AclService } from '../../../broker/src/security/acl/acl-service.js';
import { AclOperation as Op, AclPermission, CLUSTER_NAME, PatternType, ResourceType } from '../../../broker/src/security/acl/model.js';
import { newSession } from '../../../broker/src/security/session.js';
import { MemoryAclStore } from '../support/memory-acl-store.js';
import { buildBatch } from '../../helpers/batches.js';
import { FakeClock } from '../support/fake-clock.js';
import { unitServices } from '../support/services.js';

const AUTHORIZER = 'kafka.security.authorizer.AclAuthorizer';
const handlers = new Map<string, Handler>(buildHandlers().map((h) => [h.api.name, h]));

async function services(className = AUTHORIZER): Promise<BrokerServices> {
  const acls = new AclService({ authorizerClassName: className, superUsers: 'User:admin', allowEveryoneIfNoAclFound: false }, new MemoryAclStore());
  await acls.start();
  acls.stop(); // no polling needed: changes through the service reload it
  const b: BrokerServices = { ...unitServices({ clock: new FakeClock() }), acls };
  await b.log.createTopic('pay-eu', 1, {});
  await b.log.createTopic('secret', 1, {});
  return b;
}

const ctxOf = (principal: string, apiVersion = 3): RequestContext => {
  const session = newSession(1, '127.0.0.1');
  session.principal = principal;
  return { apiKey: 0, apiVersion, correlationId: 1, clientId: 't', session };
};
const admin = ctxOf('User:admin');
const alice = ctxOf('User:alice');
const call = (api: string, req: Record<string, unknown>, ctx: RequestContext, b: BrokerServices) => handlers.get(api)!.handle(req, ctx, b) as Promise<Record<string, any>>;

const creation = (over: Record<string, unknown> = {}) => ({
  resourceType: ResourceType.TOPIC, resourceName: 'pay-', resourcePatternType: PatternType.PREFIXED, principal: 'User:alice', host: '*', operation: Op.WRITE, permissionType: AclPermission.ALLOW, ...over,
});
const filter = (over: Record<string, unknown> = {}) => ({
  resourceTypeFilter: ResourceType.ANY, resourceNameFilter: null, patternTypeFilter: PatternType.ANY, principalFilter: null, hostFilter: null, operation: Op.ANY, permissionType: AclPermission.ANY, ...over,
});

describe('ACL handlers', () => {
  it('answer SECURITY_DISABLED with authorization off, as Kafka does', async () => {
    const b = await services('');
    expect((await call('DescribeAcls', filter(), alice, b)).errorCode).toBe(ErrorCode.SECURITY_DISABLED);
    expect((await call('CreateAcls', { creations: [creation()] }, alice, b)).results[0].errorCode).toBe(ErrorCode.SECURITY_DISABLED);
    expect((await call('DeleteAcls', { filters: [filter()] }, alice, b)).filterResults[0].errorCode).toBe(ErrorCode.SECURITY_DISABLED);
  });

  it('need ALTER (create, delete) or DESCRIBE (describe) on the cluster', async () => {
    const b = await services();
    expect((await call('DescribeAcls', filter(), alice, b)).errorCode).toBe(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    expect((await call('CreateAcls', { creations: [creation(), creation()] }, alice, b)).results.map((r: any) => r.errorCode)).toEqual([ErrorCode.CLUSTER_AUTHORIZATION_FAILED, ErrorCode.CLUSTER_AUTHORIZATION_FAILED]);
    expect((await call('DeleteAcls', { filters: [filter()] }, alice, b)).filterResults[0].errorCode).toBe(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
  });

  it('create each valid binding, refuse invalid ones with INVALID_REQUEST, describe grouped by resource, delete per filter', async () => {
    const b = await services();
    const created = await call('CreateAcls', {
      creations: [creation(), creation({ operation: Op.READ }), creation({ resourceType: ResourceType.CLUSTER, resourceName: 'other', resourcePatternType: PatternType.LITERAL, operation: Op.ALTER }), creation({ resourceName: 'pay-eu', resourcePatternType: PatternType.LITERAL, permissionType: AclPermission.DENY })],
    }, admin, b);
    expect(created.results.map((r: any) => r.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.NONE, ErrorCode.INVALID_REQUEST, ErrorCode.NONE]);
    expect(created.results[2].errorMessage).toContain(CLUSTER_NAME);

    const all = await call('DescribeAcls', filter(), admin, b);
    expect(all.errorCode).toBe(ErrorCode.NONE);
    expect(all.resources.map((r: any) => [r.resourceName, r.patternType, r.acls.length])).toEqual([['pay-', PatternType.PREFIXED, 2], ['pay-eu', PatternType.LITERAL, 1]]);
    const matching = await call('DescribeAcls', filter({ resourceTypeFilter: ResourceType.TOPIC, resourceNameFilter: 'pay-eu', patternTypeFilter: PatternType.MATCH, operation: Op.WRITE }), admin, b);
    expect(matching.resources.map((r: any) => r.resourceName)).toEqual(['pay-', 'pay-eu']);
    expect((await call('DescribeAcls', filter({ patternTypeFilter: PatternType.UNKNOWN }), admin, b)).errorCode).toBe(ErrorCode.INVALID_REQUEST);

    const deleted = await call('DeleteAcls', { filters: [filter({ operation: Op.READ }), filter({ permissionType: AclPermission.DENY })] }, admin, b);
    expect(deleted.filterResults.map((r: any) => r.matchingAcls.map((a: any) => [a.resourceName, a.operation, a.permissionType]))).toEqual([
      [['pay-', Op.READ, AclPermission.ALLOW]],
      [['pay-eu', Op.WRITE, AclPermission.DENY]],
    ]);
    const left = await call('DescribeAcls', filter(), admin, b);
    expect(left.resources.map((r: any) => r.acls.map((a: any) => a.operation))).toEqual([[Op.WRITE]]);
  });
});

describe('authorization checks of other handlers', () => {
  /** Grants alice the bindings (by default WRITE on the prefix pay-). */
  async function grant(b: BrokerServices, ...over: Array<Record<string, unknown>>) {
    const r = await call('CreateAcls', { creations: (over.length ? over : [{}]).map((o) => creation(o)) }, admin, b);
    expect(r.results.every((x: any) => x.errorCode === ErrorCode.NONE)).toBe(true);
  }

  it('Produce: WRITE on the topic, WRITE on the transactional id', async () => {
    const b = await services();
    await grant(b);
    const produce = (topic: string, transactionalId: string | null = null) => call('Produce', {
      transactionalId, acks: 1, timeoutMs: 1000, topicData: [{ name: topic, partitionData: [{ index: 0, records: buildBatch([{ key: null, value: Buffer.from('v') }]) }] }],
    }, alice, b).then((r) => r.responses[0].partitionResponses[0].errorCode);
    expect(await produce('pay-eu')).toBe(ErrorCode.NONE);
    expect(await produce('secret')).toBe(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    expect(await produce('pay-eu', 'tx-1')).toBe(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  });

  it('InitProducerId of an idempotent producer: WRITE on some topic or IDEMPOTENT_WRITE on the cluster', async () => {
    const b = await services();
    const init = () => call('InitProducerId', { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1, producerEpoch: -1 }, alice, b).then((r) => r.errorCode);
    expect(await init()).toBe(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    await grant(b);
    expect(await init()).toBe(ErrorCode.NONE);
  });

  it('Metadata for all topics lists only the topics the principal may DESCRIBE; named ones answer TOPIC_AUTHORIZATION_FAILED', async () => {
    const b = await services();
    await grant(b);
    const all = await call('Metadata', { topics: null, allowAutoTopicCreation: false }, alice, b);
    expect(all.topics.map((t: any) => t.name)).toEqual(['pay-eu']);
    const named = await call('Metadata', { topics: [{ name: 'secret', topicId: '00000000-0000-0000-0000-000000000000' }], allowAutoTopicCreation: true }, alice, b);
    expect(named.topics[0].errorCode).toBe(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    // DESCRIBE but no CREATE: no auto-creation.
    await grant(b, { resourceName: 'new-', operation: Op.DESCRIBE });
    const auto = await call('Metadata', { topics: [{ name: 'new-1', topicId: '00000000-0000-0000-0000-000000000000' }], allowAutoTopicCreation: true }, alice, b);
    expect(auto.topics[0].errorCode).toBe(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    expect(await b.log.topic('new-1')).toBeNull();
  });

  it('ListGroups lists every group with DESCRIBE on the cluster, else only the groups the principal may DESCRIBE; DescribeGroups reports the authorized operations', async () => {
    const b = await services();
    for (const groupId of ['g-a', 'g-b']) {
      const r = await call('OffsetCommit', { groupId, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, topics: [{ name: 'secret', partitions: P0 }] }, ctxOf('User:admin', 3), b);
      expect(r.topics[0].partitions[0].errorCode).toBe(ErrorCode.NONE);
    }
    const list = async (who: string) => (await call('ListGroups', { statesFilter: [] }, ctxOf(who, 3), b)).groups.map((g: any) => g.groupId).sort();
    expect(await list('User:alice')).toEqual([]);
    await grant(b, { resourceType: ResourceType.GROUP, resourceName: 'g-b', operation: Op.DESCRIBE });
    expect(await list('User:alice')).toEqual(['g-b']);
    // DescribeGroups v3+ reports the operations the principal may perform: DESCRIBE only (bit 8).
    const described = await call('DescribeGroups', { groups: ['g-b'], includeAuthorizedOperations: true }, ctxOf('User:alice', 3), b);
    expect(described.groups[0].authorizedOperations).toBe(1 << Op.DESCRIBE);
    await grant(b, { resourceType: ResourceType.CLUSTER, resourceName: CLUSTER_NAME, resourcePatternType: PatternType.LITERAL, operation: Op.DESCRIBE });
    expect(await list('User:alice')).toEqual(['g-a', 'g-b']);
  });

  it('Metadata v8+ and DescribeCluster report the authorized operations when asked', async () => {
    const b = await services();
    await grant(b);
    const md = await call('Metadata', { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: true }, ctxOf('User:alice', 12), b);
    expect(md.topics.map((t: any) => [t.name, t.topicAuthorizedOperations])).toEqual([['pay-eu', (1 << Op.WRITE) | (1 << Op.DESCRIBE)]]);
    const cluster = (who: string) => call('DescribeCluster', { includeClusterAuthorizedOperations: true, endpointType: 1 }, ctxOf(who, 1), b).then((r) => r.clusterAuthorizedOperations);
    expect(await cluster('User:alice')).toBe(0);
    expect(await cluster('User:admin')).toBe([Op.CREATE, Op.CLUSTER_ACTION, Op.DESCRIBE_CONFIGS, Op.ALTER_CONFIGS, Op.IDEMPOTENT_WRITE, Op.ALTER, Op.DESCRIBE].reduce((x, op) => x | (1 << op), 0));
  });

  it('CreateTopics with CREATE but no DESCRIBE_CONFIGS creates the topic and withholds its configs (topicConfigErrorCode)', async () => {
    const b = await services();
    await grant(b, { resourceName: 'new-', operation: Op.CREATE });
    const create = (name: string) => call('CreateTopics', { topics: [{ name, numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 1000, validateOnly: false }, ctxOf('User:alice', 5), b);
    const hidden = (await create('new-1')).topics[0];
    expect([hidden.errorCode, hidden.topicConfigErrorCode, hidden.numPartitions, hidden.configs]).toEqual([ErrorCode.NONE, ErrorCode.TOPIC_AUTHORIZATION_FAILED, -1, []]);
    expect((await b.log.topic('new-1'))?.partitions).toBe(2);
    await grant(b, { resourceName: 'new-', operation: Op.DESCRIBE_CONFIGS });
    const shown = (await create('new-2')).topics[0];
    expect([shown.errorCode, shown.topicConfigErrorCode ?? ErrorCode.NONE, shown.numPartitions]).toEqual([ErrorCode.NONE, ErrorCode.NONE, 2]);
    expect(shown.configs.length).toBeGreaterThan(0);
  });

  it('WriteTxnMarkers needs CLUSTER_ACTION on the cluster; super users have it', async () => {
    const b = await services();
    const markers = { markers: [{ producerId: 1, producerEpoch: 0, transactionResult: true, coordinatorEpoch: 0, topics: [{ name: 'pay-eu', partitionIndexes: [0] }] }] };
    const code = (r: Record<string, any>) => r.markers[0].topics[0].partitions[0].errorCode;
    expect(code(await call('WriteTxnMarkers', markers, alice, b))).toBe(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    expect(code(await call('WriteTxnMarkers', markers, admin, b))).not.toBe(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
  });
});

/** One denied request per API: principal alice has no ACL at all (allow.everyone.if.no.acl.found=false). */
const P0 = [{ partitionIndex: 0, committedOffset: 0, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }];
const DENIED: Array<[api: string, version: number, req: Record<string, unknown>, code: (r: Record<string, any>) => number, expected: number]> = [
  ['ListOffsets', 5, { replicaId: -1, isolationLevel: 0, topics: [{ name: 'secret', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1 }] }] }, (r) => r.topics[0].partitions[0].errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  ['Fetch', 12, {
    replicaId: -1, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1, forgottenTopicsData: [], rackId: '',
    topics: [{ topic: 'secret', topicId: '', partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
  }, (r) => r.responses[0].partitions[0].errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  ['OffsetForLeaderEpoch', 4, { replicaId: -1, topics: [{ topic: 'secret', partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] }] }, (r) => r.topics[0].partitions[0].errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  ['CreateTopics', 5, { topics: [{ name: 'new', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 1000, validateOnly: false }, (r) => r.topics[0].errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  ['DeleteTopics', 5, { topicNames: ['secret'], timeoutMs: 1000 }, (r) => r.responses[0].errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  ['CreatePartitions', 3, { topics: [{ name: 'secret', count: 2, assignments: null }], timeoutMs: 1000, validateOnly: false }, (r) => r.results[0].errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  ['DeleteRecords', 2, { topics: [{ name: 'secret', partitions: [{ partitionIndex: 0, offset: 0 }] }], timeoutMs: 1000 }, (r) => r.topics[0].partitions[0].errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  ['DescribeConfigs', 4, { resources: [{ resourceType: 2, resourceName: 'secret', configurationKeys: null }], includeSynonyms: false, includeDocumentation: false }, (r) => r.results[0].errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  ['DescribeConfigs', 4, { resources: [{ resourceType: 4, resourceName: '1', configurationKeys: null }], includeSynonyms: false, includeDocumentation: false }, (r) => r.results[0].errorCode, ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  ['AlterConfigs', 2, { resources: [{ resourceType: 2, resourceName: 'secret', configs: [] }], validateOnly: false }, (r) => r.responses[0].errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  ['IncrementalAlterConfigs', 1, { resources: [{ resourceType: 2, resourceName: 'secret', configs: [] }], validateOnly: false }, (r) => r.responses[0].errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  // Group configs (the GROUP config resource, type 32): DESCRIBE_CONFIGS / ALTER_CONFIGS on the group.
  ['DescribeConfigs', 4, { resources: [{ resourceType: 32, resourceName: 'g', configurationKeys: null }], includeSynonyms: false, includeDocumentation: false }, (r) => r.results[0].errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED],
  ['AlterConfigs', 2, { resources: [{ resourceType: 32, resourceName: 'g', configs: [] }], validateOnly: false }, (r) => r.responses[0].errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED],
  ['IncrementalAlterConfigs', 1, { resources: [{ resourceType: 32, resourceName: 'g', configs: [] }], validateOnly: false }, (r) => r.responses[0].errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED],
  ['DescribeProducers', 0, { topics: [{ name: 'secret', partitionIndexes: [0] }] }, (r) => r.topics[0].partitions[0].errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  ['DescribeLogDirs', 4, { topics: null }, (r) => r.errorCode, ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  ['FindCoordinator', 3, { key: 'g', keyType: 0 }, (r) => r.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED],
  ['FindCoordinator', 3, { key: 'tx', keyType: 1 }, (r) => r.errorCode, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED],
  ['JoinGroup', 5, { groupId: 'g', sessionTimeoutMs: 10000, rebalanceTimeoutMs: 10000, memberId: '', groupInstanceId: null, protocolType: 'consumer', protocols: [] }, (r) => r.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED],
  ['SyncGroup', 3, { groupId: 'g', generationId: 1, memberId: 'm', groupInstanceId: null, assignments: [] }, (r) => r.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED],
  ['Heartbeat', 3, { groupId: 'g', generationId: 1, memberId: 'm', groupInstanceId: null }, (r) => r.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED],
  ['LeaveGroup', 3, { groupId: 'g', members: [{ memberId: 'm', groupInstanceId: null }] }, (r) => r.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED],
  ['OffsetCommit', 3, { groupId: 'g', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, topics: [{ name: 'secret', partitions: P0 }] }, (r) => r.topics[0].partitions[0].errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED],
  ['OffsetFetch', 3, { groupId: 'g', topics: null }, (r) => r.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED],
  ['DescribeGroups', 3, { groups: ['g'], includeAuthorizedOperations: false }, (r) => r.groups[0].errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED],
  ['DeleteGroups', 1, { groupsNames: ['g'] }, (r) => r.results[0].errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED],
  ['OffsetDelete', 0, { groupId: 'g', topics: [] }, (r) => r.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED],
  ['InitProducerId', 3, { transactionalId: 'tx', transactionTimeoutMs: 60000, producerId: -1, producerEpoch: -1 }, (r) => r.errorCode, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED],
  ['AddPartitionsToTxn', 3, { v3AndBelowTransactionalId: 'tx', v3AndBelowProducerId: 1, v3AndBelowProducerEpoch: 0, v3AndBelowTopics: [{ name: 'secret', partitions: [0] }] }, (r) => r.resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED],
  ['AddPartitionsToTxn', 4, { transactions: [] }, (r) => r.errorCode, ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  ['AddOffsetsToTxn', 3, { transactionalId: 'tx', producerId: 1, producerEpoch: 0, groupId: 'g' }, (r) => r.errorCode, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED],
  ['EndTxn', 3, { transactionalId: 'tx', producerId: 1, producerEpoch: 0, committed: true }, (r) => r.errorCode, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED],
  ['TxnOffsetCommit', 3, { transactionalId: 'tx', groupId: 'g', producerId: 1, producerEpoch: 0, generationId: -1, memberId: '', groupInstanceId: null, topics: [{ name: 'secret', partitions: P0 }] }, (r) => r.topics[0].partitions[0].errorCode, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED],
  ['DescribeTransactions', 0, { transactionalIds: ['tx'] }, (r) => r.transactionStates[0].errorCode, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED],
  ['DescribeUserScramCredentials', 0, { users: null }, (r) => r.errorCode, ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  ['AlterUserScramCredentials', 0, { deletions: [{ name: 'bob', mechanism: 2 }], upsertions: [] }, (r) => r.results[0].errorCode, ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  ['DescribeClientQuotas', 1, { components: [], strict: false }, (r) => r.errorCode, ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  ['AlterClientQuotas', 1, { entries: [{ entity: [{ entityType: 'user', entityName: 'bob' }], ops: [] }], validateOnly: true }, (r) => r.entries[0].errorCode, ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
];

describe('every checked API answers Kafka\'s code when the principal has no ACL', () => {
  it.each(DENIED)('%s v%i', async (api, version, req, code, expected) => {
    const b = await services();
    expect(code(await call(api, req, ctxOf('User:alice', version), b))).toBe(expected);
  });

  it('with the ACLs Kafka asks for, the same requests pass the checks', async () => {
    const b = await services();
    const allow = (resourceType: number, resourceName: string, operation: number) => ({ resourceType, resourceName, resourcePatternType: PatternType.LITERAL, operation });
    await call('CreateAcls', {
      creations: [
        allow(ResourceType.TOPIC, 'secret', Op.ALL), allow(ResourceType.TOPIC, 'new', Op.CREATE), allow(ResourceType.GROUP, 'g', Op.ALL),
        allow(ResourceType.TRANSACTIONAL_ID, 'tx', Op.ALL), allow(ResourceType.CLUSTER, CLUSTER_NAME, Op.ALL),
      ].map((o) => creation(o)),
    }, admin, b);
    for (const [api, version, req, code, expected] of DENIED) {
      expect(code(await call(api, req, ctxOf('User:alice', version), b)), `${api} v${version}`).not.toBe(expected);
    }
  });
});
