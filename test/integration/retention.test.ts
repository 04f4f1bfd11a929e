// retention.ms / retention.bytes move the log start offset and trim whole
// batches with XTRIM MINID; an archiver watermark is never trimmed past.
import { describe, expect, it } from 'vitest';
import { Produce } from '../../broker/src/protocol/messages/produce.js';
import { CreateTopics } from '../../broker/src/protocol/messages/create-topics.js';
import { ListOffsets } from '../../broker/src/protocol/messages/list-offsets.js';
import { DeleteRecords } from '../../broker/src/protocol/messages/delete-records.js';
import { WireClient } from '../helpers/wire.js';
import { buildBatch } from '../helpers/batches.js';
import { waitFor } from '../helpers/procs.js';
import { useBroker } from './broker-fixture.js';

const fx = useBroker({ args: ['--set', 'log.retention.check.interval.ms=300'] });

async function setup(c: WireClient, topic: string, configs: Array<{ name: string; value: string }>, batches: number, ts: (i: number) => number): Promise<void> {
  const res = await c.request(CreateTopics, 7, { topics: [{ name: topic, numPartitions: 1, replicationFactor: 1, assignments: [], configs }], timeoutMs: 5000 });
  expect(res.topics[0].errorCode).toBe(0);
  for (let i = 0; i < batches; i++) {
    const records = buildBatch([{ key: null, value: Buffer.alloc(1000, i), timestamp: ts(i) }, { key: null, value: Buffer.alloc(1000, i), timestamp: ts(i) }]);
    const r = await c.request(Produce, 9, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] });
    expect(r.responses[0].partitionResponses[0].errorCode, JSON.stringify(r.responses[0].partitionResponses[0])).toBe(0);
  }
}

async function earliest(c: WireClient, topic: string): Promise<number> {
  const r = await c.request(ListOffsets, 7, { replicaId: -1, isolationLevel: 0, topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -2 }] }] });
  return r.topics[0].partitions[0].offset;
}

const xlen = async (topic: string): Promise<number> => Number((await fx.redis.command(`XLEN rn:p:{${topic}/0}:log`)).trim().slice(1));

describe('retention', () => {
  it('retention.ms trims expired batches but keeps the newest one', async () => {
    const c = await WireClient.connect(fx.broker.port);
    const old = Date.now() - 3_600_000;
    await setup(c, 'ret-ms', [{ name: 'retention.ms', value: '60000' }], 5, (i) => (i < 3 ? old : Date.now()));
    await waitFor('trim', async () => (await earliest(c, 'ret-ms')) === 6, { timeoutMs: 10_000 });
    // The log start offset moves first, the XTRIM follows (as Kafka deletes segments after moving it).
    await waitFor('XTRIM', async () => (await xlen('ret-ms')) <= 2, { timeoutMs: 10_000 });
    expect(await xlen('ret-ms')).toBe(2);
    c.close();
  });

  it('retention.bytes trims the oldest batches', async () => {
    const c = await WireClient.connect(fx.broker.port);
    await setup(c, 'ret-bytes', [{ name: 'retention.bytes', value: '6000' }], 10, () => Date.now());
    await waitFor('trim', async () => (await earliest(c, 'ret-bytes')) > 0, { timeoutMs: 10_000 });
    await waitFor('XTRIM', async () => (await xlen('ret-bytes')) < 10, { timeoutMs: 10_000 });
    expect(await xlen('ret-bytes')).toBeLessThan(10);
    expect(await xlen('ret-bytes')).toBeGreaterThan(0);
    c.close();
  });

  it('never trims past the archiver watermark', async () => {
    const c = await WireClient.connect(fx.broker.port);
    const old = Date.now() - 3_600_000;
    // archived up to offset 3 (batches 0-1 fully archived)
    await fx.redis.command('HSET rn:p:{ret-arch/0}:meta archived 3');
    await setup(c, 'ret-arch', [{ name: 'retention.ms', value: '1000' }], 6, () => old);
    await waitFor('trim to watermark', async () => (await earliest(c, 'ret-arch')) === 4, { timeoutMs: 10_000 });
    await new Promise((r) => setTimeout(r, 1000));
    expect(await earliest(c, 'ret-arch')).toBe(4);
    c.close();
  });

  it('DeleteRecords moves the low watermark and ListOffsets follows', async () => {
    const c = await WireClient.connect(fx.broker.port);
    await setup(c, 'delrec', [], 4, () => Date.now());
    const r = await c.request(DeleteRecords, 2, { topics: [{ name: 'delrec', partitions: [{ partitionIndex: 0, offset: 3 }] }], timeoutMs: 5000 });
    expect(r.topics[0].partitions[0]).toMatchObject({ errorCode: 0, lowWatermark: 3 });
    expect(await earliest(c, 'delrec')).toBe(3);
    const beyond = await c.request(DeleteRecords, 2, { topics: [{ name: 'delrec', partitions: [{ partitionIndex: 0, offset: 100 }] }], timeoutMs: 5000 });
    expect(beyond.topics[0].partitions[0].errorCode).toBe(1);
    c.close();
  });
});
