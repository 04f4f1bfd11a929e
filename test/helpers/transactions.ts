// Opening a transaction over the wire as a client does: InitProducerId with a
// transactional id, then AddPartitionsToTxn for the partitions it will write
// (the broker verifies the first transactional batch of each partition
// against the coordinator, KIP-890). Tests that then play the coordinator's
// part for the markers (WriteTxnMarkers) keep the coordinator's timeout far away.
import { expect } from 'vitest';
import { AddPartitionsToTxn } from '../../broker/src/protocol/messages/add-partitions-to-txn.js';
import { InitProducerId } from '../../broker/src/protocol/messages/init-producer-id.js';
import type { WireClient } from './wire.js';

export interface TxnProducer { id: number; epoch: number; seq: number; txnId: string }

export async function openTransaction(c: WireClient, txnId: string, partitions: Array<{ topic: string; partition: number }>, timeoutMs = 600_000): Promise<TxnProducer> {
  const r = await c.request(InitProducerId, 4, { transactionalId: txnId, transactionTimeoutMs: timeoutMs, producerId: -1, producerEpoch: -1 });
  expect(r.errorCode).toBe(0);
  const p = { id: Number(r.producerId), epoch: r.producerEpoch as number, seq: 0, txnId };
  const topics = [...new Set(partitions.map((x) => x.topic))].map((name) => ({ name, partitions: partitions.filter((x) => x.topic === name).map((x) => x.partition) }));
  const add = await c.request(AddPartitionsToTxn, 3, { v3AndBelowTransactionalId: txnId, v3AndBelowProducerId: p.id, v3AndBelowProducerEpoch: p.epoch, v3AndBelowTopics: topics });
  for (const t of add.resultsByTopicV3AndBelow) for (const x of t.resultsByPartition) expect(x.partitionErrorCode).toBe(0);
  return p;
}
