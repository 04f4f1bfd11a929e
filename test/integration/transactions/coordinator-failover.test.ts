// Issue 11: the transaction coordinator's broker is SIGKILLed mid-transaction.
// Two brokers on one Redis; two KafkaJS transactional producers whose
// transactional ids hash to slots held by broker 2: one commits, the other
// leaves its transaction open. Broker 2 is SIGKILLed; broker 1 takes its
// coordinator slots over, finds the open transaction in Redis and aborts it
// when its timeout passes (with an epoch bump). A read_committed consumer then
// sees exactly the committed records, the open one's producer is fenced, and
// its transactional id can be initialised again. Runnel only: a single-node
// Apache Kafka has no second broker to take the coordinator over.
import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FindCoordinator } from '../../../broker/src/protocol/messages/find-coordinator.js';
import { DescribeTransactions } from '../../../broker/src/protocol/messages/describe-transactions.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { waitFor } from '../../helpers/procs.js';
import { WireClient } from '../../helpers/wire.js';

const { Kafka, logLevel } = kafkajs;
let redis: RedisServer;
const brokers: RunnelBroker[] = [];
const args = (id: number) => ['--node-id', String(id), '--set', 'group.initial.rebalance.delay.ms=0', '--set', 'transaction.abort.timed.out.transaction.cleanup.interval.ms=500'];

beforeAll(async () => {
  redis = await startRedis();
  for (const id of [1, 2]) brokers.push(await startRunnel({ redisUrl: redis.url, args: args(id) }));
}, 120_000);

afterAll(async () => {
  for (const b of brokers) await b.stop().catch(() => undefined);
  await redis?.stop();
});

async function coordinatorOf(port: number, id: string): Promise<number> {
  const c = await WireClient.connect(port);
  try {
    return (await c.request(FindCoordinator, 3, { key: id, keyType: 1 })).nodeId;
  } finally {
    c.close();
  }
}

/** Transactional ids coordinated by `node` (as broker 1 sees it). */
async function idsCoordinatedBy(node: number, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; out.length < n && i < 500; i++) if ((await coordinatorOf(brokers[0]!.port, `fo-tx-${i}`)) === node) out.push(`fo-tx-${i}`);
  return out;
}

describe('transaction coordinator failover', () => {
  it('a SIGKILLed coordinator\'s open transaction is aborted by its successor; committed ones stay committed', async () => {
    await waitFor('both brokers hold coordinator slots', async () => (await idsCoordinatedBy(2, 1)).length === 1 && (await idsCoordinatedBy(1, 1)).length === 1, { timeoutMs: 30_000, intervalMs: 500 });
    const [committedId, openId] = await idsCoordinatedBy(2, 2);
    const kafka = new Kafka({ clientId: 'txn-fo', brokers: [brokers[0]!.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 10 } });
    const topic = 'txn-fo';
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 4 }] });

    const committed = kafka.producer({ transactionalId: committedId, idempotent: true, maxInFlightRequests: 1 });
    await committed.connect();
    const tx1 = await committed.transaction();
    await tx1.send({ topic, messages: Array.from({ length: 8 }, (_, i) => ({ value: `committed-${i}`, partition: i % 4 })) });
    await tx1.commit();
    await committed.disconnect();

    const open = kafka.producer({ transactionalId: openId, idempotent: true, maxInFlightRequests: 1, transactionTimeout: 4000 });
    await open.connect();
    const tx2 = await open.transaction();
    await tx2.send({ topic, messages: Array.from({ length: 8 }, (_, i) => ({ value: `open-${i}`, partition: i % 4 })) });

    await brokers[1]!.kill();
    const killedAt = Date.now();

    // Broker 1 takes the slot over; the open transaction is aborted once its timeout passed.
    const c = await WireClient.connect(brokers[0]!.port);
    try {
      await waitFor('the open transaction aborted by the new coordinator', async () => {
        const d = await c.request(DescribeTransactions, 0, { transactionalIds: [openId] });
        return d.transactionStates[0].errorCode === 0 && d.transactionStates[0].transactionState === 'CompleteAbort';
      }, { timeoutMs: 30_000, intervalMs: 250 });
      const d = await c.request(DescribeTransactions, 0, { transactionalIds: [openId, committedId] });
      expect(d.transactionStates[0]).toMatchObject({ transactionState: 'CompleteAbort', producerEpoch: 1, topics: [] });
      expect(d.transactionStates[1]).toMatchObject({ transactionState: 'CompleteCommit' });
      console.log(`[txn-failover] open transaction aborted ${Date.now() - killedAt} ms after SIGKILL (lease + transaction timeout)`);
    } finally {
      c.close();
    }

    // The fenced producer cannot commit what it wrote.
    await expect(tx2.commit()).rejects.toThrow();
    await open.disconnect().catch(() => undefined);

    const consumer = kafka.consumer({ groupId: 'txn-fo-rc', sessionTimeout: 10_000, heartbeatInterval: 1000 });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const seen: string[] = [];
    await consumer.run({ eachMessage: async ({ message }) => { seen.push(message.value!.toString()); } });
    await waitFor('committed records consumed', () => seen.length >= 8, { timeoutMs: 60_000 });
    await new Promise((r) => setTimeout(r, 1500));
    await consumer.disconnect();
    expect(seen.sort()).toEqual(Array.from({ length: 8 }, (_, i) => `committed-${i}`).sort());

    // The transactional id is usable again: a new producer initialises and commits.
    const again = kafka.producer({ transactionalId: openId, idempotent: true, maxInFlightRequests: 1 });
    await again.connect();
    const tx3 = await again.transaction();
    await tx3.send({ topic, messages: [{ value: 'again', partition: 0 }] });
    await tx3.commit();
    await again.disconnect();
    await admin.disconnect();
  });
});
