// Issue 11 with librdkafka (confluent-kafka in .cache/venv): its transactional
// producer commits one transaction, aborts one (records flushed to the log
// first, so the abort marker has something to hide) and commits another.
// read_committed consumers of librdkafka and KafkaJS see exactly the committed
// records; read_uncommitted consumers see every record written. Runs against
// Apache Kafka too (RUNNEL_TEST_TARGET=kafka).
import path from 'node:path';
import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_DIR, REPO_ROOT, runCommand, sleep, waitFor } from '../../helpers/procs.js';
import { startTarget, type Target } from '../../helpers/target.js';

const { Kafka, logLevel } = kafkajs;
const PY = path.join(CACHE_DIR, 'venv', 'bin', 'python');
const TOPIC = 'rdk-txn';

let target: Target;
beforeAll(async () => {
  target = await startTarget({ runnel: { args: ['--set', 'group.initial.rebalance.delay.ms=0'] } });
}, 300_000);
afterAll(async () => {
  await target?.stop();
});

/** Values a KafkaJS consumer (own group, from the beginning) sees once it has `expected` records, plus a grace period for extras. */
async function kafkajsRead(kafka: kafkajs.Kafka, readUncommitted: boolean, expected: number): Promise<string[]> {
  const consumer = kafka.consumer({ groupId: `rdk-txn-kjs-${readUncommitted ? 'ru' : 'rc'}`, readUncommitted, sessionTimeout: 10_000, heartbeatInterval: 1000 });
  await consumer.connect();
  await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
  const values: string[] = [];
  await consumer.run({ eachMessage: async ({ message }) => { values.push(message.value!.toString()); } });
  try {
    await waitFor(`KafkaJS readUncommitted=${readUncommitted} consumed ${expected}`, () => values.length >= expected, { timeoutMs: 60_000, intervalMs: 100 });
    await sleep(1500); // anything more that would (wrongly) arrive
  } finally {
    await consumer.disconnect();
  }
  return values;
}

describe('librdkafka transactions', () => {
  it('commit and abort: read_committed sees only committed records, read_uncommitted all', async () => {
    const t0 = Date.now();
    const kafka = new Kafka({ clientId: 'rdk-txn', brokers: [target.bootstrap], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 2 }] });
    await admin.disconnect();

    const r = await runCommand(PY, [path.join(REPO_ROOT, 'test/integration/transactions/librdkafka_txn.py'), target.bootstrap, TOPIC], { timeoutMs: 180_000, logName: 'librdkafka-txn' });
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { committed: string[]; aborted: string[]; read_committed: string[]; read_uncommitted: string[] };
    const committed = [...out.committed].sort();
    const all = [...out.committed, ...out.aborted].sort();
    expect(committed).toHaveLength(15);

    // librdkafka consumers (assign mode, read to end of partition).
    expect([...out.read_committed].sort()).toEqual(committed);
    expect([...out.read_uncommitted].sort()).toEqual(all);
    // KafkaJS consumers (group mode).
    expect((await kafkajsRead(kafka, false, committed.length)).sort()).toEqual(committed);
    expect((await kafkajsRead(kafka, true, all.length)).sort()).toEqual(all);
    console.log(`[transactions/librdkafka] ${target.kind}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  });
});
