// Group configs with Kafka's own tool, over Runnel (or, with
// RUNNEL_TEST_TARGET=kafka, Apache Kafka 4.4): kafka-configs --entity-type
// groups describes a group's configs (none of it needs to exist), sets and
// deletes them, refuses values outside the broker's bounds and unknown names;
// the consumer.heartbeat.interval.ms of a group reaches its members: in the
// ConsumerGroupHeartbeat response (raw client) and in a Java 4.4 consumer with
// group.protocol=consumer (its NetworkClient logs each response at DEBUG).
// `runnel group config|alter-config` does the same as kafka-configs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertOk, createTopic, kafkaConfigs, parseConfigDescribe, runJava } from '../../helpers/java.js';
import { waitFor } from '../../helpers/procs.js';
import { startTarget, type Target } from '../../helpers/target.js';
import { WireClient } from '../../helpers/wire.js';
import { ConsumerGroupHeartbeat } from '../../../broker/src/protocol/messages/consumer-group-heartbeat.js';
import { FindCoordinator } from '../../../broker/src/protocol/messages/find-coordinator.js';
import { ok, runnel } from '../cli/support.js';
import type { GroupConfig } from '../../../cli/commands/group-config.js';

const GROUP = 'cfg-group';
const TOPIC = 'cfg-topic';

let target: Target;
beforeAll(async () => {
  // The heartbeat interval's lower bound at 1 s (Kafka's is 5 s) so an override of 2 s is valid on both targets.
  target = await startTarget({
    runnel: { args: ['--set', 'group.consumer.min.heartbeat.interval.ms=1000'] },
    kafka: { props: { 'group.consumer.min.heartbeat.interval.ms': 1000 } },
  });
  await createTopic(target.bootstrap, TOPIC, 2);
}, 120_000);
afterAll(async () => {
  await target?.stop();
});

const base = ['--entity-type', 'groups', '--entity-name', GROUP];
const describeGroup = async (all = false) =>
  assertOk('kafka-configs --describe', await kafkaConfigs(target.bootstrap, [...base, '--describe', ...(all ? ['--all'] : [])])).stdout;

async function heartbeatInterval(memberId: string): Promise<number> {
  const port = Number(target.bootstrap.split(':').at(-1));
  const c = await WireClient.connect(port);
  try {
    // The group's coordinator (Kafka creates __consumer_offsets on the first lookup); one broker here.
    const found = await c.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: [GROUP] });
    expect(found.coordinators[0].errorCode).toBe(0);
    const join = await c.request(ConsumerGroupHeartbeat, 1, {
      groupId: GROUP, memberId, memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
      subscribedTopicNames: [TOPIC], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
    });
    expect(join.errorCode).toBe(0);
    const leave = await c.request(ConsumerGroupHeartbeat, 1, {
      groupId: GROUP, memberId, memberEpoch: -1, instanceId: null, rackId: null, rebalanceTimeoutMs: -1,
      subscribedTopicNames: null, subscribedTopicRegex: null, serverAssignor: null, topicPartitions: null,
    });
    expect(leave.errorCode).toBe(0);
    return join.heartbeatIntervalMs as number;
  } finally {
    c.close();
  }
}

describe('kafka-configs --entity-type groups', () => {
  it('describes, sets, refuses and deletes group configs of a group that does not exist yet', async () => {
    // Kafka 4.4's tool lists the groups and the group config resources (ListConfigResources, which
    // Runnel does not serve: the tool then describes the group anyway, as it does with older brokers).
    expect(await describeGroup()).toContain(target.kind === 'kafka'
      ? `The group '${GROUP}' doesn't exist and doesn't have dynamic config.`
      : `Dynamic configs for group ${GROUP} are:`);
    expect(parseConfigDescribe(await describeGroup())).toEqual({});
    const allOut = await describeGroup(true);
    // Each config with the broker setting behind it (or Kafka's default under its own name) as its synonym.
    expect(allOut).toContain('consumer.session.timeout.ms=45000 sensitive=false synonyms={DEFAULT_CONFIG:group.consumer.session.timeout.ms=45000}');
    expect(allOut).toContain('share.isolation.level=read_uncommitted sensitive=false synonyms={DEFAULT_CONFIG:share.isolation.level=read_uncommitted}');
    const all = parseConfigDescribe(allOut);
    expect(all).toMatchObject({
      'consumer.session.timeout.ms': '45000', 'consumer.heartbeat.interval.ms': '5000', 'share.record.lock.duration.ms': '30000',
      'share.auto.offset.reset': 'latest', 'share.isolation.level': 'read_uncommitted', 'share.session.timeout.ms': '45000',
    });

    const alter = assertOk('alter', await kafkaConfigs(target.bootstrap, [...base, '--alter', '--add-config',
      'consumer.heartbeat.interval.ms=2000,share.auto.offset.reset=earliest,share.record.lock.duration.ms=20000']));
    expect(alter.stdout).toContain(`Completed updating config for group ${GROUP}.`);
    await waitFor('the group configs', async () => parseConfigDescribe(await describeGroup())['consumer.heartbeat.interval.ms'] === '2000', { timeoutMs: 30_000, intervalMs: 500 });
    const shown = await describeGroup();
    expect(parseConfigDescribe(shown)).toEqual({
      'consumer.heartbeat.interval.ms': '2000', 'share.auto.offset.reset': 'earliest', 'share.record.lock.duration.ms': '20000',
    });
    expect(shown).toMatch(/consumer\.heartbeat\.interval\.ms=2000 sensitive=false synonyms=\{DYNAMIC_GROUP_CONFIG:consumer\.heartbeat\.interval\.ms=2000/);

    // Outside the broker's bounds, unknown, or not a value of its type: refused, nothing changes.
    const low = await kafkaConfigs(target.bootstrap, [...base, '--alter', '--add-config', 'consumer.heartbeat.interval.ms=500']);
    expect(low.code).not.toBe(0);
    expect(low.stdout + low.stderr).toContain('consumer.heartbeat.interval.ms must be in the range 1000 to 15000 inclusive.');
    const unknown = await kafkaConfigs(target.bootstrap, [...base, '--alter', '--add-config', 'no.such.config=1']);
    expect(unknown.code).not.toBe(0);
    const level = await kafkaConfigs(target.bootstrap, [...base, '--alter', '--add-config', 'share.isolation.level=serializable']);
    expect(level.code).not.toBe(0);
    expect(level.stdout + level.stderr).toContain('String must be one of: read_committed, read_uncommitted');
    expect(parseConfigDescribe(await describeGroup())['consumer.heartbeat.interval.ms']).toBe('2000');

    assertOk('delete-config', await kafkaConfigs(target.bootstrap, [...base, '--alter', '--delete-config', 'share.auto.offset.reset,share.record.lock.duration.ms']));
    await waitFor('deleted', async () => parseConfigDescribe(await describeGroup())['share.auto.offset.reset'] === undefined, { timeoutMs: 30_000, intervalMs: 500 });
    expect(parseConfigDescribe(await describeGroup(true))['share.auto.offset.reset']).toBe('latest');
  }, 180_000);

  it('a group\'s consumer.heartbeat.interval.ms reaches its members (raw ConsumerGroupHeartbeat and a Java consumer)', async () => {
    // Set by the test above; wait until the coordinator applies it.
    await waitFor('the override at the coordinator', async () => (await heartbeatInterval(`probe-${Date.now()}`)) === 2000, { timeoutMs: 30_000, intervalMs: 500 });

    const r = await runJava('org.apache.kafka.tools.consumer.ConsoleConsumer', [
      '--bootstrap-server', target.bootstrap, '--topic', TOPIC, '--group', GROUP,
      '--consumer-property', 'group.protocol=consumer', '--timeout-ms', '6000',
      '--formatter', 'org.apache.kafka.tools.consumer.NoOpMessageFormatter',
    ], { logLevel: 'DEBUG', timeoutMs: 90_000 });
    // Every answer to a joined member (the leave's answer, epoch -1, carries no interval).
    const intervals = [...r.stderr.matchAll(/ConsumerGroupHeartbeatResponseData\([^)]*?errorCode=0[^)]*?memberEpoch=(\d+), heartbeatIntervalMs=(\d+)/g)].map((m) => Number(m[2]));
    expect(intervals.length).toBeGreaterThan(0);
    expect(new Set(intervals)).toEqual(new Set([2000]));

    assertOk('delete-config', await kafkaConfigs(target.bootstrap, [...base, '--alter', '--delete-config', 'consumer.heartbeat.interval.ms']));
    await waitFor('the broker default again', async () => (await heartbeatInterval(`probe-${Date.now()}`)) === 5000, { timeoutMs: 30_000, intervalMs: 500 });
  }, 180_000);

  it('runnel group alter-config and runnel group config', async () => {
    const g = 'cfg-cli-group';
    const shown = async (all = false) => (JSON.parse(ok(await runnel(target.bootstrap, ['group', 'config', g, '--json', ...(all ? ['--all-configs'] : [])]))) as { configs: GroupConfig[] }).configs;
    expect(await shown()).toEqual([]);
    expect(ok(await runnel(target.bootstrap, ['group', 'alter-config', g, '--config', 'share.isolation.level=read_committed', '--config', 'consumer.session.timeout.ms=50000'])))
      .toBe(`Altered configs of group ${g}.\n`);
    await waitFor('set', async () => (await shown()).length === 2, { timeoutMs: 30_000, intervalMs: 500 });
    expect(await shown()).toEqual([
      { name: 'consumer.session.timeout.ms', value: '50000', source: 'GROUP_CONFIG' },
      { name: 'share.isolation.level', value: 'read_committed', source: 'GROUP_CONFIG' },
    ]);
    expect((await shown(true)).find((c) => c.name === 'share.record.lock.duration.ms')).toEqual({ name: 'share.record.lock.duration.ms', value: '30000', source: 'DEFAULT_CONFIG' });
    const bad = await runnel(target.bootstrap, ['group', 'alter-config', g, '--config', 'share.delivery.count.limit=1']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('Invalid value 1 for configuration share.delivery.count.limit: Value must be at least 2');
    ok(await runnel(target.bootstrap, ['group', 'alter-config', g, '--delete-config', 'share.isolation.level']));
    await waitFor('deleted', async () => (await shown()).length === 1, { timeoutMs: 30_000, intervalMs: 500 });
    expect(ok(await runnel(target.bootstrap, ['group', 'config', g]))).toMatch(/consumer\.session\.timeout\.ms\s+50000\s+GROUP_CONFIG/);
  }, 120_000);
});
