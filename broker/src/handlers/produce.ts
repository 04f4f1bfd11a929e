// Produce (key 0), v3-v12.
//   v3: the oldest served: magic-2 batches (the only kind stored); a transactional id.
//   v4-v6: KAFKA_STORAGE_ERROR may be answered; v5 adds the log start offset.
//   v7: zstd batches (KIP-110).
//   v8: the records that failed a batch, and an error message (KIP-467).
//   v9: flexible encoding.
//   v10: a NOT_LEADER answer names the new leader and its endpoint (KIP-951).
//   v11: TRANSACTION_ABORTABLE becomes a possible error (KIP-890).
//   v12: transactions v2 (KIP-890 part 2): the batch that opens a transaction on a
//       partition adds the partition to it (the coordinator's implicit
//       AddPartitionsToTxn) instead of only verifying it.
// ApiVersions lists v0-v12 for librdkafka's compression check, and a v0-v2 request
// closes the connection (Kafka 4.0, KAFKA-18659). Needs WRITE on each topic (and on
// the transactional id); acks=0 is answered with nothing.
import { Produce } from '../protocol/messages/produce.js';
import { isInternalTopic } from '../log/internal-topics.js';
import { ErrorCode, codeName, kafkaCodeOf, type KafkaErrorCode } from '../../../common/errors.js';
import { isCompacted } from '../log/compaction/cleaner-task.js';
import { schemaErrors, type SchemaRule } from '../log/schema-validation.js';
import { recordErrorsMessage, type RecordError } from '../../../common/record-batch/errors.js';
import { validateRecords, type TopicPolicy, type ValidBatch } from '../log/log-validator.js';
import type { BatchHeader } from '../record-batch/batch.js';
import type { Partition, PendingAppend } from '../log/partition.js';
import type { TopicPartition, TopicRecord } from '../storage/log-store.js';
import type { Turn } from '../log/append-order.js';
import type { SequenceHoles } from '../log/sequence-holes.js';
import type { BrokerServices, HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';


interface PartitionResult {
  index: number;
  errorCode: number;
  baseOffset: number;
  logAppendTimeMs: number;
  logStartOffset: number;
  errorMessage: string | null;
  /** KIP-467 (v8+): the records that made the batch fail; the client fails only these. */
  recordErrors: Array<{ batchIndex: number; batchIndexErrorMessage: string | null }>;
}

const fail = (index: number, code: KafkaErrorCode, message?: string, recordErrors: PartitionResult['recordErrors'] = []): PartitionResult => ({
  index, errorCode: code, baseOffset: -1, logAppendTimeMs: -1, logStartOffset: -1, errorMessage: message ?? codeName(code), recordErrors,
});

export const produceHandler: HandlerOf<typeof Produce> = {
  api: Produce,
  minVersion: 3,
  maxVersion: 12,
  // Listed from v0 for librdkafka's compression check, refused on use (Kafka 4.0, KAFKA-18659).
  advertisedMinVersion: 0,
  async handle(req, ctx, b) {
    const acks: number = req.acks;
    // Kafka: WRITE on the transactional id (all partitions fail without it), WRITE on each topic.
    const txnDenied = req.transactionalId != null && !authorize(ctx, b, Op.WRITE, Resource.TRANSACTIONAL_ID, req.transactionalId);
    // Turns on every partition written, taken before the first await: appends keep arrival order (append-order.ts).
    const turns = req.topicData.map((td) => td.partitionData.map((pd) => b.log.appendOrder.take(td.name, pd.index)));
    try {
      // Topics go in parallel: the turns order each partition's appends across requests.
      const responses = await Promise.all(req.topicData.map(async (td, ti) => {
        const topicDenied = !authorize(ctx, b, Op.WRITE, Resource.TOPIC, td.name);
        const topic = b.log.cachedTopic(td.name) ?? (await b.log.topic(td.name));
        const partitionResponses = await Promise.all(td.partitionData.map(async (pd, pi): Promise<PartitionResult> => {
          const turn = turns[ti]![pi]!;
          try {
            if (acks !== 0 && acks !== 1 && acks !== -1) return fail(pd.index, ErrorCode.INVALID_REQUIRED_ACKS);
            if (txnDenied) return fail(pd.index, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
            if (topicDenied) return fail(pd.index, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
            if (!topic || pd.index < 0 || pd.index >= topic.partitions) return fail(pd.index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
            // Kafka refuses client appends to internal topics (ReplicaManager: InvalidTopicException); only the coordinator writes them.
            if (isInternalTopic(td.name)) return fail(pd.index, ErrorCode.INVALID_TOPIC_EXCEPTION, `Cannot append to internal topic ${td.name}`);
            return await producePartition(b, topic, pd.index, pd.records, acks, req.timeoutMs, { id: req.transactionalId, addsPartition: ctx.apiVersion >= 12 }, turn);
          } finally {
            turn.release();
          }
        }));
        return { name: td.name, partitionResponses };
      }));
      if (acks === 0) return null;
      return { responses, throttleTimeMs: 0 };
    } finally {
      for (const t of turns.flat()) t.release(); // a topic lookup that threw
    }
  },
};

/** The request's transactional id, and whether its version adds partitions to the transaction (v12+, transactions v2). */
interface TxnOfRequest { id: string | null; addsPartition: boolean }

/**
 * A transactional batch needs the request's transactional id (Kafka answers
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED without one), and the batch that
 * opens the producer's transaction on this partition goes to the transaction
 * coordinator first: verified (KIP-890 part 1), or with Produce v12 added to
 * the transaction (KIP-890 part 2, Kafka's TransactionSupportedOperation
 * ADD_PARTITION). Later batches of the same transaction append without a
 * round trip. Null when the batch may go on.
 */
async function verifyTransactional(b: BrokerServices, p: Partition, h: BatchHeader, txn: TxnOfRequest): Promise<{ code: KafkaErrorCode; message: string } | null> {
  if (txn.id === null) return { code: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, message: 'a transactional batch needs the request\'s transactional id' };
  if (!p.ready) await p.ensureLoaded();
  if (!p.producers.beginsTransaction(h)) return null;
  const code = txn.addsPartition
    ? await b.txn.addPartition(txn.id, h.producerId, h.producerEpoch, p.tp)
    : await b.txn.verify(txn.id, h.producerId, h.producerEpoch, p.tp);
  return code === ErrorCode.NONE ? null : { code, message: `transaction of ${txn.id} not ${txn.addsPartition ? 'joined' : 'verified'} on ${p.tp.topic}-${p.tp.partition}: ${codeName(code)}` };
}

/** Errors after which a client sends the same batch again (Kafka's retriable produce errors). */
const RETRIED: ReadonlySet<number> = new Set<number>([
  ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.KAFKA_STORAGE_ERROR, ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
  ErrorCode.REQUEST_TIMED_OUT, ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.CONCURRENT_TRANSACTIONS,
]);

/**
 * An idempotent batch that failed retriably is expected again before the
 * producer's later ones (a hole); one that was appended or found a duplicate
 * fills its hole (sequence-holes.ts).
 */
function noteSequences(holes: SequenceHoles, tp: TopicPartition, h: BatchHeader, r: PartitionResult): void {
  if (r.errorCode === ErrorCode.NONE ? holes.size === 0 : !RETRIED.has(r.errorCode)) return;
  if (h.producerId < 0) return;
  if (r.errorCode === ErrorCode.NONE) holes.filled(tp, h.producerId, h.producerEpoch, h.baseSequence, h.baseSequence + h.lastOffsetDelta);
  else if (RETRIED.has(r.errorCode)) holes.record(tp, h.producerId, h.producerEpoch, h.baseSequence);
}

/** A failure as the partition's answer (kafkaCodeOf: storage trouble is a retriable KAFKA_STORAGE_ERROR); anything else is a bug. */
function failFromError(index: number, e: unknown): PartitionResult {
  const code = kafkaCodeOf(e);
  if (code === null) throw e;
  return fail(index, code, e instanceof Error ? e.message : undefined);
}

/** The topic's configs the validation step applies. */
function topicPolicy(b: BrokerServices, topic: TopicRecord, index: number, logAppendTime: boolean): TopicPolicy {
  return {
    partitionName: `${topic.name}-${index}`,
    compacted: isCompacted(b.log, topic),
    createTimeBounds: logAppendTime ? null : {
      now: Date.now(),
      beforeMaxMs: BigInt(b.log.configValue(topic, 'message.timestamp.before.max.ms')),
      afterMaxMs: BigInt(b.log.configValue(topic, 'message.timestamp.after.max.ms')),
    },
    compressionType: b.log.configValue(topic, 'compression.type'),
    maxMessageBytes: b.log.configNumber(topic, 'max.message.bytes'),
    schemaRule: schemaRule(b, topic),
  };
}

/** confluent.key.schema.validation / confluent.value.schema.validation, or null when the topic asks for neither. */
function schemaRule(b: BrokerServices, topic: TopicRecord): SchemaRule | null {
  const rule = { key: b.log.configValue(topic, 'confluent.key.schema.validation') === 'true', value: b.log.configValue(topic, 'confluent.value.schema.validation') === 'true' };
  return rule.key || rule.value ? rule : null;
}

/**
 * One partition of the request: the validation step, then the append. An
 * idempotent batch's outcome opens or fills its sequence hole.
 */
async function producePartition(
  b: BrokerServices, topic: TopicRecord, index: number, records: Buffer | null, acks: number, timeoutMs: number, txn: TxnOfRequest, turn: Turn,
): Promise<PartitionResult> {
  let batch: ValidBatch | null = null;
  let r: PartitionResult;
  try {
    const logAppendTime = b.log.configValue(topic, 'message.timestamp.type') === 'LogAppendTime';
    const v = validateRecords(records, topicPolicy(b, topic, index, logAppendTime));
    if (!v.ok) return fail(index, v.code, v.message, v.recordErrors.map((e) => ({ batchIndex: e.batchIndex, batchIndexErrorMessage: e.message })));
    batch = v.batch;
    const schemaRefused = await checkSchemas(b, batch);
    if (schemaRefused.length > 0) {
      return fail(index, ErrorCode.INVALID_RECORD, recordErrorsMessage(schemaRefused), schemaRefused.map((e) => ({ batchIndex: e.batchIndex, batchIndexErrorMessage: e.message })));
    }
    r = await appendPartition(b, topic, index, batch, logAppendTime, acks, timeoutMs, txn, turn);
  } catch (e) {
    r = failFromError(index, e);
  }
  if (batch) noteSequences(b.log.sequenceHoles, { topic: topic.name, partition: index }, batch.header, r);
  return r;
}

/**
 * confluent.value.schema.validation / confluent.key.schema.validation: the
 * records whose value (key) is not in the Confluent wire format or names an id
 * the Schema Registry does not have ([] when the topic asks for neither).
 */
async function checkSchemas(b: BrokerServices, batch: ValidBatch): Promise<RecordError[]> {
  const refs = batch.schemaRefs; // collected by the validation walk (TopicPolicy.schemaRule)
  if (!refs) return [];
  const ids = [...refs.ids.keys()];
  const unknown = ids.length === 0 ? [] : b.schemaIds ? await b.schemaIds.unknown(ids) : ids;
  return schemaErrors(refs, unknown);
}

async function appendPartition(
  b: BrokerServices, topic: TopicRecord, index: number, batch: ValidBatch, logAppendTime: boolean, acks: number, timeoutMs: number, txn: TxnOfRequest, turn: Turn,
): Promise<PartitionResult> {
  const h = batch.header;
  const minIsr = acks === -1 ? b.log.configNumber(topic, 'min.insync.replicas') : 1;
  if (minIsr > 1) {
    const short = await b.log.partitionOf(topic, index).checkReplicasConnected(minIsr);
    if (short) return fail(index, short.errorCode, short.errorMessage);
  }

  let p: Partition = b.log.partitionOf(topic, index);
  if (!b.cluster.leads(p.unit)) p = await b.log.ledPartition(topic, index);
  // Earlier requests' appends to this partition go first (the caller releases
  // the turn on every other path). The transaction check comes after them: a
  // producer pipelines its batches, and while the one opening its transaction
  // waits for the coordinator (verification), the next ones would look like
  // openers too.
  if (turn.ready) await turn.ready;
  if (h.isTransactional) {
    const refused = await verifyTransactional(b, p, h, txn);
    if (refused) return fail(index, refused.code, refused.message);
  }
  // acks=all with Redis replicas or WAITAOF: the records stay invisible to
  // consumers until WAIT/WAITAOF confirms them (the high watermark follows durability).
  const waits = acks === -1 && (minIsr > 1 || b.config.acksAllWaitAof);
  let pending: PendingAppend | null = null;
  try {
    const appending = p.append(batch.bytes, { logAppendTime, deferVisibility: waits }, h);
    turn.release(); // its sequence check and offset are taken: the next one may go
    const out = await appending;
    pending = out.pending;
    if (out.errorCode !== ErrorCode.NONE) return fail(index, out.errorCode, out.errorMessage ?? undefined);
    const appended: PartitionResult = { index, errorCode: ErrorCode.NONE, baseOffset: out.baseOffset, logAppendTimeMs: out.logAppendTime, logStartOffset: p.earliestOffset, errorMessage: null, recordErrors: [] };
    if (waits) {
      const timeout = Math.max(1, Math.min(timeoutMs, b.config.replicaWaitMs));
      const short = await p.confirmReplicas(minIsr, b.config.acksAllWaitAof, timeout, out.duplicate === true);
      if (short) return fail(index, short.errorCode, short.errorMessage);
    }
    return appended;
  } finally {
    // Records stored but not confirmed (an error answer) stay in the log, as in
    // Kafka after NOT_ENOUGH_REPLICAS_AFTER_APPEND; they become visible here.
    if (pending) p.settle(pending);
  }
}
