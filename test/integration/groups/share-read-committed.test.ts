// A share group's share.isolation.level (a group config, kafka-configs
// --entity-type groups): with read_committed, Kafka 4.x's KafkaShareConsumer
// (test/integration/groups/java/ShareConsumerApp.java) gets the records of
// committed transactions only, never those of an aborted one; a group left at
// read_uncommitted gets all of them. The transactions are KafkaJS's. Also
// against Apache Kafka 4.4 with RUNNEL_TEST_TARGET=kafka.
import fs from 'node:fs';
import kafkajs from 'kafkajs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertOk, createTopic, kafkaConfigs } from '../../helpers/java.js';
import { waitFor, type ManagedProcess } from '../../helpers/procs.js';
import { compileShareConsumerApp, shareConsumer } from './share-support.js';
import { startTarget, type Target } from '../../helpers/target.js';

const TOPIC = 'share-txn';
let target: Target;
let classes = '';
const running: ManagedProcess[] = [];

beforeAll(async () => {
  target = await startTarget();
  classes = await compileShareConsumerApp();
}, 180_000);
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop(3000)));
});
afterAll(async () => {
  await target?.stop();
});

function consumer(group: string): ManagedProcess {
  const p = shareConsumer(classes, target.bootstrap, `share-rc-${group}`, TOPIC, group, 'accept');
  running.push(p);
  return p;
}
const values = (p: ManagedProcess): string[] =>
  fs.readFileSync(p.logFile, 'utf8').split('\n').filter((l) => l.startsWith('{"event":"record"')).map((l) => (JSON.parse(l) as { value: string }).value);

/** Sets the group's configs with kafka-configs (the group need not exist yet). */
async function groupConfigs(group: string, configs: string): Promise<void> {
  assertOk('kafka-configs --alter', await kafkaConfigs(target.bootstrap, ['--entity-type', 'groups', '--entity-name', group, '--alter', '--add-config', configs]));
}

describe('share groups: share.isolation.level', () => {
  it('read_committed delivers the records of committed transactions only; read_uncommitted all of them', async () => {
    await createTopic(target.bootstrap, TOPIC, 1);
    const kafka = new kafkajs.Kafka({ clientId: 'share-rc', brokers: [target.bootstrap], logLevel: kafkajs.logLevel.NOTHING });
    const producer = kafka.producer({ transactionalId: 'share-rc-txn', idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const txn = async (vs: string[], commit: boolean): Promise<void> => {
      const t = await producer.transaction();
      await t.send({ topic: TOPIC, messages: vs.map((value) => ({ value, partition: 0 })) });
      await (commit ? t.commit() : t.abort());
    };
    const v = (from: number): string[] => Array.from({ length: 5 }, (_, i) => `v${from + i}`);
    await txn(v(0), true);
    await txn(v(100), false); // aborted
    await txn(v(5), true);
    await producer.disconnect();
    const committed = [...v(0), ...v(5)];

    await groupConfigs('sg-rc', 'share.auto.offset.reset=earliest,share.isolation.level=read_committed');
    await groupConfigs('sg-ru', 'share.auto.offset.reset=earliest');
    const rc = consumer('sg-rc');
    const ru = consumer('sg-ru');
    await waitFor('read_committed: the 10 committed records', () => values(rc).length >= 10, { timeoutMs: 60_000, intervalMs: 200 });
    await waitFor('read_uncommitted: all 15 records', () => values(ru).length >= 15, { timeoutMs: 60_000, intervalMs: 200 });
    await new Promise((r) => setTimeout(r, 2000)); // nothing more comes
    expect(values(rc).sort()).toEqual([...committed].sort());
    expect(values(ru).sort()).toEqual([...committed, ...v(100)].sort());
  }, 180_000);
});
