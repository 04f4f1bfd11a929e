// Topic configs as Kafka 4.x accepts them, through Kafka's own kafka-topics and
// kafka-configs tools. Runs against both targets (RUNNEL_TEST_TARGET=kafka shows
// the expectations are Kafka's); the few values Runnel refuses on purpose
// (cleanup.policy=compact, compression.type other than producer) are checked
// per target.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { assertOk, compileJava, kafkaConfigs, kafkaTopics, parseConfigDescribe, runJava } from '../helpers/java.js';
import { REPO_ROOT, waitFor } from '../helpers/procs.js';
import { startTarget, targetKindFromEnv, type Target } from '../helpers/target.js';

const KIND = targetKindFromEnv();
let target: Target;

beforeAll(async () => {
  target = await startTarget();
});

afterAll(async () => {
  await target?.stop();
});

/** IncrementalAlterConfigs ops (and EXPECT waits) through the Java Admin client, in one JVM; one line per step. */
type Step = ['SET' | 'DELETE' | 'APPEND' | 'SUBTRACT' | 'EXPECT', string, string];
async function alterSteps(topic: string, steps: Step[]): Promise<string[]> {
  const classes = await compileJava([path.join(REPO_ROOT, 'test', 'interop', 'java', 'AlterTopicConfig.java')]);
  const r = assertOk('AlterTopicConfig', await runJava('AlterTopicConfig', [target.bootstrap, topic, ...steps.flat()], { classpath: [classes], timeoutMs: 120_000 }));
  return r.stdout.trim().split('\n');
}

const output = (r: { stdout: string; stderr: string }): string => `${r.stdout}\n${r.stderr}`;

async function create(topic: string, configs: Record<string, string>) {
  const args = ['--create', '--topic', topic, '--partitions', '1', '--replication-factor', '1'];
  for (const [k, v] of Object.entries(configs)) args.push('--config', `${k}=${v}`);
  return kafkaTopics(target.bootstrap, args);
}

async function describeConfigs(topic: string, all = false): Promise<Record<string, string>> {
  const r = assertOk('describe', await kafkaConfigs(target.bootstrap, ['--entity-type', 'topics', '--entity-name', topic, '--describe', ...(all ? ['--all'] : [])]));
  return parseConfigDescribe(r.stdout);
}

describe(`topic configs via kafka-topics / kafka-configs against ${KIND}`, () => {
  it('creates a topic with a broad set of Kafka 4.x configs at once and describes them back', async () => {
    const configs = {
      'delete.retention.ms': '3600000',
      'min.compaction.lag.ms': '1000',
      'max.compaction.lag.ms': '86400000',
      'min.cleanable.dirty.ratio': '0.2',
      'segment.ms': '600000',
      'segment.bytes': '1048576',
      'segment.jitter.ms': '10',
      'segment.index.bytes': '4096',
      'index.interval.bytes': '8192',
      'file.delete.delay.ms': '1000',
      'preallocate': 'true',
      'compression.type': 'producer',
      'compression.lz4.level': '12',
      'compression.zstd.level': '5',
      'compression.gzip.level': '6',
      'message.timestamp.type': 'LogAppendTime',
      'message.timestamp.before.max.ms': '86400000',
      'message.timestamp.after.max.ms': '60000',
      'local.retention.ms': '-2',
      'remote.storage.enable': 'false',
      'unclean.leader.election.enable': 'false',
      'flush.messages': '1000',
      'retention.ms': '7200000',
    };
    assertOk('create', await create('cfg-broad', configs));
    const d = await describeConfigs('cfg-broad');
    for (const [k, v] of Object.entries(configs)) expect(d[k], k).toBe(v);
    // --all shows Kafka's defaults for what was not set.
    const all = await describeConfigs('cfg-broad', true);
    expect(all).toMatchObject({ 'cleanup.policy': 'delete', 'file.delete.delay.ms': '1000', 'max.message.bytes': '1048588', 'flush.ms': '9223372036854775807' });
    expect(all['leader.replication.throttled.replicas']).toBe('');
  });

  it('answers invalid values with INVALID_CONFIG and Kafka\'s message', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ 'segment.bytes': '5' }, 'Invalid value 5 for configuration segment.bytes: Value must be at least 1048576'],
      [{ 'min.cleanable.dirty.ratio': '2' }, 'Invalid value 2.0 for configuration min.cleanable.dirty.ratio: Value must be no more than 1'],
      [{ 'compression.type': 'brotli' }, 'Invalid value brotli for configuration compression.type: String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer'],
      [{ 'compression.lz4.level': '18' }, 'Invalid value 18 for configuration compression.lz4.level: Value must be no more than 17'],
      [{ 'delete.retention.ms': 'soon' }, 'Invalid value soon for configuration delete.retention.ms: Not a number of type LONG'],
      [{ 'cleanup.policy': 'delete,shred' }, 'Invalid value shred for configuration cleanup.policy: String must be one of: compact, delete'],
      [{ 'min.compaction.lag.ms': '10', 'max.compaction.lag.ms': '5' }, 'conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)'],
    ];
    let i = 0;
    for (const [configs, message] of cases) {
      const r = await create(`cfg-bad-${i++}`, configs);
      expect(r.code, JSON.stringify(configs)).not.toBe(0);
      // kafka-topics checks values itself before sending (ConfigException): the broker is asked below.
      expect(output(r)).toContain(message);
    }
    // The broker's own answer: IncrementalAlterConfigs SET, which the Admin client does not check.
    assertOk('create', await create('cfg-bad-alter', {}));
    const steps: Step[] = [];
    const expected: string[] = [];
    for (const [configs, message] of cases) {
      const entries = Object.entries(configs);
      for (const [k, v] of entries.slice(0, -1)) { steps.push(['SET', k, v]); expected.push('OK'); }
      const [k, v] = entries.at(-1)!;
      steps.push(['SET', k, v]);
      expected.push(`InvalidConfigurationException: ${message}`);
    }
    steps.push(['SET', 'no.such.config', '1']);
    expected.push('InvalidConfigurationException: Unknown topic config name: no.such.config');
    expect(await alterSteps('cfg-bad-alter', steps)).toEqual(expected);
  });

  it('IncrementalAlterConfigs APPEND and SUBTRACT on list configs', async () => {
    assertOk('create', await create('cfg-lists', {}));
    // kafka-configs 4.x has no --append-config: the Java Admin client sends the
    // ops, and after each one waits until DescribeConfigs shows its effect.
    const key = 'follower.replication.throttled.replicas';
    const out = await alterSteps('cfg-lists', [
      ['APPEND', key, '0:1,1:1'], ['EXPECT', key, '0:1,1:1'],
      ['APPEND', key, '1:1,2:1'], ['EXPECT', key, '0:1,1:1,2:1'], // no duplicates
      ['SUBTRACT', key, '0:1,2:1'], ['EXPECT', key, '1:1'],
      // The default of cleanup.policy is the starting point: SUBTRACT delete leaves the empty list.
      ['SUBTRACT', 'cleanup.policy', 'delete'], ['EXPECT', 'cleanup.policy', ''],
      ['APPEND', 'segment.ms', '5'],
      // APPEND to the (now empty) list: compact, as Kafka does.
      ['APPEND', 'cleanup.policy', 'compact'], ['EXPECT', 'cleanup.policy', 'compact'],
    ]);
    expect(out).toEqual([
      'OK', 'SEEN', 'OK', 'SEEN', 'OK', 'SEEN', 'OK', 'SEEN',
      "InvalidConfigurationException: Can't APPEND to key segment.ms because its type is not LIST.",
      'OK', 'SEEN',
    ]);
  });

  it('cleanup.policy=compact,delete and broker-side compression.type with delete.retention.ms: accepted, as Kafka accepts them', async () => {
    assertOk('compact', await create('cfg-compact', { 'cleanup.policy': 'compact,delete' }));
    assertOk('lz4', await create('cfg-lz4', { 'compression.type': 'lz4', 'delete.retention.ms': '1000' }));
    await waitFor('configs stored', async () => {
      const [c, l] = [await describeConfigs('cfg-compact'), await describeConfigs('cfg-lz4')];
      return c['cleanup.policy'] === 'compact,delete' && l['compression.type'] === 'lz4' && l['delete.retention.ms'] === '1000';
    }, { timeoutMs: 30_000, intervalMs: 500 });
  });
});
