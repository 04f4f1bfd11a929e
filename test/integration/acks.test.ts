// acks=all is honest: with min.insync.replicas=2 it needs one Redis replica to
// confirm the write (WAIT), and says NOT_ENOUGH_REPLICAS when there is none.
// A retried idempotent batch that was stored before its append connection
// dropped is acknowledged only once the replica confirms it too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Produce } from '../../broker/src/protocol/messages/produce.js';
import { CreateTopics } from '../../broker/src/protocol/messages/create-topics.js';
import { InitProducerId } from '../../broker/src/protocol/messages/init-producer-id.js';
import { ErrorCode } from '../../common/errors.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../helpers/runnel.js';
import { sleep, waitFor } from '../helpers/procs.js';
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

const produce = (c: WireClient, topic: string, acks: number, records = buildBatch([{ key: null, value: Buffer.from('v') }])) => c.request(Produce, 9, {
  transactionalId: null, acks, timeoutMs: 3000,
  topicData: [{ name: topic, partitionData: [{ index: 0, records }] }],
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

  // The batch is stored and its WAIT is cut off with its connection (a
  // dropped reply), while the replica lags (SIGSTOP). The producer's retry is
  // a duplicate of the stored batch; the WAIT that follows runs on a new
  // connection, which by itself has written nothing, so Redis would confirm it
  // at once. The broker writes on that connection first, and the retry is
  // acknowledged only when the replica really holds the batch.
  it('a retry answered as a duplicate after the append connection dropped waits for the replica', async () => {
    if (!replica) throw new Error('needs the replica set up by the first test');
    const c = await WireClient.connect(broker.port);
    const created = await c.request(CreateTopics, 7, { topics: [{ name: 'dupwait', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [{ name: 'min.insync.replicas', value: '2' }] }], timeoutMs: 5000 });
    expect(created.topics[0].errorCode).toBe(0);
    const init = await c.request(InitProducerId, 4, { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 });
    expect(init.errorCode).toBe(0);
    const batch = (seq: number): Buffer => buildBatch([{ key: null, value: Buffer.from(`dup-${seq}`) }], { producerId: Number(init.producerId), producerEpoch: init.producerEpoch, baseSequence: seq });
    expect(await produce(c, 'dupwait', -1, batch(0))).toMatchObject({ errorCode: 0, baseOffset: 0 });

    const replicaPid = replica.proc().pid;
    process.kill(replicaPid, 'SIGSTOP');
    try {
      const first = produce(c, 'dupwait', -1, batch(1));
      // The append connection blocked in WAIT: drop it, as a network fault would. Blocked
      // means flags=b: an idle connection whose last command was batch 0's WAIT also shows cmd=wait.
      let waiting = '';
      await waitFor('append connection blocked in WAIT', async () => {
        waiting = (await primary.command('CLIENT LIST')).split('\n').find((l) => /\bflags=\w*b\w*\b/.test(l) && /\bcmd=wait\b/.test(l)) ?? '';
        return waiting !== '';
      }, { timeoutMs: 2_500, intervalMs: 20 });
      const id = /\bid=(\d+)/.exec(waiting)![1];
      expect(await primary.command(`CLIENT KILL ID ${id}`)).toMatch(/^:1/);
      expect((await first).errorCode).toBe(ErrorCode.KAFKA_STORAGE_ERROR);
      expect((await primary.command('XLEN rn:p:{dupwait/0}:log')).trim()).toBe(':2');

      // The retry finds the batch stored (a duplicate); the replica still has not got it.
      const retried = await produce(c, 'dupwait', -1, batch(1));
      expect(retried.errorCode).toBe(ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
    } finally {
      process.kill(replicaPid, 'SIGCONT');
    }
    await sleep(100);
    expect(await produce(c, 'dupwait', -1, batch(1))).toMatchObject({ errorCode: 0, baseOffset: 1 });
    expect((await replica.command('XLEN rn:p:{dupwait/0}:log')).trim()).toBe(':2');
    c.close();
  });
});
