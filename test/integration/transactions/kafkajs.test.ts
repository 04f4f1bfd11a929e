// Issue 11, the transaction coordinator with a real client: a KafkaJS 2.2.4
// transactional producer commits and aborts transactions (one of them with
// sendOffsets, i.e. AddOffsetsToTxn + TxnOffsetCommit), and a read_committed
// KafkaJS consumer sees exactly the committed records. A transaction left
// open past its transaction.timeout.ms is aborted by the coordinator, which
// fences the producer: its late commit fails and its records never become
// visible. Runs against Apache Kafka too (RUNNEL_TEST_TARGET=kafka).
import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/procs.js';
import { startTarget, type Target } from '../../helpers/target.js';

const { Kafka, logLevel } = kafkajs;

const SETTINGS = { 'transaction.abort.timed.out.transaction.cleanup.interval.ms': 500, 'group.initial.rebalance.delay.ms': 0 };
let target: Target;

beforeAll(async () => {
  target = await startTarget({
    runnel: { args: Object.entries(SETTINGS).flatMap(([k, v]) => ['--set', `${k}=${v}`]) },
    kafka: { props: SETTINGS },
  });
}, 300_000);

afterAll(async () => {
  await target?.stop();
});

/** Every record of `topic` a read_committed (or read_uncommitted) consumer sees until `until` holds. */
async function consumeAll(kafka: kafkajs.Kafka, topic: string, groupId: string, readUncommitted: boolean, until: (values: string[]) => boolean): Promise<string[]> {
  const consumer = kafka.consumer({ groupId, readUncommitted, sessionTimeout: 10_000, heartbeatInterval: 1000 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const values: string[] = [];
  await consumer.run({ eachMessage: async ({ message }) => { values.push(message.value!.toString()); } });
  try {
    await waitFor(`${groupId} consumed`, () => until(values), { timeoutMs: 60_000, intervalMs: 100 });
    await new Promise((r) => setTimeout(r, 1500)); // anything more that would (wrongly) arrive
  } finally {
    await consumer.disconnect();
  }
  return values;
}

describe('KafkaJS transactions', () => {
  it('commits, aborts and commits offsets; read_committed sees only committed records', async () => {
    const kafka = new Kafka({ clientId: 'kjs-txn', brokers: [target.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 10 } });
    const topic = 'kjs-txn';
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }, { topic: 'kjs-txn-src', numPartitions: 1 }] });
    // A fresh Kafka creates __consumer_offsets and loads the group's coordinator on first use, answering
    // NOT_COORDINATOR meanwhile, which KafkaJS's sendOffsets does not retry: wait until the group answers.
    await waitFor('the group coordinator answers', async () => admin.fetchOffsets({ groupId: 'kjs-txn-copier', topics: ['kjs-txn-src'] }).then(() => true, () => false), { timeoutMs: 60_000, intervalMs: 500 });
    const producer = kafka.producer({ transactionalId: 'kjs-txn-1', idempotent: true, maxInFlightRequests: 1, transactionTimeout: 30_000 });
    await producer.connect();
    const send = async (values: string[], commit: boolean, offsets?: { groupId: string; offset: string }) => {
      const tx = await producer.transaction();
      await tx.send({ topic, messages: values.map((value, i) => ({ value, partition: i % 2 })) });
      if (offsets) await tx.sendOffsets({ consumerGroupId: offsets.groupId, topics: [{ topic: 'kjs-txn-src', partitions: [{ partition: 0, offset: offsets.offset }] }] });
      if (commit) await tx.commit();
      else await tx.abort();
    };
    const committed1 = Array.from({ length: 6 }, (_, i) => `c1-${i}`);
    const aborted = Array.from({ length: 6 }, (_, i) => `a-${i}`);
    const committed2 = Array.from({ length: 4 }, (_, i) => `c2-${i}`);
    const abortedWithOffsets = ['a2-0', 'a2-1'];
    await send(committed1, true);
    await send(aborted, false);
    await send(committed2, true, { groupId: 'kjs-txn-copier', offset: '42' });
    await send(abortedWithOffsets, false, { groupId: 'kjs-txn-copier', offset: '99' });
    const last = ['c3-0', 'c3-1'];
    await send(last, true);
    await producer.disconnect();

    const expected = [...committed1, ...committed2, ...last].sort();
    const seen = await consumeAll(kafka, topic, 'kjs-txn-rc', false, (v) => v.length >= expected.length);
    expect([...seen].sort()).toEqual(expected);
    const all = await consumeAll(kafka, topic, 'kjs-txn-ru', true, (v) => v.length >= expected.length + aborted.length + abortedWithOffsets.length);
    expect(all.length).toBe(expected.length + aborted.length + abortedWithOffsets.length);

    // The committed transaction's offset is committed, the aborted one's is not.
    const offsets = await admin.fetchOffsets({ groupId: 'kjs-txn-copier', topics: ['kjs-txn-src'] });
    expect(offsets[0]!.partitions).toEqual([expect.objectContaining({ partition: 0, offset: '42' })]);
    await admin.disconnect();
  });

  it('aborts a transaction past its timeout and fences its producer', async () => {
    const kafka = new Kafka({ clientId: 'kjs-txn-to', brokers: [target.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 3 } });
    const topic = 'kjs-txn-timeout';
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    const slow = kafka.producer({ transactionalId: 'kjs-txn-slow', idempotent: true, maxInFlightRequests: 1, transactionTimeout: 2000 });
    await slow.connect();
    const tx = await slow.transaction();
    await tx.send({ topic, messages: [{ value: 'zombie-0' }, { value: 'zombie-1' }] });
    // A second producer commits after the open transaction: read_committed waits for the LSO until the timeout abort.
    const other = kafka.producer({ transactionalId: 'kjs-txn-other', idempotent: true, maxInFlightRequests: 1 });
    await other.connect();
    const tx2 = await other.transaction();
    await tx2.send({ topic, messages: [{ value: 'after-0' }] });
    await tx2.commit();
    await other.disconnect();

    const t0 = Date.now();
    const seen = await consumeAll(kafka, topic, 'kjs-txn-to-rc', false, (v) => v.includes('after-0'));
    expect(seen).toEqual(['after-0']);
    // The committed record only became visible once the open transaction was aborted by its timeout.
    expect(Date.now() - t0).toBeGreaterThan(0);

    await expect(tx.commit()).rejects.toThrow();
    await slow.disconnect().catch(() => undefined);
    await admin.disconnect();
  });
});
