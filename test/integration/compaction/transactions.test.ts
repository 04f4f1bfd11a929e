// Compaction and transactions (Kafka's cleaner): records of an aborted
// transaction never supersede a committed value of their key, and nothing at
// or past the last stable offset is compacted while a transaction is open.
// Markers (control batches) survive the passes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTransaction } from '../../helpers/transactions.js';
import { WriteTxnMarkers } from '../../../broker/src/protocol/messages/write-txn-markers.js';
import { Produce } from '../../../broker/src/protocol/messages/produce.js';
import { buildBatch } from '../../helpers/batches.js';
import { waitFor } from '../../helpers/procs.js';
import type { WireClient } from '../../helpers/wire.js';
import { useBroker } from '../broker-fixture.js';
import { FAST_COMPACTION, RUNNEL_CLEANER_ENV, connect, createTopic, produce, readAll, rec, type ReadRecord } from './support.js';

const fx = useBroker({ env: RUNNEL_CLEANER_ENV });
let c: WireClient;

beforeAll(async () => {
  c = await connect(fx.broker.bootstrap);
}, 60_000);

afterAll(() => c?.close());

const TOPIC = 'compact-txn';

let txns = 0;
const txnIds = new Map<number, string>();
async function producerId(): Promise<number> {
  const p = await openTransaction(c, `tx-compact-${txns++}`, [{ topic: TOPIC, partition: 0 }]);
  txnIds.set(p.id, p.txnId);
  return p.id;
}

async function txnProduce(pid: number, key: string, value: string): Promise<number> {
  const r = await c.request(Produce, 9, {
    transactionalId: txnIds.get(pid)!, acks: -1, timeoutMs: 5000,
    topicData: [{ name: TOPIC, partitionData: [{ index: 0, records: buildBatch([rec(key, value)], { producerId: pid, producerEpoch: 0, baseSequence: 0, transactional: true }) }] }],
  });
  expect(r.responses[0].partitionResponses[0].errorCode).toBe(0);
  return Number(r.responses[0].partitionResponses[0].baseOffset);
}

async function marker(pid: number, commit: boolean): Promise<void> {
  const r = await c.request(WriteTxnMarkers, 1, { markers: [{ producerId: pid, producerEpoch: 0, transactionResult: commit, topics: [{ name: TOPIC, partitionIndexes: [0] }], coordinatorEpoch: 0 }] });
  expect(r.markers[0].topics[0].partitions[0].errorCode).toBe(0);
}

async function plain(key: string, value: string): Promise<number> {
  const r = await produce(c, TOPIC, [rec(key, value)]);
  expect(r.errorCode).toBe(0);
  return r.baseOffset;
}

async function converge(want: ReadRecord[]): Promise<ReadRecord[]> {
  let got: ReadRecord[] = [];
  await waitFor('compaction to converge', async () => {
    got = await readAll(c, TOPIC);
    return JSON.stringify(got) === JSON.stringify(want);
  }, { timeoutMs: 30_000, intervalMs: 300 }).catch(() => undefined);
  return got;
}

describe('compaction with transactions', () => {
  it('aborted records never supersede committed ones; open transactions hold the cleaner back', async () => {
    await createTopic(c, TOPIC, FAST_COMPACTION);
    const p = await producerId();
    const q = await producerId();
    expect(await plain('m', 'm1')).toBe(0);
    expect(await plain('k', 'v1')).toBe(1);
    expect(await plain('j', 'j1')).toBe(2);
    expect(await plain('m', 'm2')).toBe(3);
    expect(await txnProduce(p, 'k', 'aborted')).toBe(4);
    await marker(p, false); // 5
    expect(await txnProduce(q, 'j', 'open')).toBe(6); // q stays open: LSO 6
    await new Promise((r) => setTimeout(r, 400)); // the segment ages past segment.ms
    expect(await plain('z', 'z1')).toBe(7);

    const first: ReadRecord[] = [
      { offset: 1, key: 'k', value: 'v1' }, // the aborted k at 4 does not count
      { offset: 2, key: 'j', value: 'j1' }, // q's j at 6 is undecided: not compacted against
      { offset: 3, key: 'm', value: 'm2' },
      { offset: 4, key: 'k', value: 'aborted' }, // kept (read_committed consumers skip it through the aborted index)
      { offset: 6, key: 'j', value: 'open' },
      { offset: 7, key: 'z', value: 'z1' },
    ];
    expect(await converge(first)).toEqual(first);

    // q commits: its j supersedes j1 in a later pass
    await marker(q, true); // 8
    await new Promise((r) => setTimeout(r, 400));
    expect(await plain('y', 'y1')).toBe(9);
    const second = first.filter((r) => r.offset !== 2).concat([{ offset: 9, key: 'y', value: 'y1' }]);
    expect(await converge(second)).toEqual(second);
  }, 120_000);
});
