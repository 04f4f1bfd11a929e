// Issue 11 through Kafka's admin tools:
//   kafka-transactions (org.apache.kafka.tools.TransactionsCommand)
//     list                          ListTransactions on every broker
//     describe --transactional-id   FindCoordinator(TRANSACTION) + DescribeTransactions
//   kafka-consumer-groups --describe (org.apache.kafka.tools.consumer.group.ConsumerGroupCommand)
//     OffsetFetch without require_stable: only offsets of committed transactions.
// A KafkaJS transactional producer holds a transaction open (Ongoing, with its
// partitions), commits it with offsets (TxnOffsetCommit) -> CompleteCommit and
// the group shows the offset; a second transaction with other offsets is
// aborted -> CompleteAbort and the group still shows the first offset.
// Runs against Apache Kafka too (RUNNEL_TEST_TARGET=kafka).
import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertOk, runJava } from '../../helpers/java.js';
import { waitFor } from '../../helpers/procs.js';
import { startTarget, type Target } from '../../helpers/target.js';

const { Kafka, logLevel } = kafkajs;
const TOPIC = 'tools-txn';
const SRC = 'tools-src';
const GROUP = 'tools-txn-group';
const TXN_ID = 'tools-txn-1';
const JVM = ['-Xmx128m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1'];

let target: Target;
beforeAll(async () => {
  target = await startTarget({ runnel: { args: ['--set', 'group.initial.rebalance.delay.ms=0'] } });
}, 300_000);
afterAll(async () => {
  await target?.stop();
});

/** Rows of a whitespace-aligned table whose header starts with `firstColumn`, as column -> value. */
function table(stdout: string, firstColumn: string): Array<Record<string, string>> {
  const lines = stdout.split('\n').map((l) => l.trim()).filter(Boolean);
  const h = lines.findIndex((l) => l.split(/\s+/)[0] === firstColumn);
  if (h < 0) throw new Error(`no '${firstColumn}' table in:\n${stdout}`);
  const cols = lines[h]!.split(/\s+/);
  return lines.slice(h + 1).map((l) => {
    const vals = l.split(/\s+/);
    return Object.fromEntries(cols.map((c, i) => [c, vals[i] ?? '']));
  });
}

async function transactions(args: string[]): Promise<string> {
  const r = await runJava('org.apache.kafka.tools.TransactionsCommand', ['--bootstrap-server', target.bootstrap, ...args], { jvmArgs: JVM, timeoutMs: 60_000 });
  return assertOk(`kafka-transactions ${args.join(' ')}`, r).stdout;
}

async function describeTxn(): Promise<Record<string, string>> {
  const rows = table(await transactions(['describe', '--transactional-id', TXN_ID]), 'CoordinatorId');
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

/** kafka-consumer-groups --describe: partition -> CURRENT-OFFSET of SRC. */
async function groupOffsets(): Promise<Record<string, string>> {
  const r = await runJava('org.apache.kafka.tools.consumer.group.ConsumerGroupCommand', ['--bootstrap-server', target.bootstrap, '--describe', '--group', GROUP], { jvmArgs: JVM, timeoutMs: 60_000 });
  const rows = table(assertOk('kafka-consumer-groups --describe', r).stdout, 'GROUP').filter((x) => x.GROUP === GROUP && x.TOPIC === SRC);
  return Object.fromEntries(rows.map((x) => [x.PARTITION!, x['CURRENT-OFFSET']!]));
}

describe('kafka-transactions and kafka-consumer-groups', () => {
  it('list/describe an open, committed and aborted transaction; group offsets only from the committed one', async () => {
    const t0 = Date.now();
    const kafka = new Kafka({ clientId: 'tools-txn', brokers: [target.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 10 } });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 2 }, { topic: SRC, numPartitions: 1 }] });
    // A fresh Kafka answers NOT_COORDINATOR while it loads the group's coordinator, which KafkaJS's sendOffsets does not retry.
    await waitFor('the group coordinator answers', async () => admin.fetchOffsets({ groupId: GROUP, topics: [SRC] }).then(() => true, () => false), { timeoutMs: 60_000, intervalMs: 500 });
    const plain = kafka.producer();
    await plain.connect();
    await plain.send({ topic: SRC, messages: Array.from({ length: 20 }, (_, i) => ({ value: `src-${i}` })) });
    await plain.disconnect();

    const producer = kafka.producer({ transactionalId: TXN_ID, idempotent: true, maxInFlightRequests: 1, transactionTimeout: 60_000 });
    await producer.connect();

    // ---- an open transaction on both partitions of TOPIC
    const tx = await producer.transaction();
    await tx.send({ topic: TOPIC, messages: [{ value: 'a', partition: 0 }, { value: 'b', partition: 1 }] });
    const listed = table(await transactions(['list']), 'TransactionalId').filter((x) => x.TransactionalId === TXN_ID);
    expect(listed).toEqual([expect.objectContaining({ TransactionState: 'Ongoing' })]);
    const producerId = listed[0]!.ProducerId!;
    expect(Number(producerId)).toBeGreaterThanOrEqual(0);
    const open = await describeTxn();
    expect(open).toMatchObject({ TransactionalId: TXN_ID, ProducerId: producerId, TransactionState: 'Ongoing' });
    expect(open.TopicPartitions!.split(',').sort()).toEqual([`${TOPIC}-0`, `${TOPIC}-1`]);
    expect(Number(open.TransactionTimeoutMs)).toBe(60_000);
    // The transaction started (first AddPartitionsToTxn) during this test, by the broker's clock.
    expect(Number(open.CurrentTransactionStartTimeMs)).toBeGreaterThanOrEqual(t0 - 1000);
    expect(Number(open.CurrentTransactionStartTimeMs)).toBeLessThanOrEqual(Date.now());

    // ---- commit it with the group's offset: CompleteCommit, no partitions left, offset visible
    await tx.sendOffsets({ consumerGroupId: GROUP, topics: [{ topic: SRC, partitions: [{ partition: 0, offset: '5' }] }] });
    await tx.commit();
    const committed = await describeTxn();
    // A completed transaction has no partitions left but keeps its start time (Kafka's
    // TransactionMetadata.prepareComplete keeps txnStartTimestamp; Runnel cleared it before).
    expect(committed).toMatchObject({ TransactionalId: TXN_ID, ProducerId: producerId, TransactionState: 'CompleteCommit', CurrentTransactionStartTimeMs: open.CurrentTransactionStartTimeMs, TopicPartitions: '' });
    expect(await groupOffsets()).toEqual({ 0: '5' });

    // ---- another transaction commits offset 9, but is aborted
    const tx2 = await producer.transaction();
    await tx2.send({ topic: TOPIC, messages: [{ value: 'c', partition: 0 }] });
    await tx2.sendOffsets({ consumerGroupId: GROUP, topics: [{ topic: SRC, partitions: [{ partition: 0, offset: '9' }] }] });
    // Pending transactional offsets are not offsets yet.
    expect(await groupOffsets()).toEqual({ 0: '5' });
    await tx2.abort();
    const aborted = await describeTxn();
    expect(aborted).toMatchObject({ TransactionalId: TXN_ID, ProducerId: producerId, TransactionState: 'CompleteAbort', TopicPartitions: '' });
    expect(Number(aborted.CurrentTransactionStartTimeMs)).toBeGreaterThanOrEqual(Number(open.CurrentTransactionStartTimeMs));
    expect(await groupOffsets()).toEqual({ 0: '5' });
    await producer.disconnect();
    await admin.disconnect();
    console.log(`[transactions/tools] ${target.kind}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  });
});
