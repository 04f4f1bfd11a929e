// The ACL handlers (CreateAcls, DescribeAcls, DeleteAcls) and the checks of the
// other handlers, over an AclService with an in-memory store.
import { describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../../broker/src/config.js';
import { LogManager } from '../../../broker/src/log/log-manager.js';
import { createLogger } from '../../../broker/src/logger.js';
import { ErrorCode } from '../../../broker/src/errors.js';
import { soloCluster } from '../../../broker/src/cluster/cluster-view.js';
import { buildHandlers } from '../../../broker/src/handlers/registry.js';
import type { BrokerServices, Handler, RequestContext } from '../../../broker/src/handlers/types.js';
import { AclService } from '../../../broker/src/security/acl/acl-service.js';
import { AclOperation as Op, AclPermission, CLUSTER_NAME, PatternType, ResourceType } from '../../../broker/src/security/acl/model.js';
import { newSession } from '../../../broker/src/security/session.js';
import { MemoryLogStore } from '../support/memory-log-store.js';
import { MemoryAclStore } from '../support/memory-acl-store.js';
import { buildBatch } from '../../helpers/batches.js';

const AUTHORIZER = 'kafka.security.authorizer.AclAuthorizer';
const handlers = new Map<string, Handler>(buildHandlers().map((h) => [h.api.name, h]));

async function services(className = AUTHORIZER): Promise<BrokerServices> {
  const config = loadBrokerConfig([], {});
  const store = new MemoryLogStore();
  const cluster = soloCluster({ nodeId: config.nodeId, host: '127.0.0.1', port: 9092, rack: null });
  const acls = new AclService({ authorizerClassName: className, superUsers: 'User:admin', allowEveryoneIfNoAclFound: false }, new MemoryAclStore());
  await acls.start();
  acls.stop(); // no polling needed: changes through the service reload it
  const b = { config, clusterId: 'c', log: new LogManager(store, config), store, logger: createLogger('error', 'test'), cluster, acls } as BrokerServices;
  await b.log.createTopic('pay-eu', 1, {});
  await b.log.createTopic('secret', 1, {});
  return b;
}

const ctxOf = (principal: string, apiVersion = 3): RequestContext => {
  const session = newSession(1, '127.0.0.1');
  session.principal = principal;
  return { apiKey: 0, apiVersion, correlationId: 1, clientId: 't', connectionId: 1, session };
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

  it('WriteTxnMarkers needs CLUSTER_ACTION on the cluster; super users have it', async () => {
    const b = await services();
    const markers = { markers: [{ producerId: 1, producerEpoch: 0, transactionResult: true, coordinatorEpoch: 0, topics: [{ name: 'pay-eu', partitionIndexes: [0] }] }] };
    const code = (r: Record<string, any>) => r.markers[0].topics[0].partitions[0].errorCode;
    expect(code(await call('WriteTxnMarkers', markers, alice, b))).toBe(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    expect(code(await call('WriteTxnMarkers', markers, admin, b))).not.toBe(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
  });
});
