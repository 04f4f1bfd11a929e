// Group configs (the GROUP config resource): Kafka 4.4's names, validation
// and bounds (the messages are those Kafka 4.4's GroupConfig.validate gives
// for the same input), defaults and overrides in DescribeConfigs, and the
// consumer.* overrides reaching the KIP-848 coordinator.
import { describe, expect, it } from 'vitest';
import { loadBrokerConfig, brokerConfigEntries } from '../../../../broker/src/config/config.js';
import { ErrorCode } from '../../../../common/errors.js';
import { brokerSettings, effectiveGroupConfig, resolveGroupConfigs, validateGroupConfigs, applyGroupListOp } from '../../../../broker/src/groups/config/group-config-rules.js';
import { parseIsoDuration, parseShareAutoOffsetReset } from '../../../../broker/src/groups/config/group-config-defs.js';
import { GroupConfigs, CACHE_TTL_MS } from '../../../../broker/src/groups/config/group-configs.js';
import { GroupCoordinator } from '../../../../broker/src/groups/coordinator.js';
import { LogManager } from '../../../../broker/src/log/log-manager.js';
import { soloCluster } from '../../../../broker/src/cluster/cluster-view.js';
import { createLogger } from '../../../../common/logger/logger.js';
import { decode, encode } from '../../../../broker/src/protocol/codec.js';
import { Reader } from '../../../../broker/src/protocol/reader.js';
import type { BrokerServices, Handler } from '../../../../broker/src/handlers/support/types.js';
import { buildHandlers } from '../../../../broker/src/handlers/support/registry.js';
import { newSession } from '../../../../broker/src/security/session.js';
import { MemoryLogStore } from '../../support/memory-log-store.js';
import { MemoryGroupStore } from '../../support/memory-group-store.js';
import { MemoryGroupConfigStore } from '../../support/memory-group-config-store.js';
import { noTransactions } from '../../support/services.js';
import { FakeClock } from '../../support/fake-clock.js';

const kafkaDefaults = brokerSettings([]);
const fromArgs = (sets: string[]) => brokerSettings(brokerConfigEntries(loadBrokerConfig(sets.flatMap((s) => ['--set', s.replace(/^--/, '')]), {})));
const err = (r: ReturnType<typeof validateGroupConfigs>): string | null => ('error' in r ? r.error : null);

describe('group configs: Kafka 4.4 validation', () => {
  it('refuses unknown names and unparsable values with Kafka\'s messages', () => {
    expect(err(validateGroupConfigs({ nope: '1' }, kafkaDefaults))).toBe('Unknown group config name: nope');
    expect(err(validateGroupConfigs({ 'consumer.heartbeat.interval.ms': 'abc' }, kafkaDefaults)))
      .toBe('Invalid value abc for configuration consumer.heartbeat.interval.ms: Not a number of type INT');
    expect(err(validateGroupConfigs({ 'consumer.session.timeout.ms': '0' }, kafkaDefaults)))
      .toBe('Invalid value 0 for configuration consumer.session.timeout.ms: Value must be at least 1');
    expect(err(validateGroupConfigs({ 'share.isolation.level': 'READ_COMMITTED' }, kafkaDefaults)))
      .toBe('Invalid value READ_COMMITTED for configuration share.isolation.level: String must be one of: read_committed, read_uncommitted');
    expect(err(validateGroupConfigs({ 'share.renew.acknowledge.enable': 'maybe' }, kafkaDefaults)))
      .toBe('Invalid value maybe for configuration share.renew.acknowledge.enable: Expected value to be either true or false');
    for (const bad of ['foo', 'EARLIEST', 'by_duration:-PT1H', 'BY_DURATION:P1D']) {
      expect(err(validateGroupConfigs({ 'share.auto.offset.reset': bad }, kafkaDefaults))).toBe(
        `Invalid value ${bad} for configuration share.auto.offset.reset: Invalid value \`${bad}\` for configuration share.auto.offset.reset. The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'.`,
      );
    }
  });

  it('bounds values by the broker\'s group.*.min/max settings', () => {
    expect(err(validateGroupConfigs({ 'consumer.heartbeat.interval.ms': '1000' }, kafkaDefaults)))
      .toBe('consumer.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive.');
    expect(err(validateGroupConfigs({ 'share.record.lock.duration.ms': '10000' }, kafkaDefaults)))
      .toBe('share.record.lock.duration.ms must be in the range 15000 to 60000 inclusive.');
    expect(err(validateGroupConfigs({ 'share.delivery.count.limit': '11' }, kafkaDefaults)))
      .toBe('share.delivery.count.limit must be in the range 2 to 10 inclusive.');
    expect(err(validateGroupConfigs({ 'streams.num.standby.replicas': '3' }, kafkaDefaults))).toBe('streams.num.standby.replicas must be less than or equal to 2');
    expect(err(validateGroupConfigs({ 'streams.assignor.name': 'foo' }, kafkaDefaults)))
      .toBe("streams.assignor.name 'foo' is not a registered task assignor. Registered assignors are: [sticky].");
    expect(err(validateGroupConfigs({ 'streams.rack.aware.assignment.tags': 'a,a' }, kafkaDefaults))).toBe('streams.rack.aware.assignment.tags must not contain duplicate tag keys.');
    // The broker's own bounds move the range.
    const wide = fromArgs(['--group.consumer.min.heartbeat.interval.ms=100', '--group.consumer.min.session.timeout.ms=1000']);
    expect(err(validateGroupConfigs({ 'consumer.heartbeat.interval.ms': '1000' }, wide))).toBeNull();
    // The session timeout must exceed the heartbeat interval, set or inherited.
    expect(err(validateGroupConfigs({ 'consumer.session.timeout.ms': '1000', 'consumer.heartbeat.interval.ms': '1000' }, wide)))
      .toBe('consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms');
    expect(err(validateGroupConfigs({ 'consumer.session.timeout.ms': '5000' }, wide))).toBe('consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms');
    expect(err(validateGroupConfigs({ 'consumer.session.timeout.ms': '46000', 'consumer.heartbeat.interval.ms': '15000' }, kafkaDefaults))).toBeNull();
  });

  it('accepts Kafka\'s valid forms and stores them as parsed', () => {
    const r = validateGroupConfigs({
      'consumer.session.timeout.ms': ' 50000 ', 'share.auto.offset.reset': 'by_duration:PT1H', 'share.renew.acknowledge.enable': 'TRUE',
      'consumer.assignor.offload.enable': 'false', 'errors.deadletterqueue.topic.name': 'dlq', 'share.isolation.level': 'read_committed',
    }, kafkaDefaults);
    expect(r).toEqual({ configs: {
      'consumer.session.timeout.ms': '50000', 'share.auto.offset.reset': 'by_duration:PT1H', 'share.renew.acknowledge.enable': 'true',
      'consumer.assignor.offload.enable': 'false', 'errors.deadletterqueue.topic.name': 'dlq', 'share.isolation.level': 'read_committed',
    } });
    expect(parseIsoDuration('PT1H')).toBe(3_600_000);
    expect(parseIsoDuration('P1DT0.5S')).toBe(86_400_500);
    expect(parseIsoDuration('P')).toBeNull();
    expect(parseShareAutoOffsetReset('by_duration:PT30M')).toEqual({ strategy: 'by_duration', durationMs: 1_800_000 });
  });

  it('APPEND/SUBTRACT only on the LIST config', () => {
    expect(applyGroupListOp('APPEND', 'streams.rack.aware.assignment.tags', 'zone', 'rack,zone', kafkaDefaults)).toEqual({ value: 'zone,rack' });
    expect(applyGroupListOp('SUBTRACT', 'streams.rack.aware.assignment.tags', 'zone,rack', 'zone', kafkaDefaults)).toEqual({ value: 'rack' });
    expect(applyGroupListOp('APPEND', 'consumer.session.timeout.ms', undefined, '1', kafkaDefaults))
      .toEqual({ error: "Can't APPEND to key consumer.session.timeout.ms because its type is not LIST." });
  });
});

describe('group configs: defaults, overrides and effective values', () => {
  it('DescribeConfigs lists every public config: DEFAULT_CONFIG, STATIC_BROKER_CONFIG from the broker, GROUP_CONFIG when set', () => {
    const broker = fromArgs(['--group.consumer.session.timeout.ms=50000']);
    const byName = new Map(resolveGroupConfigs({ 'consumer.heartbeat.interval.ms': '7000' }, broker).map((c) => [c.name, c]));
    expect(byName.get('consumer.heartbeat.interval.ms')).toMatchObject({ value: '7000', source: 8, type: 'int' });
    expect(byName.get('consumer.heartbeat.interval.ms')!.synonyms).toEqual([
      { name: 'consumer.heartbeat.interval.ms', value: '7000', source: 8 },
      { name: 'group.consumer.heartbeat.interval.ms', value: '5000', source: 5 },
    ]);
    expect(byName.get('consumer.session.timeout.ms')).toMatchObject({ value: '50000', source: 4 });
    expect(byName.get('share.record.lock.duration.ms')).toMatchObject({ value: '30000', source: 5 });
    expect(byName.get('share.auto.offset.reset')).toMatchObject({ value: 'latest', source: 5, synonyms: [{ name: 'share.auto.offset.reset', value: 'latest', source: 5 }] });
    expect(byName.get('share.isolation.level')).toMatchObject({ value: 'read_uncommitted', source: 5 });
    expect(byName.get('streams.assignor.name')).toMatchObject({ value: 'sticky', source: 5 });
    // Kafka's internal configs are not listed unless set.
    expect(byName.has('consumer.assignor.offload.enable')).toBe(false);
    expect(resolveGroupConfigs({ 'consumer.assignor.offload.enable': 'false' }, broker).some((c) => c.name === 'consumer.assignor.offload.enable')).toBe(true);
  });

  it('effective values: the override, else the broker setting, typed', () => {
    const broker = fromArgs(['--group.consumer.heartbeat.interval.ms=6000']);
    const e = effectiveGroupConfig({ 'consumer.session.timeout.ms': '50000', 'share.auto.offset.reset': 'earliest', 'share.isolation.level': 'read_committed' }, broker);
    expect(e).toMatchObject({
      consumerSessionTimeoutMs: 50000, consumerHeartbeatIntervalMs: 6000, shareRecordLockDurationMs: 30000, shareDeliveryCountLimit: 5,
      shareAutoOffsetReset: { strategy: 'earliest' }, shareIsolationLevel: 'read_committed', shareRenewAcknowledgeEnable: true, errorsDeadLetterQueueTopicName: '',
    });
  });

  it('GroupConfigs caches a group\'s values for CACHE_TTL_MS and sees its own writes at once', async () => {
    const store = new MemoryGroupConfigStore();
    const clock = new FakeClock();
    const configs = new GroupConfigs(store, kafkaDefaults, clock);
    expect((await configs.get('g')).consumerHeartbeatIntervalMs).toBe(5000);
    expect(await configs.replace('g', { 'consumer.heartbeat.interval.ms': '8000' }, false)).toBeNull();
    expect((await configs.get('g')).consumerHeartbeatIntervalMs).toBe(8000);
    await store.replace('g', { 'consumer.heartbeat.interval.ms': '9000' }); // another broker's write
    expect((await configs.get('g')).consumerHeartbeatIntervalMs).toBe(8000);
    await clock.advance(CACHE_TTL_MS);
    expect((await configs.get('g')).consumerHeartbeatIntervalMs).toBe(9000);
    expect(await configs.replace('g', { 'consumer.heartbeat.interval.ms': '1' }, false)).toBe('consumer.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive.');
    expect(await configs.overrides('g')).toEqual({ 'consumer.heartbeat.interval.ms': '9000' });
  });
});

async function services() {
  const config = loadBrokerConfig([], {});
  const log = new LogManager(new MemoryLogStore(), config);
  await log.createTopic('t', 2, {});
  const clock = new FakeClock();
  const groupConfigs = new GroupConfigs(new MemoryGroupConfigStore(), brokerSettings(brokerConfigEntries(config)), clock);
  const groups = new GroupCoordinator(new MemoryGroupStore(), clock, {
    topics: async () => (await log.allTopics()).map((x) => ({ name: x.name, id: x.id, partitions: x.partitions })),
    groupConfigs,
  });
  const cluster = soloCluster({ nodeId: config.nodeId, host: '127.0.0.1', port: 9092, rack: null });
  const b: BrokerServices = { config, clusterId: 'c', log, logger: createLogger('error', 'test'), cluster, groups, groupConfigs, txn: noTransactions };
  return { b, clock, groups };
}

const handlers = new Map<string, Handler>(buildHandlers().map((h) => [h.api.name, h]));

async function call(b: BrokerServices, api: string, v: number, req: Record<string, unknown>): Promise<Record<string, any>> {
  const h = handlers.get(api)!;
  const decoded = decode(h.api.request, v, new Reader(encode(h.api.request, v, req).toBuffer()));
  const res = await h.handle(decoded, { apiKey: h.api.apiKey, apiVersion: v, correlationId: 1, clientId: 'cli', session: newSession(1, '127.0.0.1') }, b);
  return decode(h.api.response, v, new Reader(encode(h.api.response, v, res!).toBuffer()));
}

const GROUP = 32;
const incremental = (b: BrokerServices, name: string, configs: Array<{ name: string; value: string | null; configOperation: number }>, validateOnly = false) =>
  call(b, 'IncrementalAlterConfigs', 1, { validateOnly, resources: [{ resourceType: GROUP, resourceName: name, configs }] }).then((r) => r.responses[0]);
const describeGroup = (b: BrokerServices, name: string, keys: string[] | null = null) =>
  call(b, 'DescribeConfigs', 4, { resources: [{ resourceType: GROUP, resourceName: name, configurationKeys: keys }], includeSynonyms: true, includeDocumentation: true })
    .then((r) => r.results[0]);

describe('the GROUP config resource over the codec', () => {
  it('IncrementalAlterConfigs sets and deletes; DescribeConfigs shows overrides and defaults; no group needs to exist', async () => {
    const { b } = await services();
    expect(await incremental(b, 'no-such-group', [{ name: 'consumer.heartbeat.interval.ms', value: '7000', configOperation: 0 }, { name: 'share.auto.offset.reset', value: 'earliest', configOperation: 0 }]))
      .toMatchObject({ errorCode: ErrorCode.NONE, resourceType: GROUP, resourceName: 'no-such-group' });
    let d = await describeGroup(b, 'no-such-group');
    expect(d.errorCode).toBe(ErrorCode.NONE);
    const byName = new Map<string, any>(d.configs.map((c: any) => [c.name, c]));
    expect(byName.get('consumer.heartbeat.interval.ms')).toMatchObject({ value: '7000', configSource: 8, configType: 3, readOnly: false });
    expect(byName.get('share.auto.offset.reset')).toMatchObject({ value: 'earliest', configSource: 8, configType: 2 });
    expect(byName.get('consumer.session.timeout.ms')).toMatchObject({ value: '45000', configSource: 5 });
    expect(byName.get('consumer.session.timeout.ms').documentation).toMatch(/timeout/);
    // A bad value changes nothing (the whole request for the resource fails).
    expect(await incremental(b, 'no-such-group', [{ name: 'share.auto.offset.reset', value: 'latest', configOperation: 0 }, { name: 'consumer.heartbeat.interval.ms', value: '100', configOperation: 0 }]))
      .toMatchObject({ errorCode: ErrorCode.INVALID_CONFIG, errorMessage: 'consumer.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive.' });
    expect(await incremental(b, 'no-such-group', [{ name: 'group.consumer.heartbeat.interval.ms', value: '7000', configOperation: 0 }]))
      .toMatchObject({ errorCode: ErrorCode.INVALID_CONFIG, errorMessage: 'Unknown group config name: group.consumer.heartbeat.interval.ms' });
    expect(await incremental(b, 'no-such-group', [{ name: 'share.isolation.level', value: null, configOperation: 0 }])).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST });
    // validateOnly stores nothing.
    expect(await incremental(b, 'no-such-group', [{ name: 'share.isolation.level', value: 'read_committed', configOperation: 0 }], true)).toMatchObject({ errorCode: ErrorCode.NONE });
    expect(await b.groupConfigs!.overrides('no-such-group')).toEqual({ 'consumer.heartbeat.interval.ms': '7000', 'share.auto.offset.reset': 'earliest' });
    expect(await incremental(b, 'no-such-group', [{ name: 'share.auto.offset.reset', value: null, configOperation: 1 }])).toMatchObject({ errorCode: ErrorCode.NONE });
    d = await describeGroup(b, 'no-such-group', ['share.auto.offset.reset']);
    expect(d.configs).toEqual([expect.objectContaining({ name: 'share.auto.offset.reset', value: 'latest', configSource: 5 })]);
    expect((await describeGroup(b, '')).errorCode).toBe(ErrorCode.INVALID_REQUEST);
  });

  it('AlterConfigs replaces the group\'s whole set', async () => {
    const { b } = await services();
    await incremental(b, 'g', [{ name: 'consumer.heartbeat.interval.ms', value: '7000', configOperation: 0 }]);
    const r = await call(b, 'AlterConfigs', 2, { validateOnly: false, resources: [{ resourceType: GROUP, resourceName: 'g', configs: [{ name: 'share.record.lock.duration.ms', value: '20000' }] }] });
    expect(r.responses[0]).toMatchObject({ errorCode: ErrorCode.NONE });
    expect(await b.groupConfigs!.overrides('g')).toEqual({ 'share.record.lock.duration.ms': '20000' });
  });

  it('a consumer-protocol group\'s members get its consumer.heartbeat.interval.ms and are expired after its consumer.session.timeout.ms', async () => {
    const { b, clock, groups } = await services();
    const join = { groupId: 'g', memberId: 'm1', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['t'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [] };
    let r = await call(b, 'ConsumerGroupHeartbeat', 1, join);
    expect(r).toMatchObject({ errorCode: ErrorCode.NONE, heartbeatIntervalMs: 5000 });
    expect(await incremental(b, 'g', [{ name: 'consumer.heartbeat.interval.ms', value: '12000', configOperation: 0 }, { name: 'consumer.session.timeout.ms', value: '60000', configOperation: 0 }]))
      .toMatchObject({ errorCode: ErrorCode.NONE });
    r = await call(b, 'ConsumerGroupHeartbeat', 1, { ...join, memberEpoch: r.memberEpoch, subscribedTopicNames: null, topicPartitions: null, rebalanceTimeoutMs: -1 });
    expect(r).toMatchObject({ errorCode: ErrorCode.NONE, heartbeatIntervalMs: 12000 });
    // Past the broker's 45 s session timeout the member is still there; past the group's 60 s it is gone.
    await clock.advance(50_000);
    expect(groups.loadedGroup('g')!.modern!.members.has('m1')).toBe(true);
    await clock.advance(10_001);
    expect(groups.loadedGroup('g')!.modern!.members.has('m1')).toBe(false);
  });
});
