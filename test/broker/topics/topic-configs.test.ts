import { describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../../broker/src/config/config.js';
import { ErrorCode } from '../../../common/errors.js';
import { incrementalAlterConfigsHandler } from '../../../broker/src/handlers/alter-configs.js';
import type { BrokerServices } from '../../../broker/src/handlers/support/types.js';
import {
  applyListOp,
  resolveTopicConfigs,
  topicConfigNames,
  topicConfigValue,
  validateTopicConfig,
  validateTopicConfigSet,
} from '../../../broker/src/topics/topic-configs.js';

const broker = loadBrokerConfig([], {});

describe('topic configs: names, defaults and Kafka 4.x validation', () => {
  it('knows every topic config Kafka 4.4 accepts, with its defaults', () => {
    const kafka4 = [
      'cleanup.policy', 'compression.type', 'compression.gzip.level', 'compression.lz4.level', 'compression.zstd.level',
      'delete.retention.ms', 'file.delete.delay.ms', 'flush.messages', 'flush.ms', 'follower.replication.throttled.replicas',
      'index.interval.bytes', 'leader.replication.throttled.replicas', 'local.retention.bytes', 'local.retention.ms',
      'max.compaction.lag.ms', 'max.message.bytes', 'max.decompressed.message.bytes', 'message.timestamp.after.max.ms',
      'message.timestamp.before.max.ms', 'message.timestamp.type', 'min.cleanable.dirty.ratio', 'min.compaction.lag.ms',
      'min.insync.replicas', 'preallocate', 'remote.storage.enable', 'remote.log.copy.disable', 'remote.log.delete.on.disable',
      'remote.copy.lag.ms', 'remote.copy.lag.bytes', 'errors.deadletterqueue.group.enable', 'retention.bytes', 'retention.ms',
      'segment.bytes', 'segment.index.bytes', 'segment.jitter.ms', 'segment.ms', 'unclean.leader.election.enable',
    ];
    expect(topicConfigNames()).toEqual(expect.arrayContaining(kafka4));
    // Removed in Kafka 4.0: answered as unknown, as Kafka 4.x answers them.
    for (const gone of ['message.downconversion.enable', 'message.format.version', 'message.timestamp.difference.max.ms']) {
      expect(validateTopicConfig(gone, 'true')).toBe(`Unknown topic config name: ${gone}`);
    }
    const d = Object.fromEntries(resolveTopicConfigs({}, broker).map((c) => [c.name, c.value]));
    expect(d).toMatchObject({
      'cleanup.policy': 'delete', 'compression.type': 'producer', 'delete.retention.ms': '86400000',
      'min.compaction.lag.ms': '0', 'max.compaction.lag.ms': '9223372036854775807', 'min.cleanable.dirty.ratio': '0.5',
      'segment.bytes': '1073741824', 'segment.ms': '604800000', 'segment.jitter.ms': '0', 'segment.index.bytes': '10485760',
      'index.interval.bytes': '4096', 'file.delete.delay.ms': '60000', 'preallocate': 'false', 'compression.gzip.level': '-1',
      'compression.lz4.level': '9', 'compression.zstd.level': '3', 'message.timestamp.after.max.ms': '3600000',
      'local.retention.ms': '-2', 'local.retention.bytes': '-2', 'leader.replication.throttled.replicas': '',
    });
  });

  it('accepts a broad set at once (the set that used to be refused)', () => {
    const set = {
      'delete.retention.ms': '100', 'min.compaction.lag.ms': '5', 'max.compaction.lag.ms': '1000', 'min.cleanable.dirty.ratio': '0.1',
      'segment.ms': '60000', 'segment.bytes': '1048576', 'segment.jitter.ms': '0', 'segment.index.bytes': '4096',
      'index.interval.bytes': '0', 'file.delete.delay.ms': '0', 'preallocate': 'TRUE', 'compression.lz4.level': '17',
      'compression.zstd.level': '-131072', 'compression.gzip.level': '-1', 'message.timestamp.before.max.ms': '0',
      'leader.replication.throttled.replicas': '0:1,1:2', 'follower.replication.throttled.replicas': '*',
      'local.retention.ms': '-2', 'remote.storage.enable': 'false', 'cleanup.policy': ' delete ', 'retention.bytes': '-5',
    };
    for (const [k, v] of Object.entries(set)) expect(validateTopicConfig(k, v), k).toBeNull();
    expect(validateTopicConfigSet(set, broker)).toBeNull();
    expect(topicConfigValue(set, broker, 'preallocate')).toBe('true');
    expect(topicConfigValue(set, broker, 'cleanup.policy')).toBe('delete');
  });

  it('answers invalid values with Kafka\'s ConfigException text', () => {
    const cases: Array<[string, string, string]> = [
      ['segment.bytes', '5', 'Invalid value 5 for configuration segment.bytes: Value must be at least 1048576'],
      ['segment.bytes', 'abc', 'Invalid value abc for configuration segment.bytes: Not a number of type INT'],
      ['segment.bytes', '99999999999', 'Invalid value 99999999999 for configuration segment.bytes: Not a number of type INT'],
      ['segment.ms', '1.5', 'Invalid value 1.5 for configuration segment.ms: Not a number of type LONG'],
      ['segment.ms', '9223372036854775808', 'Invalid value 9223372036854775808 for configuration segment.ms: Not a number of type LONG'],
      ['min.cleanable.dirty.ratio', '2', 'Invalid value 2.0 for configuration min.cleanable.dirty.ratio: Value must be no more than 1'],
      ['min.cleanable.dirty.ratio', 'abc', 'Invalid value abc for configuration min.cleanable.dirty.ratio: Not a number of type DOUBLE'],
      ['preallocate', 'yes', 'Invalid value yes for configuration preallocate: Expected value to be either true or false'],
      ['cleanup.policy', 'foo', 'Invalid value foo for configuration cleanup.policy: String must be one of: compact, delete'],
      ['cleanup.policy', 'delete,,compact', "Configuration 'cleanup.policy' values must not be empty."],
      ['compression.type', 'LZ4', 'Invalid value LZ4 for configuration compression.type: String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer'],
      ['compression.gzip.level', '0', 'Invalid value 0 for configuration compression.gzip.level: Value must be between 1 and 9 or equal to -1'],
      ['compression.lz4.level', '18', 'Invalid value 18 for configuration compression.lz4.level: Value must be no more than 17'],
      ['compression.zstd.level', '-131073', 'Invalid value -131073 for configuration compression.zstd.level: Value must be at least -131072'],
      ['retention.ms', '-2', 'Invalid value -2 for configuration retention.ms: Value must be at least -1'],
      ['local.retention.ms', '-3', 'Invalid value -3 for configuration local.retention.ms: Value must be at least -2'],
      ['message.timestamp.type', 'foo', 'Invalid value foo for configuration message.timestamp.type: String must be one of: CreateTime, LogAppendTime'],
      ['leader.replication.throttled.replicas', '0:1,*', "Invalid value [0:1, *] for configuration leader.replication.throttled.replicas: leader.replication.throttled.replicas must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],..."],
      ['no.such.config', '1', 'Unknown topic config name: no.such.config'],
    ];
    for (const [k, v, msg] of cases) expect(validateTopicConfig(k, v), `${k}=${v}`).toBe(msg);
    expect(validateTopicConfigSet({ 'min.compaction.lag.ms': '10', 'max.compaction.lag.ms': '5' }, broker))
      .toBe('conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)');
  });

  it('accepts compaction and broker-side compression as Kafka does', () => {
    expect(validateTopicConfig('cleanup.policy', 'compact')).toBeNull();
    expect(validateTopicConfig('cleanup.policy', 'compact,delete')).toBeNull();
    expect(validateTopicConfig('cleanup.policy', '')).toBeNull();
    expect(validateTopicConfig('compression.type', 'lz4')).toBeNull();
    expect(validateTopicConfig('compression.type', 'uncompressed')).toBeNull();
    expect(validateTopicConfig('compression.type', 'brotli')).toMatch(/^Invalid value brotli for configuration compression.type: String must be one of/);
  });

  it('tiered storage: Kafka\'s checks across remote.storage.enable, cleanup.policy and local.retention.*', () => {
    expect(validateTopicConfig('remote.storage.enable', 'true')).toBeNull();
    const tiered = { 'remote.storage.enable': 'true' };
    expect(validateTopicConfigSet(tiered, broker)).toBeNull();
    expect(validateTopicConfigSet({ ...tiered, 'local.retention.ms': '1000', 'local.retention.bytes': '1024', 'retention.bytes': '4096' }, broker)).toBeNull();
    expect(validateTopicConfigSet({ ...tiered, 'cleanup.policy': 'compact,delete' }, broker)).toBe('Remote log storage is unsupported for the compacted topics');
    expect(validateTopicConfigSet({ ...tiered, 'retention.ms': '1000', 'local.retention.ms': '2000' }, broker))
      .toBe('Invalid value 2000 for configuration local.retention.ms: Value must not be more than retention.ms property value: 1000');
    expect(validateTopicConfigSet({ ...tiered, 'local.retention.ms': '-1' }, broker)).toMatch(/^Invalid value -1 for configuration local.retention.ms: Value must not be -1 as retention.ms value is set as 604800000/);
    // retention.*=-1 (forever): any local retention
    expect(validateTopicConfigSet({ ...tiered, 'retention.ms': '-1', 'local.retention.ms': '-1' }, broker)).toBeNull();
    // a broker with tiered storage off refuses it, as Kafka does
    const off = loadBrokerConfig(['--set', 'remote.log.storage.system.enable=false'], {});
    expect(validateTopicConfigSet(tiered, off)).toBe('Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.');
    // switching a tiered topic off needs remote.log.delete.on.disable=true (KIP-950)
    expect(validateTopicConfigSet({ 'remote.storage.enable': 'false' }, broker, tiered)).toMatch(/^It is invalid to disable remote storage without deleting remote data/);
    expect(validateTopicConfigSet({ 'remote.storage.enable': 'false', 'remote.log.delete.on.disable': 'true' }, broker, tiered)).toBeNull();
    expect(validateTopicConfigSet({ 'remote.storage.enable': 'true', 'remote.log.copy.disable': 'true' }, broker, tiered)).toBeNull();
  });
});

describe('IncrementalAlterConfigs APPEND / SUBTRACT', () => {
  it('work on list configs from the explicit value or else the default, without duplicates', () => {
    expect(applyListOp('APPEND', 'leader.replication.throttled.replicas', undefined, '0:1', broker)).toEqual({ value: '0:1' });
    expect(applyListOp('APPEND', 'leader.replication.throttled.replicas', '0:1', '0:1,1:1', broker)).toEqual({ value: '0:1,1:1' });
    expect(applyListOp('SUBTRACT', 'leader.replication.throttled.replicas', '0:1,1:1', '0:1,9:9', broker)).toEqual({ value: '1:1' });
    expect(applyListOp('SUBTRACT', 'cleanup.policy', undefined, 'delete', broker)).toEqual({ value: '' });
    expect(applyListOp('APPEND', 'cleanup.policy', undefined, 'compact', broker)).toEqual({ value: 'delete,compact' });
    expect(applyListOp('APPEND', 'segment.ms', '1', '2', broker)).toEqual({ error: "Can't APPEND to key segment.ms because its type is not LIST." });
    expect(applyListOp('SUBTRACT', 'segment.ms', '1', '2', broker)).toEqual({ error: "Can't SUBTRACT to key segment.ms because its type is not LIST." });
  });

  it('the handler applies them, validates the result and stores nothing on error', async () => {
    const topic = { name: 't', id: 'x', partitions: 1, created: 0, configs: { 'leader.replication.throttled.replicas': '0:1' } as Record<string, string> };
    let stored = topic.configs;
    const b = {
      config: broker,
      log: { topic: async () => ({ ...topic, configs: stored }), updateTopic: async (t: typeof topic) => { stored = t.configs; } },
    } as unknown as BrokerServices;
    const call = (configs: Array<{ name: string; value: string | null; configOperation: number }>) =>
      incrementalAlterConfigsHandler.handle({ validateOnly: false, resources: [{ resourceType: 2, resourceName: 't', configs }] }, {} as never, b).then((r) => r!);
    let r = await call([{ name: 'leader.replication.throttled.replicas', value: '1:1', configOperation: 2 }, { name: 'follower.replication.throttled.replicas', value: '*', configOperation: 2 }]);
    expect(r.responses[0]!.errorCode).toBe(ErrorCode.NONE);
    expect(stored).toEqual({ 'leader.replication.throttled.replicas': '0:1,1:1', 'follower.replication.throttled.replicas': '*' });
    r = await call([{ name: 'leader.replication.throttled.replicas', value: '0:1', configOperation: 3 }]);
    expect(stored['leader.replication.throttled.replicas']).toBe('1:1');
    r = await call([{ name: 'remote.storage.enable', value: 'true', configOperation: 0 }, { name: 'local.retention.ms', value: '-1', configOperation: 0 }]);
    expect(r.responses[0]!.errorCode).toBe(ErrorCode.INVALID_CONFIG);
    expect(r.responses[0]!.errorMessage).toMatch(/Value must not be -1 as retention.ms value is set as/);
    r = await call([{ name: 'retention.ms', value: '5', configOperation: 2 }]);
    expect(r.responses[0]).toMatchObject({ errorCode: ErrorCode.INVALID_CONFIG, errorMessage: "Can't APPEND to key retention.ms because its type is not LIST." });
    r = await call([{ name: 'min.compaction.lag.ms', value: '10', configOperation: 0 }, { name: 'max.compaction.lag.ms', value: '5', configOperation: 0 }]);
    expect(r.responses[0]!.errorCode).toBe(ErrorCode.INVALID_CONFIG);
    expect(stored).toEqual({ 'leader.replication.throttled.replicas': '1:1', 'follower.replication.throttled.replicas': '*' });
    r = await call([{ name: 'cleanup.policy', value: 'compact', configOperation: 2 }]);
    expect(r.responses[0]!.errorCode).toBe(ErrorCode.NONE);
    expect(stored['cleanup.policy']).toBe('delete,compact');
    r = await call([{ name: 'cleanup.policy', value: 'delete', configOperation: 3 }]);
    expect(stored['cleanup.policy']).toBe('compact');
  });
});
