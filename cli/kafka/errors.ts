// Errors of the CLI's Kafka client: a Kafka error code from a response, shown
// by its Kafka name (UNKNOWN_TOPIC_OR_PARTITION ...), and a usage error.
import { codeName, ErrorCode } from '../../common/errors.js';

export class KafkaResponseError extends Error {
  constructor(readonly code: number, readonly context: string, detail?: string | null) {
    super(`${context}: ${codeName(code)}${detail ? ` (${detail})` : ''}`);
  }

  get errorName(): string {
    return codeName(this.code);
  }
}

/** Wrong arguments: the command prints its usage and exits 2. */
export class CliUsageError extends Error {}

/** Throws a KafkaResponseError unless `code` is NONE. */
export function check(code: number, context: string, detail?: string | null): void {
  if (code !== ErrorCode.NONE) throw new KafkaResponseError(code, context, detail);
}

/** Codes a client retries after refreshing metadata or waiting (Kafka's RetriableException family). */
export const RETRIABLE: ReadonlySet<number> = new Set([
  ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.REQUEST_TIMED_OUT,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR,
  ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.KAFKA_STORAGE_ERROR, ErrorCode.FENCED_LEADER_EPOCH, ErrorCode.UNKNOWN_LEADER_EPOCH,
]);
