// acks=all is honest: with min.insync.replicas=2 it needs one Redis replica to
// confirm the write (WAIT), and says NOT_ENOUGH_REPLICAS when there is none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Produce } from '../../broker/src/protocol/messages/produce.js';
import { CreateTopics } from '../../broker/src/protocol/messages/create-topics.js';
import { ErrorCode } from '../../common/errors.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../helpers/runnel.js';
import { waitFor } from '../helpers/procs.js';
import { WireClient } from '../helpers/wire.js';
import { buildBatch } from '../helpers/batches.js';

let primary: RedisServer;
let replica: RedisServer | null = null;
let broker: RunnelBroker;

beforeAll(async () => {
  primary = await startRedis();
  broker = await startRunnel({ redisUrl: primary.url });
});

afterAll(async () => {
  await broker?.stop();
  await replica?.stop();
  await primary?.stop();
});

const produce = (c: WireClient, topic: string, acks: number) => c.request(Produce, 9, {
  transactionalId: null, acks, timeoutMs: 3000,
  topicData: [{ name: topic, partitionData: [{ index: 0, records: buildBatch([{ key: null, value: Buffer.from('v') }]) }] }],
}).then((r) => r.responses[0].partitionResponses[0]);

describe('acks', () => {
  it('acks=all with min.insync.replicas=2 fails without a replica and succeeds with one', async () => {
    const c = await WireClient.connect(broker.port);
    const created = await c.request(CreateTopics, 7, { topics: [{ name: 'isr2', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [{ name: 'min.insync.replicas', value: '2' }] }], timeoutMs: 5000 });
    expect(created.topics[0].errorCode).toBe(0);

    expect((await produce(c, 'isr2', -1)).errorCode).toBe(ErrorCode.NOT_ENOUGH_REPLICAS);
    // acks=1 does not wait for replicas
    expect((await produce(c, 'isr2', 1))).toMatchObject({ errorCode: 0, baseOffset: 0 });

    replica = await startRedis();
    await replica.command(`REPLICAOF 127.0.0.1 ${primary.port}`);
    await waitFor('replica in sync', async () => /connected_slaves:1/.test(await primary.command('INFO replication')) && /master_link_status:up/.test(await replica!.command('INFO replication')), { timeoutMs: 20_000 });

    expect(await produce(c, 'isr2', -1)).toMatchObject({ errorCode: 0, baseOffset: 1 });
    const len = await replica.command('XLEN rn:p:{isr2/0}:log');
    expect(len.trim()).toBe(':2');

    // acks=0 gets no response at all; the next request on the connection is answered normally
    await c.send(WireClient.frame(Produce, 9, { transactionalId: null, acks: 0, timeoutMs: 3000, topicData: [{ name: 'isr2', partitionData: [{ index: 0, records: buildBatch([{ key: null, value: Buffer.from('fire') }]) }] }] }, 900));
    expect(await produce(c, 'isr2', 1)).toMatchObject({ errorCode: 0, baseOffset: 3 });
    c.close();
  });
});
