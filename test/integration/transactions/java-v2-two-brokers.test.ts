// Transactions v2 across two brokers on one Redis (Runnel only): the Kafka
// 4.4 producer's transactional id is coordinated by broker 2, its consumer
// group by broker 1, and the topic's partitions are led by both. So the
// implicit adds of transactions v2 cross brokers: a Produce v12 to a
// partition led by broker 1 and the TxnOffsetCommit v5 at the group's
// coordinator (broker 1) add their partition at broker 2 with
// AddPartitionsToTxn v5 without VerifyOnly, as Kafka's brokers do, and broker
// 2's markers reach broker 1's partitions with the bumped epoch. The same
// checks as java-v2.test.ts (java-v2-support.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import kafkajs from 'kafkajs';
import { FindCoordinator } from '../../../broker/src/protocol/messages/find-coordinator.js';
import { freePort, waitFor } from '../../helpers/procs.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { targetKindFromEnv } from '../../helpers/target.js';
import { WireClient } from '../../helpers/wire.js';
import { anyRequests, compileTxnV2, requestCount, runAndCheckTxnV2 } from './java-v2-support.js';

const { Kafka, logLevel } = kafkajs;
const TOPIC = 'txn-v2-2b';
const PARTITIONS = 6;
let redis: RedisServer;
const brokers: RunnelBroker[] = [];
const http: number[] = [];
let classes: Promise<string>;

describe.skipIf(targetKindFromEnv() === 'kafka')('transactions v2 over two brokers', () => {
  beforeAll(async () => {
    classes = compileTxnV2();
    redis = await startRedis();
    for (const id of [1, 2]) {
      http.push(await freePort());
      brokers.push(await startRunnel({ redisUrl: redis.url, args: ['--node-id', String(id), '--set', `http.port=${http[id - 1]}`, '--set', 'group.initial.rebalance.delay.ms=0'] }));
    }
    await classes;
  }, 300_000);

  afterAll(async () => {
    for (const b of brokers) await b.stop().catch(() => undefined);
    await redis?.stop();
  });

  /** The first key `<prefix><n>` of coordinator type `keyType` (0 group, 1 transaction) that `node` coordinates. */
  async function keyCoordinatedBy(node: number, keyType: number, prefix: string): Promise<string | null> {
    const c = await WireClient.connect(brokers[0]!.port);
    try {
      for (let i = 0; i < 300; i++) if ((await c.request(FindCoordinator, 3, { key: `${prefix}${i}`, keyType })).nodeId === node) return `${prefix}${i}`;
      return null;
    } finally {
      c.close();
    }
  }

  it('a 4.4 producer whose coordinator is on the other broker: implicit adds go broker to broker, epochs bump, read_committed is exact', async () => {
    let txnId: string | null = null;
    let group: string | null = null;
    await waitFor('coordinator slots on both brokers', async () => {
      txnId = await keyCoordinatedBy(2, 1, 'txn-v2-2b-');
      group = await keyCoordinatedBy(1, 0, 'txn-v2-2b-group-');
      return txnId !== null && group !== null;
    }, { timeoutMs: 30_000, intervalMs: 500 });
    const kafka = new Kafka({ clientId: 'txn-v2-2b', brokers: [brokers[0]!.bootstrap], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS }] });
      await waitFor(`${TOPIC} led by both brokers`, async () => {
        const md = await admin.fetchTopicMetadata({ topics: [TOPIC] });
        return new Set(md.topics[0]!.partitions.map((p) => p.leader)).size === 2;
      }, { timeoutMs: 30_000, intervalMs: 300 });
    } finally {
      await admin.disconnect();
    }
    const before = await requestCount(http[1]!, 'AddPartitionsToTxn');
    await runAndCheckTxnV2(await classes, brokers[0]!.bootstrap, { topic: TOPIC, transactionalId: txnId!, group: group!, transactions: 6, partitions: PARTITIONS });
    // Broker 1 asked broker 2 (the coordinator) to add its partitions and the group's; the client sent none.
    expect(await requestCount(http[1]!, 'AddPartitionsToTxn')).toBeGreaterThan(before);
    expect(await anyRequests(http[0]!, 'AddPartitionsToTxn')).toBe(false);
    expect(await anyRequests(http[1]!, 'AddOffsetsToTxn')).toBe(false);
    expect(await requestCount(http[1]!, 'EndTxn')).toBe(6);
  }, 120_000);
});
