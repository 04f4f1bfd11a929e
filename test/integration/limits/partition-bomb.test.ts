// A partition count nobody can serve (2147483647) must be refused with an
// error response, never crash the broker: asked for through CreateTopics /
// CreatePartitions (wire and Kafka's own kafka-topics), or found in a topic
// record already stored in Redis (every broker that loads it, restarts
// included). Kafka 4.x answers such requests with POLICY_VIOLATION
// ("Excessively large number of partitions per request").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { CreateTopics } from '../../../broker/src/protocol/messages/create-topics.js';
import { CreatePartitions } from '../../../broker/src/protocol/messages/create-partitions.js';
import { Produce } from '../../../broker/src/protocol/messages/produce.js';
import { ErrorCode } from '../../../common/errors.js';
import { kafkaTopics } from '../../helpers/java.js';
import { sleep } from '../../helpers/procs.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { startTarget, targetKindFromEnv, type Target } from '../../helpers/target.js';
import { buildBatch } from '../../helpers/batches.js';
import { WireClient } from '../../helpers/wire.js';
import { readTopic } from '../support.js';
import { produceValues, topicMetadata } from './support.js';

const BOMB = 2147483647;
const portOf = (bootstrap: string): number => Number(bootstrap.split(':').pop());

async function createTopics(c: WireClient, topics: Array<{ name: string; numPartitions: number }>): Promise<Array<Record<string, any>>> {
  const r = await c.request(CreateTopics, 7, {
    topics: topics.map((t) => ({ name: t.name, numPartitions: t.numPartitions, replicationFactor: 1, assignments: [], configs: [] })),
    timeoutMs: 30_000, validateOnly: false,
  }, 60_000);
  return r.topics;
}

/** Produces and reads back one record through kcat: the broker serves. */
async function serves(bootstrap: string, c: WireClient, topic: string): Promise<void> {
  expect(await produceValues(c, topic, 1, 100)).toEqual([0]);
  const got = await readTopic(bootstrap, topic);
  expect(got.length).toBe(1);
}

describe('partition bomb: requests', () => {
  let target: Target;
  beforeAll(async () => { target = await startTarget(); });
  afterAll(async () => { await target?.stop(); });

  it('CreateTopics with 2147483647 partitions gets POLICY_VIOLATION; the broker keeps serving', async () => {
    const c = await WireClient.connect(portOf(target.bootstrap));
    const [bomb] = await createTopics(c, [{ name: 'bomb', numPartitions: BOMB }]);
    expect(bomb!.name).toBe('bomb');
    expect(bomb!.errorCode).toBe(ErrorCode.POLICY_VIOLATION);
    expect(c.closed).toBe(false);

    // Kafka's own tool sees the same refusal.
    const java = await kafkaTopics(target.bootstrap, ['--create', '--topic', 'bomb-java', '--partitions', String(BOMB), '--replication-factor', '1']);
    expect(java.code).not.toBe(0);
    expect(`${java.stdout}\n${java.stderr}`).toMatch(/PolicyViolationException/);

    const [ok] = await createTopics(c, [{ name: 'after-bomb', numPartitions: 2 }]);
    expect(ok!.errorCode).toBe(ErrorCode.NONE);
    expect((await topicMetadata(c, 'bomb')).errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    await serves(target.bootstrap, c, 'after-bomb');
    if (target.runnel) expect(target.runnel.proc().running()).toBe(true);
    c.close();
  });

  it('CreatePartitions to 2147483647 gets POLICY_VIOLATION; the topic keeps its partitions', async () => {
    const c = await WireClient.connect(portOf(target.bootstrap));
    const [ok] = await createTopics(c, [{ name: 'grow', numPartitions: 1 }]);
    expect(ok!.errorCode).toBe(ErrorCode.NONE);
    const r = await c.request(CreatePartitions, 3, { topics: [{ name: 'grow', count: BOMB, assignments: null }], timeoutMs: 30_000, validateOnly: false }, 60_000);
    expect(r.results[0].errorCode).toBe(ErrorCode.POLICY_VIOLATION);
    expect((await topicMetadata(c, 'grow')).partitions.length).toBe(1);
    await serves(target.bootstrap, c, 'grow');
    c.close();
  });
});

describe.skipIf(targetKindFromEnv() === 'kafka')('partition bomb: Runnel limits and stored records', () => {
  let redis: RedisServer;
  let broker: RunnelBroker | null = null;
  beforeAll(async () => { redis = await startRedis(); });
  afterAll(async () => {
    await broker?.stop();
    await redis?.stop();
  });

  it('topic.max.partitions and cluster.max.partitions refuse CreateTopics, CreatePartitions and auto-creation', async () => {
    broker = await startRunnel({
      redisUrl: redis.url,
      args: ['--set', 'topic.max.partitions=8', '--set', 'cluster.max.partitions=12', '--set', 'num.partitions=9', '--set', 'key.prefix=lim'],
    });
    const c = await WireClient.connect(broker.port);
    const [tooBig, first] = await createTopics(c, [{ name: 'nine', numPartitions: 9 }, { name: 'eight', numPartitions: 8 }]);
    expect(tooBig!.errorCode).toBe(ErrorCode.POLICY_VIOLATION);
    expect(tooBig!.errorMessage).toMatch(/topic\.max\.partitions=8/);
    expect(first!.errorCode).toBe(ErrorCode.NONE);
    const [overCluster, fits] = await createTopics(c, [{ name: 'five', numPartitions: 5 }, { name: 'four', numPartitions: 4 }]);
    expect(overCluster!.errorCode).toBe(ErrorCode.POLICY_VIOLATION);
    expect(overCluster!.errorMessage).toMatch(/cluster\.max\.partitions=12/);
    expect(fits!.errorCode).toBe(ErrorCode.NONE);
    const grow = await c.request(CreatePartitions, 3, { topics: [{ name: 'four', count: 5, assignments: null }], timeoutMs: 30_000, validateOnly: false });
    expect(grow.results[0].errorCode).toBe(ErrorCode.POLICY_VIOLATION);
    // num.partitions=9 is past topic.max.partitions: auto-creation creates nothing and says so.
    const auto = await topicMetadata(c, 'auto-nine', true);
    expect(auto.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect((await topicMetadata(c, 'four')).partitions.length).toBe(4);
    c.close();
    await broker.stop();
    broker = null;
  });

  it('a stored topic record with 2147483647 partitions: brokers start and restart, log it, and serve the other topics', async () => {
    // The record as another (or a buggy) broker could have written it.
    expect(await redis.command('SET rn:layout 2')).toMatch(/OK/);
    const id = randomUUID();
    const record = JSON.stringify({ id, partitions: BOMB, configs: {}, created: Date.now() });
    expect(await redis.command(`HSET rn:topics stored-bomb '${record}'`)).toMatch(/:1/);
    expect(await redis.command(`HSET rn:topic-ids ${id} stored-bomb`)).toMatch(/:1/);

    broker = await startRunnel({ redisUrl: redis.url, args: ['--set', 'leadership.tick.ms=100'] });
    const c = await WireClient.connect(broker.port);
    const [ok] = await createTopics(c, [{ name: 'healthy', numPartitions: 2 }]);
    expect(ok!.errorCode).toBe(ErrorCode.NONE);
    await serves(broker.bootstrap, c, 'healthy');

    // The bad topic is not served: Metadata and Produce answer with an error.
    expect((await topicMetadata(c, 'stored-bomb')).errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const p = await c.request(Produce, 9, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: 'stored-bomb', partitionData: [{ index: 0, records: buildBatch([{ key: null, value: Buffer.from('x') }]) }] }] });
    expect(p.responses[0].partitionResponses[0].errorCode).not.toBe(ErrorCode.NONE);
    // Several leadership ticks later the broker is still alive and has said why.
    await sleep(1000);
    expect(broker.proc().running()).toBe(true);
    // one log line (JSON: the message and the topic field, in any order)
    expect(broker.proc().tail(200_000).split('\n').some((l) => l.includes('unusable partition count') && l.includes('stored-bomb'))).toBe(true);
    c.close();

    // A crash and restart loads the same record again.
    await broker.kill();
    await broker.restart();
    const c2 = await WireClient.connect(broker.port);
    expect((await topicMetadata(c2, 'healthy')).partitions.length).toBe(2);
    expect(await produceValues(c2, 'healthy', 1, 100)).toEqual([0]);
    expect((await readTopic(broker.bootstrap, 'healthy')).length).toBe(2);
    c2.close();
  });
});
