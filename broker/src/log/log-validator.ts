// The produce path's validation step, after Kafka's LogValidator: a
// partition's records field and its topic's policy in, the batch to append
// (with its header, read once) or the refusal out, with its Kafka error code
// and KIP-467 record_errors. All produce-side batch rules are here: exactly
// one batch, the format checks of common/record-batch (magic 2, CRC-32C,
// count and offset deltas, codec, record framing), the topic's record rules
// (keys on a compacted topic, CreateTime bounds), the schema ids the records
// name (collected in the same walk, schema-validation.ts), compression.type,
// max.message.bytes, and no control batches from clients. Sequence and epoch
// checks are not: they need the producer state and run in Partition.append
// (Kafka's ProducerStateManager, also after LogValidator).
// Synchronous on purpose: the produce handler appends right after it, with no
// await, so offsets are assigned in request order.
import { ErrorCode, type KafkaErrorCode } from '../../../common/errors.js';
import { RecordBatchError, type RecordError } from '../../../common/record-batch/errors.js';
import type { BatchHeader } from '../../../common/record-batch/header.js';
import { At, BATCH_HEADER_SIZE, Codec, LOG_OVERHEAD } from '../../../common/record-batch/layout.js';
import { recompress } from '../../../common/record-batch/rebuild.js';
import { validateBatch, type RecordRules } from '../../../common/record-batch/validate.js';
import { schemaRefsSink, type SchemaRefs, type SchemaRule } from './schema-validation.js';

/** The topic configs the step applies (Kafka's LogConfig as LogValidator reads it). */
export interface TopicPolicy {
  /** `topic-partition`, as Kafka's messages name the partition. */
  partitionName: string;
  /** cleanup.policy includes compact: a record without a key could never be superseded, so it is refused. */
  compacted: boolean;
  /**
   * message.timestamp.type=CreateTime: each record's timestamp (other than -1)
   * lies in [now - beforeMaxMs, now + afterMaxMs] (message.timestamp.before.max.ms
   * / after.max.ms). Null for LogAppendTime: the broker replaces the timestamps.
   */
  createTimeBounds: { now: number; beforeMaxMs: bigint; afterMaxMs: bigint } | null;
  /** compression.type, as configured. */
  compressionType: string;
  /** max.message.bytes: the largest batch stored, measured after recompression. */
  maxMessageBytes: number;
  /** confluent.key/value.schema.validation: the schema ids the records name are collected in the same walk; null: neither. */
  schemaRule: SchemaRule | null;
}

/** A batch that passed (Kafka's LogAppendInfo for one batch). */
export interface ValidBatch {
  /** What the partition appends: the producer's bytes (a view of the request), or the recompressed batch. */
  bytes: Buffer;
  /**
   * The header of `bytes`: the offsets the batch takes wherever it lands
   * (lastOffsetDelta + 1), record count, max timestamp, producer id, epoch
   * and base sequence, transactional, codec.
   */
  header: BatchHeader;
  /** The producer's codec (header.codec is the stored one). */
  sourceCodec: number;
  /** With TopicPolicy.schemaRule: the records not in the Confluent wire format and the schema ids named. */
  schemaRefs?: SchemaRefs;
}

/** A refused batch (Kafka's RecordValidationException): the partition's error code and message, and the records that broke a per-record rule. */
export interface Refusal {
  code: KafkaErrorCode;
  message: string;
  recordErrors: readonly RecordError[];
}

export type Refused = { ok: false } & Refusal;
export type Validation = { ok: true; batch: ValidBatch } | Refused;

/** compression.type values that make the broker recompress ('producer' keeps the producer's codec). */
const TOPIC_CODECS: ReadonlyMap<string, number> = new Map([
  ['uncompressed', Codec.NONE], ['gzip', Codec.GZIP], ['snappy', Codec.SNAPPY], ['lz4', Codec.LZ4], ['zstd', Codec.ZSTD],
]);

const refuse = (code: KafkaErrorCode, message: string, recordErrors: readonly RecordError[] = []): Refused => ({ ok: false, code, message, recordErrors });

/**
 * Validates a partition's records field. Refusals: CORRUPT_MESSAGE (no
 * records, a CRC mismatch, a batch shorter than its header, undecompressable
 * data), INVALID_RECORD (framing, counts, magic, more or less than one batch,
 * keyless records on a compacted topic, a control batch),
 * INVALID_TIMESTAMP, UNSUPPORTED_COMPRESSION_TYPE, MESSAGE_TOO_LARGE.
 * Anything thrown is a bug.
 */
export function validateRecords(records: Buffer | null, policy: TopicPolicy): Validation {
  if (!records || records.length === 0) return refuse(ErrorCode.CORRUPT_MESSAGE, 'no records');
  const framing = checkOneBatch(records);
  if (framing) return framing;
  const batch = records;
  let h: BatchHeader;
  const schema = policy.schemaRule ? schemaRefsSink(policy.schemaRule) : null;
  try {
    h = validateBatch(batch, 'client', { ...recordRules(policy), ...(schema ? { also: schema.sink } : {}) });
  } catch (e) {
    // The format's errors are named after the Kafka code they are answered with.
    if (e instanceof RecordBatchError) return refuse(ErrorCode[e.kind], e.message, e.recordErrors);
    throw e;
  }
  const target = TOPIC_CODECS.get(policy.compressionType);
  const stored = target === undefined ? { bytes: batch, header: h } : recompress(batch, h, target);
  if (stored.bytes.length > policy.maxMessageBytes) {
    return refuse(ErrorCode.MESSAGE_TOO_LARGE, `batch of ${stored.bytes.length} bytes exceeds max.message.bytes=${policy.maxMessageBytes}`);
  }
  // Markers are written by the broker only (WriteTxnMarkers); a client's control batch would end transactions.
  if (h.isControl) return refuse(ErrorCode.INVALID_RECORD, 'clients may not write control batches');
  return { ok: true, batch: { ...stored, sourceCodec: h.codec, ...(schema ? { schemaRefs: schema.refs(h.baseOffset) } : {}) } };
}

/**
 * That the records field is exactly one batch, by the batches' length fields:
 * since produce v3 Kafka accepts one batch per partition
 * (ProduceRequest.validateRecords), and a partial batch is no batch to Kafka's
 * batch iterator (then "exactly one batch" fails). Null when it is.
 */
function checkOneBatch(records: Buffer): Refused | null {
  let count = 0;
  let at = 0;
  while (at < records.length) {
    const left = records.length - at;
    if (left < LOG_OVERHEAD) return refuse(ErrorCode.INVALID_RECORD, `${left} trailing bytes are not a record batch`);
    const size = records.readInt32BE(at + At.LENGTH) + LOG_OVERHEAD;
    if (size < BATCH_HEADER_SIZE) return refuse(ErrorCode.CORRUPT_MESSAGE, `record batch size ${size} is below the ${BATCH_HEADER_SIZE}-byte v2 header`);
    if (size > left) return refuse(ErrorCode.INVALID_RECORD, `record batch declares ${size} bytes, ${left} are present`);
    count++;
    at += size;
  }
  if (count !== 1) return refuse(ErrorCode.INVALID_RECORD, `${count} record batches; produce requests carry exactly one per partition`);
  return null;
}

/**
 * The per-record rules of Kafka's LogValidator for the topic. LogAppendTime
 * topics replace the timestamps, so they are not checked.
 */
function recordRules(policy: TopicPolicy): RecordRules {
  const rules: RecordRules = {};
  if (policy.compacted) rules.requireKeys = `Compacted topic cannot accept message without key in topic partition ${policy.partitionName}`;
  if (policy.createTimeBounds) rules.timestamps = policy.createTimeBounds;
  return rules;
}
