// The handlers' side of transactions v2 (KIP-890 part 2) on the in-memory
// store: Produce v12 adds a transaction's first partition (Kafka's
// TransactionSupportedOperation ADD_PARTITION) where v11 only verifies it, a
// batch of a newer epoch opens a new transaction even while the previous
// one's marker is on its way, the old epoch is fenced by the bumped marker,
// TxnOffsetCommit v5 adds the group's partition, and EndTxn v5 answers with
// the bumped epoch.
import { describe, expect, it } from 'vitest';
import { produceHandler } from '../../../broker/src/handlers/produce.js';
import { endTxnHandler } from '../../../broker/src/handlers/end-txn.js';
import { txnOffsetCommitHandler } from '../../../broker/src/handlers/txn-offset-commit.js';
import { writeTxnMarkersHandler } from '../../../broker/src/handlers/write-txn-markers.js';
import type { BrokerServices, RequestContext } from '../../../broker/src/handlers/support/types.js';
import type { MarkerWriter, TransactionServices } from '../../../broker/src/transactions/types.js';
import type { TopicPartition } from '../../../broker/src/storage/log-store.js';
import { TransactionCoordinator } from '../../../broker/src/transactions/coordinator.js';
import { TXN_V2 } from '../../../broker/src/transactions/txn-metadata.js';
import { ErrorCode, type KafkaErrorCode } from '../../../common/errors.js';
import { OFFSETS_TOPIC } from '../../../broker/src/log/internal-topics.js';
import { MemoryLogStore } from '../support/memory-log-store.js';
import { unitServices } from '../support/services.js';
import { buildBatch } from '../../helpers/batches.js';
import { newSession } from '../../../broker/src/security/session.js';
import { FakeClock, flush } from '../support/fake-clock.js';
import { MemoryTxnStore } from '../transactions/memory-txn-store.js';

type Call = ['verify' | 'add', string, number, number, TopicPartition];

/** Records which question the partition side asked the coordinator, and answers `answer`. */
class RecordingTxn implements TransactionServices {
  calls: Call[] = [];
  answer: KafkaErrorCode = ErrorCode.NONE;
  async verify(id: string, pid: number, epoch: number, tp: TopicPartition): Promise<KafkaErrorCode> {
    this.calls.push(['verify', id, pid, epoch, tp]);
    return this.answer;
  }
  async addPartition(id: string, pid: number, epoch: number, tp: TopicPartition): Promise<KafkaErrorCode> {
    this.calls.push(['add', id, pid, epoch, tp]);
    return this.answer;
  }
  async completeTxnOffsets(): Promise<void> {}
}

const ctx = (apiVersion: number): RequestContext => ({ apiKey: 0, apiVersion, correlationId: 1, clientId: 't', session: newSession(1, '127.0.0.1') });
const T0 = { topic: 't', partition: 0 };
const batch = (epoch: number, seq: number) => buildBatch([{ key: null, value: Buffer.from(`e${epoch}s${seq}`) }], { producerId: 7, producerEpoch: epoch, baseSequence: seq, transactional: true });
const produce = async (b: BrokerServices, version: number, records: Buffer) =>
  (await produceHandler.handle({ transactionalId: 'app', acks: 1, timeoutMs: 1000, topicData: [{ name: 't', partitionData: [{ index: 0, records }] }] }, ctx(version), b))!.responses[0].partitionResponses[0];
const marker = (b: BrokerServices, epoch: number, commit: boolean) =>
  writeTxnMarkersHandler.handle({ markers: [{ producerId: 7, producerEpoch: epoch, transactionResult: commit, topics: [{ name: 't', partitionIndexes: [0] }], coordinatorEpoch: 1 }] }, ctx(1), b);

async function setup() {
  const store = new MemoryLogStore();
  const txn = new RecordingTxn();
  const b = unitServices({ store, txn });
  await b.log.createTopic('t', 1, {});
  return { store, txn, b };
}

describe('Produce v12 (transactions v2)', () => {
  it('adds the partition with the batch that opens the transaction; v11 only verifies it', async () => {
    const { txn, b } = await setup();
    expect(await produce(b, 12, batch(2, 0))).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect(await produce(b, 12, batch(2, 1))).toMatchObject({ errorCode: 0, baseOffset: 1 });
    expect(txn.calls).toEqual([['add', 'app', 7, 2, T0]]);
    await marker(b, 3, true); // EndTxn v5 bumped the epoch: the marker carries 3
    expect(await produce(b, 11, batch(3, 0))).toMatchObject({ errorCode: 0, baseOffset: 3 });
    expect(txn.calls.at(-1)).toEqual(['verify', 'app', 7, 3, T0]);
  });

  it('a batch of the next epoch opens a new transaction even before the previous marker arrived, and waits for the coordinator', async () => {
    const { store, txn, b } = await setup();
    await produce(b, 12, batch(2, 0));
    // The previous transaction (epoch 2) is still open on the partition; the coordinator completes it first.
    txn.answer = ErrorCode.CONCURRENT_TRANSACTIONS;
    expect((await produce(b, 12, batch(3, 0))).errorCode).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    expect(txn.calls.map((c) => c[3])).toEqual([2, 3]);
    expect(store.parts.get('t/0')!.batches).toHaveLength(1);
    await marker(b, 3, true);
    txn.answer = ErrorCode.NONE;
    expect(await produce(b, 12, batch(3, 0))).toMatchObject({ errorCode: 0, baseOffset: 2 });
    // Only the first transaction is closed by the marker; the new one stays open (it holds the LSO).
    expect(store.parts.get('t/0')!.aborted).toEqual([]);
  });

  it('after the bumped marker, a zombie batch of the old epoch is refused by the partition', async () => {
    const { txn, b } = await setup();
    await produce(b, 12, batch(2, 0));
    await marker(b, 3, false);
    const calls = txn.calls.length;
    expect((await produce(b, 12, batch(2, 1))).errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(txn.calls).toHaveLength(calls);
  });
});

describe('TxnOffsetCommit v5 (transactions v2)', () => {
  const commit = (b: BrokerServices, version: number) => txnOffsetCommitHandler.handle({
    transactionalId: 'app', groupId: 'g', producerId: 7, producerEpoch: 2, generationId: -1, memberId: '', groupInstanceId: null,
    topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 5, committedLeaderEpoch: -1, committedMetadata: null }] }],
  }, ctx(version), b);

  it('adds the group\'s __consumer_offsets partition to the transaction first; a refusal fails every partition', async () => {
    const { txn, b } = await setup();
    // The group coordinator's side (pending offsets in Redis) is tested elsewhere: here, whether it is reached.
    const kept: number[] = [];
    b.groups.txnCommitOffsets = async (req) => { kept.push(req.producerId); return req.offsets.map(() => ErrorCode.NONE); };
    txn.answer = ErrorCode.PRODUCER_FENCED;
    expect((await commit(b, 5))!.topics[0]!.partitions).toEqual([{ partitionIndex: 0, errorCode: ErrorCode.PRODUCER_FENCED }]);
    expect(kept).toEqual([]);
    txn.answer = ErrorCode.NONE;
    expect((await commit(b, 5))!.topics[0]!.partitions).toEqual([{ partitionIndex: 0, errorCode: 0 }]);
    expect(txn.calls).toEqual([
      ['add', 'app', 7, 2, { topic: OFFSETS_TOPIC, partition: b.cluster.coordinatorSlot('g') }],
      ['add', 'app', 7, 2, { topic: OFFSETS_TOPIC, partition: b.cluster.coordinatorSlot('g') }],
    ]);
    expect(kept).toEqual([7]);
    // v4 came after AddOffsetsToTxn: no add here.
    await commit(b, 4);
    expect(txn.calls).toHaveLength(2);
    expect(kept).toEqual([7, 7]);
  });
});

describe('EndTxn v5', () => {
  it('answers with the producer id and the bumped epoch; v4 keeps the epoch', async () => {
    const noMarkers: MarkerWriter = { writeMarker: async () => ErrorCode.NONE };
    const coordinator = new TransactionCoordinator(new MemoryTxnStore(), noMarkers, new FakeClock(), {
      slotOf: () => 0, epochOf: () => 1, ownedSlots: () => [0], offsetsPartitionOf: () => ({ topic: OFFSETS_TOPIC, partition: 0 }),
    });
    const b: BrokerServices = { ...unitServices(), transactions: coordinator };
    const { producerId } = await coordinator.initProducerId({ transactionalId: 'app', timeoutMs: 10_000, producerId: -1, producerEpoch: -1 });
    const end = (version: number, epoch: number, committed: boolean) => endTxnHandler.handle({ transactionalId: 'app', producerId, producerEpoch: epoch, committed }, ctx(version), b);
    await coordinator.addPartitions('app', producerId, 0, [{ topic: 't', partition: 0 }], false, TXN_V2);
    expect(await end(5, 0, true)).toEqual({ throttleTimeMs: 0, errorCode: 0, producerId, producerEpoch: 1 });
    await flush();
    expect(await end(5, 0, true)).toEqual({ throttleTimeMs: 0, errorCode: 0, producerId, producerEpoch: 1 }); // a retry
    expect(await end(5, 7, true)).toEqual({ throttleTimeMs: 0, errorCode: ErrorCode.PRODUCER_FENCED, producerId: -1, producerEpoch: -1 });
    expect((await end(1, 7, true))!.errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH); // before v2, PRODUCER_FENCED is INVALID_PRODUCER_EPOCH
    await coordinator.addPartitions('app', producerId, 1, [{ topic: 't', partition: 0 }]);
    expect(await end(4, 1, false)).toMatchObject({ errorCode: 0, producerEpoch: 1 });
  });
});
