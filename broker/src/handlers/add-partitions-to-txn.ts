// AddPartitionsToTxn (key 24), v0-v5.
//   v0-v1: one transaction from its producer, one error per partition; v1 is
//       answered before throttling.
//   v2: PRODUCER_FENCED may be answered (older versions get INVALID_PRODUCER_EPOCH).
//   v3: flexible encoding; the last version producers send.
//   v4: sent by brokers (KIP-890): a batch of transactions, each added or only
//       verified (VerifyOnly), with a top-level error code too.
//   v5: TRANSACTION_ABORTABLE becomes a possible error (KIP-890).
// A v4+ transaction without VerifyOnly is the implicit add of transactions v2
// (KIP-890 part 2: a broker adds the partition a v2 producer wrote to), so the
// transaction takes client transaction version 2, as Kafka's
// transactionVersionForAddPartitionsToTxn does.
// v0-v3 need WRITE on the id and on each topic, v4+ CLUSTER_ACTION. As in Kafka an
// unauthorized or unknown partition fails the request and the others answer
// OPERATION_NOT_ATTEMPTED.
import { AddPartitionsToTxn } from '../protocol/messages/add-partitions-to-txn.js';
import { ErrorCode, type KafkaErrorCode } from '../../../common/errors.js';
import type { TopicPartition } from '../storage/log-store.js';
import { tpKey, TXN_V2 } from '../transactions/txn-metadata.js';
import { fencedFor, txnCoordinatorFor } from './support/txn-common.js';
import type { BrokerServices, HandlerOf } from './support/types.js';
import type { Element, RequestOf } from '../protocol/typed.js';
import { Op, Resource, authorize, authorizeCluster, authorizedNames } from './support/authorize.js';

/** A topic and its partitions as both request forms name them (v3AndBelowTopics, each transaction's topics). */
type Topic = Element<RequestOf<typeof AddPartitionsToTxn>['v3AndBelowTopics']>;

type TopicResult = { name: string; resultsByPartition: Array<{ partitionIndex: number; partitionErrorCode: number }> };

/** What a v0-3 request (from the producer) may not do: WRITE on the id, WRITE on each topic. */
interface Refusals { transactionalId: boolean; topics: ReadonlySet<string> }

async function addOne(b: BrokerServices, id: string, producerId: number, producerEpoch: number, topics: Topic[], verifyOnly: boolean, version: number, refused?: Refusals): Promise<TopicResult[]> {
  const tps: TopicPartition[] = topics.flatMap((t) => t.partitions.map((partition) => ({ topic: t.name, partition })));
  const codes = new Map<string, number>();
  const answer = (): TopicResult[] => topics.map((t) => ({
    name: t.name,
    resultsByPartition: t.partitions.map((p) => ({ partitionIndex: p, partitionErrorCode: codes.get(tpKey({ topic: t.name, partition: p }))! })),
  }));
  const all = (code: number): TopicResult[] => { for (const tp of tps) codes.set(tpKey(tp), code); return answer(); };
  if (refused?.transactionalId) return all(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  const t = txnCoordinatorFor(b, id);
  if (typeof t === 'number') return all(t);
  // Kafka: unauthorized and unknown partitions fail the request; the others are OPERATION_NOT_ATTEMPTED.
  let unknown = false;
  for (const tp of tps) {
    if (refused?.topics.has(tp.topic)) { codes.set(tpKey(tp), ErrorCode.TOPIC_AUTHORIZATION_FAILED); unknown = true; continue; }
    const rec = b.log.cachedTopic(tp.topic) ?? (await b.log.topic(tp.topic));
    if (!rec || tp.partition < 0 || tp.partition >= rec.partitions) { codes.set(tpKey(tp), ErrorCode.UNKNOWN_TOPIC_OR_PARTITION); unknown = true; }
  }
  if (unknown) {
    for (const tp of tps) if (!codes.has(tpKey(tp))) codes.set(tpKey(tp), ErrorCode.OPERATION_NOT_ATTEMPTED);
    return answer();
  }
  const r = await t.addPartitions(id, producerId, producerEpoch, tps, verifyOnly, version >= 4 ? TXN_V2 : 0);
  for (const [k, code] of r) codes.set(k, fencedFor(code, version, 2));
  return answer();
}

export const addPartitionsToTxnHandler: HandlerOf<typeof AddPartitionsToTxn> = {
  api: AddPartitionsToTxn,
  minVersion: 0,
  maxVersion: 5,
  async handle(req, ctx, b) {
    const v = ctx.apiVersion;
    if (v <= 3) {
      const id: string = req.v3AndBelowTransactionalId;
      const names = req.v3AndBelowTopics.map((t) => t.name);
      const writable = authorizedNames(ctx, b, Op.WRITE, Resource.TOPIC, names);
      const refused = { transactionalId: !authorize(ctx, b, Op.WRITE, Resource.TRANSACTIONAL_ID, id), topics: new Set(names.filter((n) => !writable.has(n))) };
      return { throttleTimeMs: 0, resultsByTopicV3AndBelow: await addOne(b, id, req.v3AndBelowProducerId, req.v3AndBelowProducerEpoch, req.v3AndBelowTopics, false, v, refused) };
    }
    // v4+ come from brokers (KIP-890 verification): CLUSTER_ACTION on the cluster.
    if (!authorizeCluster(ctx, b, Op.CLUSTER_ACTION)) return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, resultsByTransaction: [] };
    const txns = req.transactions;
    const results = await Promise.all(txns.map(async (x) => ({
      transactionalId: x.transactionalId,
      topicResults: await addOne(b, x.transactionalId, x.producerId, x.producerEpoch, x.topics, x.verifyOnly, v),
    })));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, resultsByTransaction: results };
  },
};
