// Produce (key 0), v3-v11.
//   v3: the oldest served: magic-2 batches (the only kind stored); a transactional id.
//   v4-v6: KAFKA_STORAGE_ERROR may be answered; v5 adds the log start offset.
//   v7: zstd batches (KIP-110).
//   v8: the records that failed a batch, and an error message (KIP-467).
//   v9: flexible encoding.
//   v10: a NOT_LEADER answer names the new leader and its endpoint (KIP-951).
//   v11: TRANSACTION_ABORTABLE becomes a possible error (KIP-890).
// ApiVersions lists v0-v11 for librdkafka's compression check, and a v0-v2 request
// closes the connection (Kafka 4.0, KAFKA-18659). Needs WRITE on each topic (and on
// the transactional id); acks=0 is answered with nothing.
import { Produce } from '../protocol/messages/produce.js';
import { isInternalTopic } from '../log/internal-topics.js';
import { ErrorCode, KafkaError, RunnelError, codeName, type KafkaErrorCode } from '../../../common/errors.js';
import { HEADER_SIZE, RecordValidationError, readHeader, splitAndValidate, type RecordRules } from '../record-batch/batch.js';
import { isCompacted } from '../log/compaction/cleaner-task.js';
import { recompressBatch } from '../../../common/record-batch/rebuild.js';
import { Codec } from '../../../common/record-batch/layout.js';

/** compression.type values that make the broker recompress (producer keeps the producer's codec). */
const TOPIC_CODECS: Record<string, number | undefined> = { uncompressed: Codec.NONE, gzip: Codec.GZIP, snappy: Codec.SNAPPY, lz4: Codec.LZ4, zstd: Codec.ZSTD };
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
  maxVersion: 11,
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
            const r = await appendPartition(b, topic, pd.index, pd.records, acks, req.timeoutMs, req.transactionalId, turn).catch((e) => failFromError(pd.index, e));
            noteSequences(b.log.sequenceHoles, { topic: td.name, partition: pd.index }, pd.records, r);
            return r;
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

/**
 * A transactional batch needs the request's transactional id (Kafka answers
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED without one), and the batch that
 * opens the producer's transaction on this partition must be verified by the
 * transaction coordinator (KIP-890 part 1). Later batches of the same
 * transaction append without a round trip. Null when the batch may go on.
 */
async function verifyTransactional(b: BrokerServices, p: Partition, h: ReturnType<typeof readHeader>, transactionalId: string | null): Promise<{ code: KafkaErrorCode; message: string } | null> {
  if (transactionalId === null) return { code: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, message: 'a transactional batch needs the request\'s transactional id' };
  if (!p.ready) await p.ensureLoaded();
  if (!p.producers.beginsTransaction(h)) return null;
  const code = await b.txn.verify(transactionalId, h.producerId, h.producerEpoch, p.tp);
  return code === ErrorCode.NONE ? null : { code, message: `transaction of ${transactionalId} not verified on ${p.tp.topic}-${p.tp.partition}: ${codeName(code)}` };
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
function noteSequences(holes: SequenceHoles, tp: TopicPartition, records: Buffer | null, r: PartitionResult): void {
  // The common case, an append with no hole open anywhere, costs no header read.
  if (r.errorCode === ErrorCode.NONE ? holes.size === 0 : !RETRIED.has(r.errorCode)) return;
  if (!records || records.length < HEADER_SIZE) return;
  const h = readHeader(records);
  if (h.producerId < 0) return;
  if (r.errorCode === ErrorCode.NONE) holes.filled(tp, h.producerId, h.producerEpoch, h.baseSequence, h.baseSequence + h.lastOffsetDelta);
  else if (RETRIED.has(r.errorCode)) holes.record(tp, h.producerId, h.producerEpoch, h.baseSequence);
}

/** Storage trouble is retriable for clients (KAFKA_STORAGE_ERROR); anything else is a bug. */
function failFromError(index: number, e: unknown): PartitionResult {
  if (e instanceof KafkaError) return fail(index, e.code, e.message);
  if (e instanceof RunnelError && e.kind === 'STORAGE_UNAVAILABLE') return fail(index, ErrorCode.KAFKA_STORAGE_ERROR, e.message);
  throw e;
}

/**
 * The per-record checks of Kafka's LogValidator for this topic: a compacted
 * topic cannot keep a record it could never supersede (no key), and a
 * CreateTime topic bounds each record's timestamp by
 * message.timestamp.before.max.ms / after.max.ms around the broker's clock.
 * LogAppendTime topics replace the timestamps, so they are not checked.
 */
function recordRules(b: BrokerServices, topic: TopicRecord, index: number, logAppendTime: boolean): RecordRules {
  const rules: RecordRules = {};
  if (isCompacted(b.log, topic)) rules.requireKeys = `Compacted topic cannot accept message without key in topic partition ${topic.name}-${index}`;
  if (!logAppendTime) {
    rules.timestamps = {
      now: Date.now(),
      beforeMaxMs: BigInt(b.log.configValue(topic, 'message.timestamp.before.max.ms')),
      afterMaxMs: BigInt(b.log.configValue(topic, 'message.timestamp.after.max.ms')),
    };
  }
  return rules;
}

async function appendPartition(
  b: BrokerServices, topic: TopicRecord, index: number, records: Buffer | null, acks: number, timeoutMs: number, transactionalId: string | null, turn: Turn,
): Promise<PartitionResult> {
  if (!records || records.length === 0) return fail(index, ErrorCode.CORRUPT_MESSAGE, 'no records');
  const maxBytes = b.log.configNumber(topic, 'max.message.bytes');
  const logAppendTime = b.log.configValue(topic, 'message.timestamp.type') === 'LogAppendTime';
  let batches: Buffer[];
  try {
    batches = splitAndValidate(records, recordRules(b, topic, index, logAppendTime));
  } catch (e) {
    if (e instanceof RecordValidationError) {
      return fail(index, e.code, e.message, e.recordErrors.map((r) => ({ batchIndex: r.batchIndex, batchIndexErrorMessage: r.message })));
    }
    if (e instanceof KafkaError) return fail(index, e.code, e.message);
    throw e;
  }
  // compression.type other than producer: the broker recompresses, as Kafka does (uncompressed = none).
  const codec = TOPIC_CODECS[b.log.configValue(topic, 'compression.type')];
  if (codec !== undefined) batches = batches.map((x) => recompressBatch(x, codec));
  for (const batch of batches) {
    if (batch.length > maxBytes) return fail(index, ErrorCode.MESSAGE_TOO_LARGE, `batch of ${batch.length} bytes exceeds max.message.bytes=${maxBytes}`);
  }

  const minIsr = acks === -1 ? b.log.configNumber(topic, 'min.insync.replicas') : 1;
  if (minIsr > 1 && (await b.store.connectedReplicas(b.log.partitionOf(topic, index).tp)) < minIsr - 1) {
    return fail(index, ErrorCode.NOT_ENOUGH_REPLICAS, `min.insync.replicas=${minIsr} needs ${minIsr - 1} Redis replicas`);
  }

  let p: Partition = b.log.partitionOf(topic, index);
  if (!b.cluster.leads(p.unit)) p = await b.log.ledPartition(topic, index);
  const h = readHeader(batches[0]!);
  if (h.isControl) {
    // Markers are written by the broker only (WriteTxnMarkers); a client's control batch would end transactions.
    return fail(index, ErrorCode.INVALID_RECORD, 'clients may not write control batches');
  }
  // Earlier requests' appends to this partition go first (the caller releases
  // the turn on every other path). The transaction check comes after them: a
  // producer pipelines its batches, and while the one opening its transaction
  // waits for the coordinator (verification), the next ones would look like
  // openers too.
  if (turn.ready) await turn.ready;
  if (h.isTransactional) {
    const refused = await verifyTransactional(b, p, h, transactionalId);
    if (refused) return fail(index, refused.code, refused.message);
  }
  // acks=all with Redis replicas or WAITAOF: the records stay invisible to
  // consumers until WAIT/WAITAOF confirms them (the high watermark follows durability).
  const waits = acks === -1 && (minIsr > 1 || b.config.acksAllWaitAof);
  const pending: PendingAppend[] = [];
  let duplicate = false;
  try {
    let first: PartitionResult | null = null;
    for (const batch of batches) {
      const appending = p.append(batch, { logAppendTime, deferVisibility: waits });
      turn.release(); // its sequence check and offset are taken: the next one may go
      const out = await appending;
      if (out.pending) pending.push(out.pending);
      if (out.duplicate) duplicate = true;
      if (out.errorCode !== ErrorCode.NONE) return fail(index, out.errorCode, out.errorMessage ?? undefined);
      first ??= { index, errorCode: ErrorCode.NONE, baseOffset: out.baseOffset, logAppendTimeMs: out.logAppendTime, logStartOffset: p.logStartOffset, errorMessage: null, recordErrors: [] };
    }
    if (waits) {
      const timeout = Math.max(1, Math.min(timeoutMs, b.config.replicaWaitMs));
      // An unconfirmed append may be lost by a Redis failover. The partition's
      // in-memory view (log end, producer sequences) is then reloaded from the
      // store before its next append: otherwise the producer's retry would be
      // answered as a duplicate of a batch the promoted replica never got.
      try {
        const w = await b.store.waitReplicas(p.tp, minIsr - 1, b.config.acksAllWaitAof, timeout, duplicate);
        if (w.replicas < minIsr - 1) {
          p.invalidate();
          return fail(index, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, `${w.replicas} of ${minIsr - 1} Redis replicas confirmed within ${timeout} ms`);
        }
        if (b.config.acksAllWaitAof && !w.aofLocal) {
          p.invalidate();
          return fail(index, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, `the Redis primary did not confirm the AOF fsync within ${timeout} ms`);
        }
      } catch (e) {
        p.invalidate();
        return fail(index, ErrorCode.KAFKA_STORAGE_ERROR, e instanceof Error ? e.message : String(e));
      }
    }
    return first!;
  } finally {
    // Records stored but not confirmed (an error answer) stay in the log, as in
    // Kafka after NOT_ENOUGH_REPLICAS_AFTER_APPEND; they become visible here.
    for (const e of pending) p.settle(e);
  }
}
