// Handlers of the partition side of transactions, on the in-memory store:
// WriteTxnMarkers (per-partition results, __consumer_offsets completion) and
// the produce handler's KIP-890 verification of a transaction's first batch.
import { describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../../broker/src/config/config.js';
import { LogManager } from '../../../broker/src/log/log-manager.js';
import { produceHandler } from '../../../broker/src/handlers/produce.js';
import { writeTxnMarkersHandler } from '../../../broker/src/handlers/write-txn-markers.js';
import type { BrokerServices, RequestContext } from '../../../broker/src/handlers/support/types.js';
import type { TransactionServices } from '../../../broker/src/transactions/types.js';
import type { TxnMarker } from '../../../broker/src/log/txn-marker.js';
import type { TopicPartition } from '../../../broker/src/storage/log-store.js';
import { createLogger } from '../../../common/logger/logger.js';
import { ErrorCode, type KafkaErrorCode } from '../../../common/errors.js';
import { OFFSETS_TOPIC } from '../../../broker/src/log/internal-topics.js';
import { decodeMarkerBatch } from '../../../broker/src/log/txn-marker.js';
import { MemoryLogStore } from '../support/memory-log-store.js';
import { unitServices } from '../support/services.js';
import { soloCluster } from '../../../broker/src/cluster/cluster-view.js';
import { buildBatch } from '../../helpers/batches.js';
import { newSession } from '../../../broker/src/security/session.js';

class RecordingTxn implements TransactionServices {
  verified: Array<[string, number, number, TopicPartition]> = [];
  completed: Array<[number, TxnMarker]> = [];
  answer: KafkaErrorCode = ErrorCode.NONE;
  async verify(id: string, pid: number, epoch: number, tp: TopicPartition): Promise<KafkaErrorCode> {
    this.verified.push([id, pid, epoch, tp]);
    return this.answer;
  }
  added: Array<[string, number, number, TopicPartition]> = [];
  async addPartition(id: string, pid: number, epoch: number, tp: TopicPartition): Promise<KafkaErrorCode> {
    this.added.push([id, pid, epoch, tp]);
    return this.answer;
  }
  async completeTxnOffsets(slot: number, marker: TxnMarker): Promise<void> {
    this.completed.push([slot, marker]);
  }
}

function services(store: MemoryLogStore, txn: TransactionServices): BrokerServices {
  return unitServices({ store, txn });
}

const ctx = (apiVersion: number): RequestContext => ({ apiKey: 0, apiVersion, correlationId: 1, clientId: 't', session: newSession(1, '127.0.0.1') });

const txnBatch = (seq: number) => buildBatch([{ key: null, value: Buffer.from('x') }], { producerId: 7, producerEpoch: 2, baseSequence: seq, transactional: true });

const produce = (b: BrokerServices, records: Buffer, transactionalId: string | null = 'app-1') =>
  produceHandler.handle({ transactionalId, acks: 1, timeoutMs: 1000, topicData: [{ name: 't', partitionData: [{ index: 0, records }] }] }, ctx(9), b);

const markers = (b: BrokerServices, topics: Array<{ name: string; partitionIndexes: number[] }>, commit = true) =>
  writeTxnMarkersHandler.handle({ markers: [{ producerId: 7, producerEpoch: 2, transactionResult: commit, topics, coordinatorEpoch: 4 }] }, ctx(1), b);

describe('transactions on the partition side (handlers)', () => {
  it('verifies only the batch that opens a transaction on the partition, and refuses what the coordinator refuses', async () => {
    const store = new MemoryLogStore();
    const txn = new RecordingTxn();
    const b = services(store, txn);
    await b.log.createTopic('t', 1, {});
    txn.answer = ErrorCode.INVALID_TXN_STATE;
    const refused = await produce(b, txnBatch(0));
    expect(refused!.responses[0].partitionResponses[0].errorCode).toBe(ErrorCode.INVALID_TXN_STATE);
    expect(store.parts.get('t/0')?.batches ?? []).toHaveLength(0);
    txn.answer = ErrorCode.NONE;
    expect((await produce(b, txnBatch(0)))!.responses[0].partitionResponses[0]).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect((await produce(b, txnBatch(1)))!.responses[0].partitionResponses[0]).toMatchObject({ errorCode: 0, baseOffset: 1 });
    expect(txn.verified).toEqual([['app-1', 7, 2, { topic: 't', partition: 0 }], ['app-1', 7, 2, { topic: 't', partition: 0 }]]);
    // no transactional id: refused before any coordinator is asked
    expect((await produce(b, txnBatch(2), null))!.responses[0].partitionResponses[0].errorCode).toBe(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    expect(txn.verified).toHaveLength(2);
  });

  it('keeps pipelined transactional batches in order while the first one is being verified', async () => {
    // The batch that opens the transaction waits for the coordinator; the
    // producer's next batch (seq 1, pipelined) must not overtake it.
    const store = new MemoryLogStore();
    const txn = new RecordingTxn();
    let slowFirst = true;
    txn.verify = async function (this: RecordingTxn, ...args) {
      this.verified.push(args);
      if (slowFirst) {
        slowFirst = false;
        await new Promise((r) => setTimeout(r, 30));
      }
      return ErrorCode.NONE;
    };
    const b = services(store, txn);
    await b.log.createTopic('t', 1, {});
    const [r0, r1, r2] = await Promise.all([produce(b, txnBatch(0)), produce(b, txnBatch(1)), produce(b, txnBatch(2))]);
    expect([r0, r1, r2].map((r) => r!.responses[0].partitionResponses[0])).toMatchObject([
      { errorCode: 0, baseOffset: 0 }, { errorCode: 0, baseOffset: 1 }, { errorCode: 0, baseOffset: 2 },
    ]);
  });

  it('WriteTxnMarkers appends the marker per partition and answers per partition', async () => {
    const store = new MemoryLogStore();
    const txn = new RecordingTxn();
    const b = services(store, txn);
    await b.log.createTopic('t', 2, {});
    await produce(b, txnBatch(0));
    const r = await markers(b, [{ name: 't', partitionIndexes: [0, 1, 5] }, { name: 'missing', partitionIndexes: [0] }], false);
    expect(r).toEqual({ markers: [{ producerId: 7, topics: [
      { name: 't', partitions: [{ partitionIndex: 0, errorCode: 0 }, { partitionIndex: 1, errorCode: 0 }, { partitionIndex: 5, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION }] },
      { name: 'missing', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION }] },
    ] }] });
    const p0 = store.parts.get('t/0')!;
    expect(p0.batches.map((x) => x.baseOffset)).toEqual([0, 1]);
    expect(decodeMarkerBatch(p0.batches[1]!.bytes)).toEqual({ producerId: 7, producerEpoch: 2, commit: false, coordinatorEpoch: 4 });
    expect(p0.aborted).toEqual([{ producerId: 7, firstOffset: 0, lastOffset: 1 }]);
    // partition 1 had no transaction of producer 7: the marker is written, nothing is aborted there
    expect(store.parts.get('t/1')!.batches).toHaveLength(1);
    expect(store.parts.get('t/1')!.aborted).toEqual([]);
    expect(txn.completed).toEqual([]);
  });

  it('completes the transactional offset commits after a marker on __consumer_offsets', async () => {
    const store = new MemoryLogStore();
    const txn = new RecordingTxn();
    const b = services(store, txn);
    await b.log.ensureOffsetsTopic(3);
    const r = await markers(b, [{ name: OFFSETS_TOPIC, partitionIndexes: [2] }], true);
    expect(r!.markers[0].topics[0].partitions).toEqual([{ partitionIndex: 2, errorCode: 0 }]);
    expect(txn.completed).toEqual([[2, { producerId: 7, producerEpoch: 2, commit: true, coordinatorEpoch: 4 }]]);
    expect(store.parts.get(`${OFFSETS_TOPIC}/2`)!.batches).toHaveLength(1);
  });
});
