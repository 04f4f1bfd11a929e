// Issue 11, the partition side of transactions, on a real broker over the
// wire: transactional batches of two producers interleaved with plain
// records; WriteTxnMarkers commits one transaction and aborts the other.
// read_uncommitted sees every batch; read_committed stops at the last stable
// offset (LSO) while a transaction is open and, once both are decided, sees
// everything with the aborted producer's range in abortedTransactions.
// ListOffsets LATEST with read_committed answers the LSO, and the Java
// consumer (read_committed) drops the aborted records. A SIGKILL and
// restart keeps the LSO and the aborted index, and `kafka-transactions
// abort` (TransactionsCommand: DescribeProducers, then WriteTxnMarkers)
// aborts a hanging transaction, which moves the LSO.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { Fetch } from '../../../broker/src/protocol/messages/fetch.js';
import { ListOffsets } from '../../../broker/src/protocol/messages/list-offsets.js';
import { openTransaction, type TxnProducer } from '../../helpers/transactions.js';
import { Produce } from '../../../broker/src/protocol/messages/produce.js';
import { WriteTxnMarkers } from '../../../broker/src/protocol/messages/write-txn-markers.js';
import { ApiVersions } from '../../../broker/src/protocol/messages/api-versions.js';
import { DeleteRecords } from '../../../broker/src/protocol/messages/delete-records.js';
import { ErrorCode } from '../../../common/errors.js';
import { readBatchHeader } from '../../../common/record-batch/header.js';
import { decodeMarkerBatch } from '../../../broker/src/log/txn-marker.js';
import { WireClient } from '../../helpers/wire.js';
import { buildBatch } from '../../helpers/batches.js';
import { wireCreateTopic } from '../../helpers/faults.js';
import { assertOk, runJava } from '../../helpers/java.js';
import { sleep } from '../../helpers/procs.js';
import { useBroker } from '../broker-fixture.js';

const fx = useBroker();
const TOPIC = 'txn-part';
let c: WireClient;
let redis: Redis;

beforeAll(async () => {
  expect(await wireCreateTopic(fx.broker.port, TOPIC, 1)).toBe(0);
  c = await WireClient.connect(fx.broker.port);
  redis = new Redis(fx.redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
}, 60_000);

afterAll(async () => {
  c?.close();
  redis?.disconnect();
});

type Producer = TxnProducer;
const initProducer = (txnId: string): Promise<Producer> => openTransaction(c, txnId, [{ topic: TOPIC, partition: 0 }]);

/** Produce v9 of one batch; transactional batches carry the transactional id. */
async function produce(values: string[], p?: Producer, o: { transactional?: boolean; transactionalId?: string | null } = {}): Promise<{ errorCode: number; baseOffset: number }> {
  const transactional = o.transactional ?? p !== undefined;
  const batch = buildBatch(values.map((v) => ({ key: null, value: Buffer.from(v) })), p ? { producerId: p.id, producerEpoch: p.epoch, baseSequence: p.seq, transactional } : {});
  const r = await c.request(Produce, 9, {
    transactionalId: o.transactionalId !== undefined ? o.transactionalId : transactional ? p!.txnId : null, acks: -1, timeoutMs: 5000,
    topicData: [{ name: TOPIC, partitionData: [{ index: 0, records: batch }] }],
  });
  const pr = r.responses[0].partitionResponses[0];
  if (pr.errorCode === 0 && p) p.seq += values.length;
  return { errorCode: pr.errorCode, baseOffset: Number(pr.baseOffset) };
}

interface FetchedBatch { base: number; last: number; producerId: number; control: boolean; commit: boolean | null }
interface Fetched { errorCode: number; highWatermark: number; lastStableOffset: number; aborted: Array<{ producerId: number; firstOffset: number }> | null; batches: FetchedBatch[] }

async function fetch(offset: number, committed: boolean): Promise<Fetched> {
  const r = await c.request(Fetch, 11, {
    replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: committed ? 1 : 0, sessionId: 0, sessionEpoch: -1,
    topics: [{ topic: TOPIC, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: offset, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
    forgottenTopicsData: [], rackId: '',
  });
  const p = r.responses[0].partitions[0];
  const data: Buffer = p.records ? Buffer.from(p.records) : Buffer.alloc(0);
  const batches: FetchedBatch[] = [];
  for (let at = 0; at + 12 <= data.length;) {
    const size = data.readInt32BE(at + 8) + 12;
    const b = data.subarray(at, at + size);
    const h = readBatchHeader(b);
    batches.push({ base: h.baseOffset, last: h.baseOffset + h.lastOffsetDelta, producerId: h.producerId, control: h.isControl, commit: decodeMarkerBatch(b)?.commit ?? null });
    at += size;
  }
  const aborted = p.abortedTransactions === null ? null : p.abortedTransactions.map((a: { producerId: number; firstOffset: number }) => ({ producerId: Number(a.producerId), firstOffset: Number(a.firstOffset) }));
  return { errorCode: p.errorCode, highWatermark: Number(p.highWatermark), lastStableOffset: Number(p.lastStableOffset), aborted, batches };
}

async function latest(committed: boolean): Promise<number> {
  const r = await c.request(ListOffsets, 7, { replicaId: -1, isolationLevel: committed ? 1 : 0, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1 }] }] });
  expect(r.topics[0].partitions[0].errorCode).toBe(0);
  return Number(r.topics[0].partitions[0].offset);
}

async function marker(p: Producer, commit: boolean, o: { epoch?: number; coordinatorEpoch?: number; topic?: string } = {}): Promise<number> {
  const r = await c.request(WriteTxnMarkers, 1, {
    markers: [{ producerId: p.id, producerEpoch: o.epoch ?? p.epoch, transactionResult: commit, topics: [{ name: o.topic ?? TOPIC, partitionIndexes: [0] }], coordinatorEpoch: o.coordinatorEpoch ?? 0 }],
  });
  expect(Number(r.markers[0].producerId)).toBe(p.id);
  return r.markers[0].topics[0].partitions[0].errorCode;
}

/** Retries while the restarted broker has not taken the partition back yet. */
async function untilLed<T>(fn: () => Promise<T>, ok: (t: T) => boolean): Promise<T> {
  for (let i = 0; ; i++) {
    const t = await fn();
    if (ok(t) || i >= 100) return t;
    await sleep(200);
  }
}

const bases = (f: Fetched): number[] => f.batches.map((b) => b.base);

let a: Producer;
let b: Producer;

describe('transactions: the partition side', () => {
  it('advertises WriteTxnMarkers v0-1', async () => {
    const r = await c.request(ApiVersions, 3, { clientSoftwareName: 'wire', clientSoftwareVersion: '1' });
    expect(r.apiKeys.find((k: { apiKey: number }) => k.apiKey === 27)).toMatchObject({ minVersion: 0, maxVersion: 1 });
  });

  it('read_committed stops at the first offset of the oldest open transaction', async () => {
    a = await initProducer('tx-a');
    b = await initProducer('tx-b');
    expect(await produce(['plain-0'])).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect(await produce(['a-1', 'a-2'], a)).toMatchObject({ errorCode: 0, baseOffset: 1 });
    expect(await produce(['plain-3'])).toMatchObject({ errorCode: 0, baseOffset: 3 });
    expect(await produce(['b-4', 'b-5'], b)).toMatchObject({ errorCode: 0, baseOffset: 4 });
    expect(await produce(['a-6'], a)).toMatchObject({ errorCode: 0, baseOffset: 6 });
    expect(await produce(['plain-7'])).toMatchObject({ errorCode: 0, baseOffset: 7 });

    const all = await fetch(0, false);
    expect(bases(all)).toEqual([0, 1, 3, 4, 6, 7]);
    expect(all).toMatchObject({ errorCode: 0, highWatermark: 8, lastStableOffset: 1, aborted: null });
    const committed = await fetch(0, true);
    expect(bases(committed)).toEqual([0]);
    expect(committed).toMatchObject({ errorCode: 0, highWatermark: 8, lastStableOffset: 1 });
    expect((await fetch(1, true)).batches).toEqual([]);
    expect(await latest(true)).toBe(1);
    expect(await latest(false)).toBe(8);
    expect(await redis.hgetall(`rn:p:{${TOPIC}/0}:txns`)).toEqual({ [a.id]: '1', [b.id]: '4' });
  });

  it('Kafka\'s checks: a plain batch inside an open transaction, stale epochs, a missing transactional id', async () => {
    expect((await produce(['a-plain'], a, { transactional: false })).errorCode).toBe(ErrorCode.INVALID_TXN_STATE);
    expect((await produce(['a-nid'], a, { transactionalId: null })).errorCode).toBe(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    expect((await produce(['a-old'], { ...a, epoch: a.epoch - 1 })).errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(await marker(a, false, { epoch: a.epoch - 1 })).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(await marker(a, true, { topic: 'no-such-topic' })).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect(await latest(true)).toBe(1); // nothing of this changed the log
  });

  it('commit one transaction, abort the other: read_committed sees everything with the aborted range listed', async () => {
    expect(await marker(a, true)).toBe(0); // commit marker at 8
    expect((await fetch(0, false)).lastStableOffset).toBe(4); // b is still open
    expect(bases(await fetch(0, true))).toEqual([0, 1, 3]);
    expect(await marker(b, false)).toBe(0); // abort marker at 9

    const committed = await fetch(0, true);
    expect(committed).toMatchObject({ errorCode: 0, highWatermark: 10, lastStableOffset: 10, aborted: [{ producerId: b.id, firstOffset: 4 }] });
    expect(bases(committed)).toEqual([0, 1, 3, 4, 6, 7, 8, 9]);
    expect(committed.batches.filter((x) => x.control)).toEqual([
      { base: 8, last: 8, producerId: a.id, control: true, commit: true },
      { base: 9, last: 9, producerId: b.id, control: true, commit: false },
    ]);
    // a fetch past the aborted range's start still lists it; one past its end does not
    expect((await fetch(6, true)).aborted).toEqual([{ producerId: b.id, firstOffset: 4 }]);
    expect((await fetch(9, true)).aborted).toEqual([{ producerId: b.id, firstOffset: 4 }]);
    expect((await fetch(10, true)).batches).toEqual([]);
    expect(await latest(true)).toBe(10);
    expect(await redis.zrange(`rn:p:{${TOPIC}/0}:aborted`, 0, -1, 'WITHSCORES')).toEqual([`${b.id}:4:9`, '9']);
    expect(await redis.hlen(`rn:p:{${TOPIC}/0}:txns`)).toBe(0);
    // a second marker for a producer without an open transaction is written and changes nothing
    expect(await marker(a, true)).toBe(0);
    expect(await latest(true)).toBe(11);
    expect(await redis.zcard(`rn:p:{${TOPIC}/0}:aborted`)).toBe(1);
  });

  it('the Java consumer with isolation.level=read_committed drops the aborted records; read_uncommitted keeps them', async () => {
    const consume = async (level: string): Promise<string[]> => {
      const r = assertOk(`console consumer ${level}`, await runJava('org.apache.kafka.tools.consumer.ConsoleConsumer', [
        '--bootstrap-server', fx.broker.bootstrap, '--topic', TOPIC, '--partition', '0', '--offset', 'earliest',
        '--isolation-level', level, '--max-messages', '8', '--timeout-ms', '5000',
      ], { timeoutMs: 60_000 }));
      return r.stdout.split('\n').map((l) => l.trim()).filter((l) => l.length > 0);
    };
    expect(await consume('read_committed')).toEqual(['plain-0', 'a-1', 'a-2', 'plain-3', 'a-6', 'plain-7']);
    expect(await consume('read_uncommitted')).toEqual(['plain-0', 'a-1', 'a-2', 'plain-3', 'b-4', 'b-5', 'a-6', 'plain-7']);
  }, 120_000);

  it('a SIGKILL and restart keeps the LSO of an open transaction and the aborted index', async () => {
    expect(await produce(['a-12'], a)).toMatchObject({ errorCode: 0, baseOffset: 11 }); // a's next transaction opens at 11
    expect(await produce(['plain-12'])).toMatchObject({ errorCode: 0, baseOffset: 12 });
    expect(await latest(true)).toBe(11);
    c.close();
    await fx.broker.kill();
    await fx.broker.restart();
    c = await WireClient.connect(fx.broker.port);
    const after = await untilLed(() => fetch(0, true), (f) => f.errorCode === 0);
    expect(after).toMatchObject({ errorCode: 0, highWatermark: 13, lastStableOffset: 11, aborted: [{ producerId: b.id, firstOffset: 4 }] });
    expect(bases(after)).toEqual([0, 1, 3, 4, 6, 7, 8, 9, 10]);
    expect(await latest(true)).toBe(11);
    // the open transaction's state survived: a plain batch of a is still refused
    expect((await produce(['a-plain'], a, { transactional: false })).errorCode).toBe(ErrorCode.INVALID_TXN_STATE);
  }, 90_000);

  it('kafka-transactions abort of the hanging transaction moves the LSO', async () => {
    const out = assertOk('abort', await runJava('org.apache.kafka.tools.TransactionsCommand', [
      '--bootstrap-server', fx.broker.bootstrap, 'abort', '--topic', TOPIC, '--partition', '0', '--start-offset', '11',
    ], { timeoutMs: 90_000 }));
    expect(out.code).toBe(0);
    const f = await fetch(0, true);
    expect(f).toMatchObject({ errorCode: 0, highWatermark: 14, lastStableOffset: 14 });
    expect(f.aborted).toEqual([{ producerId: b.id, firstOffset: 4 }, { producerId: a.id, firstOffset: 11 }]);
    expect(f.batches[f.batches.length - 1]).toMatchObject({ base: 13, producerId: a.id, control: true, commit: false });
    expect(await latest(true)).toBe(14);
  }, 120_000);

  it('DeleteRecords past an aborted range drops it from the index', async () => {
    const r = await c.request(DeleteRecords, 2, { topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, offset: 10 }] }], timeoutMs: 5000 });
    expect(r.topics[0].partitions[0]).toMatchObject({ errorCode: 0, lowWatermark: 10 });
    expect(await redis.zrange(`rn:p:{${TOPIC}/0}:aborted`, 0, -1)).toEqual([`${a.id}:11:13`]);
    expect((await fetch(10, true)).aborted).toEqual([{ producerId: a.id, firstOffset: 11 }]);
  });
});
