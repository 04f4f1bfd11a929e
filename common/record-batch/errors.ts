// Why a record batch is refused. `kind` is the Kafka error a produce request
// gets for it (the broker's validation step, log/log-validator.ts, answers
// with that code); the archiver reports any kind as RN4003.
export type RecordBatchErrorKind =
  /** CRC mismatch, truncated or undecompressable data (Kafka's CorruptRecordException). */
  | 'CORRUPT_MESSAGE'
  /** Framing or offset/count inconsistencies, magic other than 2 (Kafka's InvalidRecordException). */
  | 'INVALID_RECORD'
  /** compression codec id 5..7 */
  | 'UNSUPPORTED_COMPRESSION_TYPE'
  /** A record's CreateTime outside the topic's message.timestamp.before/after.max.ms (produce only). */
  | 'INVALID_TIMESTAMP';

/** One refused record (KIP-467): its index in the batch and why. */
export interface RecordError {
  batchIndex: number;
  message: string;
}

/** Kafka's message for records refused one by one (LogValidator.processRecordErrors): the count and at most the first three. */
export function recordErrorsMessage(errors: readonly RecordError[]): string {
  const shown = errors.slice(0, 3).map((e) => `RecordError(batchIndex=${e.batchIndex}, message='${e.message}')`).join(', ');
  return `One or more records have been rejected due to ${errors.length} record errors in total, and only showing the first three errors at most: [${shown}]`;
}

export class RecordBatchError extends Error {
  /** recordErrors: the records that broke a per-record rule (empty when the batch itself is bad). */
  constructor(readonly kind: RecordBatchErrorKind, message: string, readonly recordErrors: readonly RecordError[] = []) {
    super(message);
    this.name = 'RecordBatchError';
  }
}

export const corrupt = (message: string): RecordBatchError => new RecordBatchError('CORRUPT_MESSAGE', message);
export const invalid = (message: string): RecordBatchError => new RecordBatchError('INVALID_RECORD', message);
