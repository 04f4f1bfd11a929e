// Issue 11: only committed data reaches the lake. A real broker takes
// transactional batches of two producers between plain records; one
// transaction commits, one aborts, a third stays open. The archiver (with its
// default hooks, which read the broker's `:txns` and `:aborted` indexes)
// archives up to the last stable offset only, never the aborted records, and
// continues once the open transaction commits.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTransaction, type TxnProducer } from '../../helpers/transactions.js';
import { Produce } from '../../../broker/src/protocol/messages/produce.js';
import { WriteTxnMarkers } from '../../../broker/src/protocol/messages/write-txn-markers.js';
import { WireClient } from '../../helpers/wire.js';
import { buildBatch } from '../../helpers/batches.js';
import { wireCreateTopic } from '../../helpers/faults.js';
import { useBroker } from '../../integration/broker-fixture.js';
import { archiverEnv, ensureBuilt, readDelta, sleep, tmpDir, waitFor, builtArchiver } from './helpers.js';
import { Redis } from 'ioredis';

const fx = useBroker();
const TOPIC = 'lake-txn';
let c: WireClient;
let redis: Redis;
const dirs: string[] = [];

beforeAll(async () => {
  await ensureBuilt();
  expect(await wireCreateTopic(fx.broker.port, TOPIC, 1)).toBe(0);
  c = await WireClient.connect(fx.broker.port);
  redis = new Redis(fx.redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
}, 120_000);

afterAll(async () => {
  c?.close();
  redis?.disconnect();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

type Producer = TxnProducer;
let txns = 0;
const initProducer = (): Promise<Producer> => openTransaction(c, `tx-archiver-${txns++}`, [{ topic: TOPIC, partition: 0 }]);

async function produce(value: string, p?: Producer): Promise<number> {
  const batch = buildBatch([{ key: null, value: Buffer.from(value) }], p ? { producerId: p.id, producerEpoch: p.epoch, baseSequence: p.seq, transactional: true } : {});
  const r = await c.request(Produce, 9, { transactionalId: p ? p.txnId : null, acks: -1, timeoutMs: 5000, topicData: [{ name: TOPIC, partitionData: [{ index: 0, records: batch }] }] });
  const pr = r.responses[0].partitionResponses[0];
  expect(pr.errorCode).toBe(0);
  if (p) p.seq++;
  return Number(pr.baseOffset);
}

async function marker(p: Producer, commit: boolean): Promise<void> {
  const r = await c.request(WriteTxnMarkers, 1, { markers: [{ producerId: p.id, producerEpoch: p.epoch, transactionResult: commit, topics: [{ name: TOPIC, partitionIndexes: [0] }], coordinatorEpoch: 0 }] });
  expect(r.markers[0].topics[0].partitions[0].errorCode).toBe(0);
}

const archived = async (): Promise<number> => Number((await redis.hget(`rn:p:{${TOPIC}/0}:meta`, 'archived')) ?? -1);

async function lakeValues(dir: string): Promise<Array<[number, string]>> {
  const read = await readDelta(`file://${dir}/${TOPIC}`, { appIds: [`runnel/${TOPIC}/0`] });
  return read.rows.map((r) => [r[1], Buffer.from(r[5] ?? '', 'base64').toString()] as [number, string]).sort((x, y) => x[0] - y[0]);
}

describe('archiver and transactions', () => {
  it('archives only committed records, up to the last stable offset', async () => {
    const a = await initProducer();
    const b = await initProducer();
    expect(await produce('p0')).toBe(0);
    expect(await produce('a1', a)).toBe(1);
    expect(await produce('b2', b)).toBe(2);
    expect(await produce('p3')).toBe(3);
    await marker(a, true); // 4
    await marker(b, false); // 5: b2 is aborted
    expect(await produce('p6')).toBe(6);
    expect(await produce('a7', a)).toBe(7); // a's next transaction stays open: LSO 7
    expect(await produce('p8')).toBe(8);

    const dir = tmpDir('lake-txn');
    dirs.push(dir);
    const main = await builtArchiver();
    const cfg = main.loadConfig(archiverEnv({ redisUrl: fx.redis.url, lake: `file://${dir}`, extra: { RUNNEL_ARCHIVER_TOPICS: TOPIC, RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '100', RUNNEL_LOG_LEVEL: 'warn' } }));
    const h = await main.runArchiver(cfg);
    try {
      await waitFor(async () => (await archived()) === 6, 30_000, 'archived up to the LSO');
      await sleep(1000);
      expect(await archived()).toBe(6); // never past the open transaction
      expect(await lakeValues(dir)).toEqual([[0, 'p0'], [1, 'a1'], [3, 'p3'], [6, 'p6']]);

      await marker(a, true); // 9: the LSO moves to the log end
      await waitFor(async () => (await archived()) === 9, 30_000, 'archived after the commit');
    } finally {
      await h.stop();
    }
    expect(await lakeValues(dir)).toEqual([[0, 'p0'], [1, 'a1'], [3, 'p3'], [6, 'p6'], [7, 'a7'], [8, 'p8']]);
  }, 180_000);
});
