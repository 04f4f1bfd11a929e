// Kafka's broker configuration language mapped onto Runnel's settings.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../../broker/src/config/config.js';
import { editDistance } from '../../../broker/src/config/kafka.js';
import { ARCHIVER_ENV } from '../../../archiver/src/config.js';
import { ARCHIVER_FLAGS, archiverEnv } from '../../../cli/archiver-flags.js';

function withFile(text: string): string {
  const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rn-cfg-')), 'server.properties');
  fs.writeFileSync(f, text);
  return f;
}

// Kafka 4.x config/server.properties (combined KRaft broker + controller), abridged but with every key kind.
const KAFKA_SERVER_PROPERTIES = `
process.roles=broker,controller
node.id=3
controller.quorum.bootstrap.servers=localhost:9093
listeners=PLAINTEXT://:19092,CONTROLLER://:9093
inter.broker.listener.name=PLAINTEXT
advertised.listeners=PLAINTEXT://kafka-3.example:29092,CONTROLLER://localhost:9093
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL
num.network.threads=3
num.io.threads=8
socket.send.buffer.bytes=102400
socket.receive.buffer.bytes=102400
socket.request.max.bytes=104857600
log.dirs=/tmp/kraft-combined-logs
num.partitions=4
num.recovery.threads.per.data.dir=1
offsets.topic.replication.factor=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
log.retention.hours=168
log.segment.bytes=1073741824
log.retention.check.interval.ms=300000
`;

describe('Kafka broker keys', () => {
  it("Kafka's own server.properties: listeners, advertised.listeners and retention take effect; the rest is listed as ignored", () => {
    const cfg = loadBrokerConfig(['--config', withFile(KAFKA_SERVER_PROPERTIES)], {});
    expect(cfg).toMatchObject({ nodeId: 3, host: '0.0.0.0', port: 19092, advertisedHost: 'kafka-3.example', advertisedPort: 29092, numPartitions: 4, logRetentionMs: 168 * 3_600_000 });
    expect(cfg.ignoredKeys).toEqual(expect.arrayContaining(['process.roles', 'log.dirs', 'num.io.threads', 'transaction.state.log.min.isr', 'controller.quorum.bootstrap.servers', 'inter.broker.listener.name', 'log.segment.bytes']));
    expect(cfg.ignoredKeys).not.toContain('listeners');
  });

  it('ZooKeeper-era keys: broker.id, zookeeper.*', () => {
    const cfg = loadBrokerConfig(['--config', withFile('broker.id=7\nzookeeper.connect=localhost:2181\nzookeeper.connection.timeout.ms=18000\nlisteners=PLAINTEXT://127.0.0.2:9999\n')], {});
    expect(cfg).toMatchObject({ nodeId: 7, host: '127.0.0.2', port: 9999, advertisedHost: '127.0.0.2', advertisedPort: 9999 });
    expect(cfg.ignoredKeys).toEqual(['zookeeper.connect', 'zookeeper.connection.timeout.ms']);
  });

  it('log.retention precedence: ms > minutes > hours; negative is unlimited', () => {
    const load = (...kv: string[]) => loadBrokerConfig(kv.flatMap((x) => ['--set', x]), {}).logRetentionMs;
    expect(load()).toBe(604_800_000);
    expect(load('log.retention.hours=2')).toBe(7_200_000);
    expect(load('log.retention.hours=2', 'log.retention.minutes=3')).toBe(180_000);
    expect(load('log.retention.hours=2', 'log.retention.minutes=3', 'log.retention.ms=5')).toBe(5);
    expect(load('log.retention.hours=-1')).toBe(-1);
    // a later source's hours does not beat an earlier source's ms (Kafka's precedence is by key, not by source)
    expect(loadBrokerConfig(['--config', withFile('log.retention.ms=1000\n'), '--set', 'log.retention.hours=1'], {}).logRetentionMs).toBe(1000);
  });

  it('explicit host/port win over listeners; environment keys use RUNNEL_ + upper snake', () => {
    expect(loadBrokerConfig(['--port', '1234', '--set', 'listeners=PLAINTEXT://h:9092'], {})).toMatchObject({ host: 'h', port: 1234 });
    expect(loadBrokerConfig([], { RUNNEL_LISTENERS: 'PLAINTEXT://[::1]:9500', RUNNEL_BROKER_ID: '9', RUNNEL_LOG_RETENTION_MINUTES: '1' })).toMatchObject({ host: '::1', port: 9500, nodeId: 9, logRetentionMs: 60_000 });
  });

  it('a malformed listener is refused with a clear message (the rest of the listener keys: config-listeners.test.ts)', () => {
    expect(() => loadBrokerConfig(['--set', 'listeners=localhost:9092'], {})).toThrow(/NAME:\/\/host:port/);
  });

  it('unknown keys: RN3001 with the closest known key, from a file, --set or the environment', () => {
    expect(() => loadBrokerConfig(['--set', 'foo.bar=1'], {})).toThrow(/RN3001.*unknown setting foo\.bar/);
    expect(() => loadBrokerConfig(['--set', 'num.partition=3'], {})).toThrow(/did you mean num\.partitions\?/);
    expect(() => loadBrokerConfig(['--config', withFile('advertised.listener=PLAINTEXT://x:1\n')], {})).toThrow(/did you mean advertised\.listeners\?/);
    expect(() => loadBrokerConfig([], { RUNNEL_NUM_PARTITION: '3' })).toThrow(/RUNNEL_NUM_PARTITION.*did you mean RUNNEL_NUM_PARTITIONS\?/);
    // other components' variables and unrelated RUNNEL_* names are not broker settings
    expect(() => loadBrokerConfig([], { RUNNEL_LAKE: 'x', RUNNEL_ARCHIVER_TOPICS: 'a', RUNNEL_TEST_BACKEND: 'x', RUNNEL_SKIP_PERF: '1' })).not.toThrow();
    expect(() => loadBrokerConfig(['--bogus'], {})).toThrow(/Unknown option '--bogus'/);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it("every key the test suites pass with --set is accepted", () => {
    const keys = ['broker.lease.ms', 'cluster.max.partitions', 'connections.max.idle.ms', 'group.initial.rebalance.delay.ms', 'http.port', 'key.prefix', 'leadership.handoff.per.tick', 'leadership.tick.ms', 'log.retention.check.interval.ms', 'max.connections', 'min.insync.replicas', 'num.partitions', 'offsets.topic.num.partitions', 'producer.id.expiration.ms', 'redis.acks.all.waitaof', 'redis.allow.eviction', 'redis.replica.wait.ms', 'redis.connection.timeout.ms', 'socket.partial.request.timeout.ms', 'topic.max.partitions', 'broker.rack'];
    const vals: Record<string, string> = { 'redis.acks.all.waitaof': 'true', 'redis.allow.eviction': 'true', 'broker.rack': 'r1' };
    expect(() => loadBrokerConfig(keys.flatMap((k) => ['--set', `${k}=${vals[k] ?? '7'}`]), {})).not.toThrow();
  });

  it('redis.connection.timeout.ms: 10 s by default (the start-up wait docs/configuration.md names), settable', () => {
    expect(loadBrokerConfig([], {}).redisConnectionTimeoutMs).toBe(10_000);
    expect(loadBrokerConfig(['--set', 'redis.connection.timeout.ms=1500'], {}).redisConnectionTimeoutMs).toBe(1500);
    expect(loadBrokerConfig([], { RUNNEL_REDIS_CONNECTION_TIMEOUT_MS: '2500' }).redisConnectionTimeoutMs).toBe(2500);
  });
});

describe('runnel archiver flags', () => {
  it('every environment variable the archiver reads has a flag', () => {
    const src = fs.readFileSync(path.join(__dirname, '../../../archiver/src/config.ts'), 'utf8');
    const read = new Set([...src.matchAll(/env(?:\.|, ')(RUNNEL_[A-Z0-9_]+)/g)].map((m) => m[1]!));
    expect(read.size).toBeGreaterThan(20);
    expect([...read].filter((n) => !ARCHIVER_ENV.some((e) => e.name === n))).toEqual([]);
    const flags = Object.fromEntries(ARCHIVER_FLAGS.map((f) => [f.env, f.flag]));
    expect(flags).toMatchObject({ RUNNEL_LAKE: 'lake', RUNNEL_REDIS_URL: 'redis', RUNNEL_S3_ENDPOINT: 's3-endpoint', RUNNEL_S3_FORCE_PATH_STYLE: 's3-force-path-style', RUNNEL_KEY_PREFIX: 'key-prefix', RUNNEL_REDIS_TLS_CA_LOCATION: 'redis-tls-ca-location', RUNNEL_ARCHIVER_READ_COUNT: 'read-count' });
    expect(archiverEnv({ 's3-force-path-style': true, 'read-count': '9' }, { RUNNEL_ARCHIVER_READ_COUNT: '1' })).toMatchObject({ RUNNEL_S3_FORCE_PATH_STYLE: 'true', RUNNEL_ARCHIVER_READ_COUNT: '9' });
  });
});
