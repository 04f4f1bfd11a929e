// Client quotas with Kafka's own tools: kafka-configs sets producer_byte_rate
// and consumer_byte_rate for a client id, kafka-producer-perf-test and
// kafka-consumer-perf-test with that client id then run at the quota (within
// 20 %), while another client id is not held back. The same expectations
// hold for Kafka (RUNNEL_TEST_TARGET=kafka).
//
// quota.window.num=2 (Kafka's default is 11): the window then counts at
// least 1 s, so the burst a client may send before the first throttle is one
// second's worth and the measured rate approaches the quota within seconds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assertOk, consumerPerf, kafkaConfigs, kafkaTopics, producerPerf, runJava } from '../../helpers/java.js';
import { startTarget, targetKindFromEnv, type Target } from '../../helpers/target.js';

const KIND = targetKindFromEnv();
const RATE = 1024 * 1024; // bytes/s
const MB = 8;
let target: Target;

beforeAll(async () => {
  target = await startTarget({ runnel: { args: ['--set', 'quota.window.num=2'] }, kafka: { props: { 'quota.window.num': 2 } } });
  assertOk('create', await kafkaTopics(target.bootstrap, ['--create', '--topic', 'quota-t', '--partitions', '1', '--replication-factor', '1']));
}, 120_000);

afterAll(async () => {
  await target?.stop();
});

describe(`client quotas against ${KIND}`, () => {
  it('kafka-configs sets and describes client quotas, and refuses invalid ones', async () => {
    assertOk('alter', await kafkaConfigs(target.bootstrap, ['--alter', '--entity-type', 'clients', '--entity-name', 'slow', '--add-config', `producer_byte_rate=${RATE},consumer_byte_rate=${RATE}`]));
    assertOk('alter user', await kafkaConfigs(target.bootstrap, ['--alter', '--entity-type', 'users', '--entity-default', '--add-config', 'request_percentage=200']));
    const d = assertOk('describe', await kafkaConfigs(target.bootstrap, ['--describe', '--entity-type', 'clients', '--entity-name', 'slow']));
    expect(d.stdout).toMatch(/Quota configs for client-id 'slow' are (consumer_byte_rate=1048576\.0, producer_byte_rate=1048576\.0|producer_byte_rate=1048576\.0, consumer_byte_rate=1048576\.0)/);
    const users = assertOk('describe users', await kafkaConfigs(target.bootstrap, ['--describe', '--entity-type', 'users', '--entity-default']));
    expect(users.stdout).toContain('request_percentage=200.0');
    const bad = await runJava('org.apache.kafka.tools.ConfigCommand', ['--bootstrap-server', target.bootstrap, '--alter', '--entity-type', 'clients', '--entity-name', 'x', '--add-config', 'producer_byte_rate=1.5']);
    expect(bad.code).not.toBe(0);
    expect(`${bad.stdout}${bad.stderr}`).toMatch(/InvalidRequestException|whole number|LONG/i);
  });

  it(`producer_byte_rate: ${MB} MiB from client "slow" arrive at 1 MiB/s (within 20 %), another client is not held back`, async () => {
    const slow = await producerPerf({ bootstrap: target.bootstrap, topic: 'quota-t', numRecords: MB * 1024, recordSize: 1024, props: { 'client.id': 'slow', acks: 1 } });
    const fast = await producerPerf({ bootstrap: target.bootstrap, topic: 'quota-t', numRecords: MB * 1024, recordSize: 1024, props: { 'client.id': 'fast', acks: 1 } });
    console.log(`${KIND}: producer "slow" ${slow.mbPerSec} MB/s, "fast" ${fast.mbPerSec} MB/s (quota 1 MiB/s)`);
    expect(slow.mbPerSec).toBeGreaterThan(0.8);
    expect(slow.mbPerSec).toBeLessThan(1.2);
    expect(fast.mbPerSec).toBeGreaterThan(2);
  });

  // A throttled fetch is answered empty and not counted, so a consumer loses part
  // of each throttle interval: on Kafka 4.4 this test measures 0.73 MiB/s, on
  // Runnel 0.59-0.64. The bound that matters is the upper one; the lower one
  // only shows the consumer is held back, not stopped.
  it(`consumer_byte_rate: client "slow" reads ${MB} MiB at no more than 1 MiB/s (+20 %)`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quota-'));
    const props = path.join(dir, 'consumer.properties');
    // Fetches of 64 KiB, not the default 1 MiB: with a 1 s window a 1 MiB fetch is all of a second's quota at once.
    fs.writeFileSync(props, 'client.id=slow\nmax.partition.fetch.bytes=65536\n');
    const slow = await consumerPerf({ bootstrap: target.bootstrap, topic: 'quota-t', numRecords: MB * 1024, group: 'quota-slow', consumerConfig: props });
    fs.rmSync(dir, { recursive: true, force: true });
    console.log(`${KIND}: consumer "slow" ${slow.mbPerSec} MB/s over ${slow.fetchMs} ms (quota 1 MiB/s)`);
    expect(slow.records).toBeGreaterThanOrEqual(MB * 1024);
    expect(slow.mbPerSec).toBeGreaterThan(0.4);
    expect(slow.mbPerSec).toBeLessThan(1.2);
  });
});
