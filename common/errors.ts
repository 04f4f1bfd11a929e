// The error registries of the broker and the archiver (both import common/).
// Two error families:
//  1. Kafka error codes (ErrorCode), returned per partition / per resource in
//     responses, with Kafka's numbers and semantics.
//  2. Internal errors (RunnelError), one typed registry with stable codes, for
//     logs, metrics and the admin API.

export const ErrorCode = {
  UNKNOWN_SERVER_ERROR: -1,
  NONE: 0,
  OFFSET_OUT_OF_RANGE: 1,
  CORRUPT_MESSAGE: 2,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  INVALID_FETCH_SIZE: 4,
  LEADER_NOT_AVAILABLE: 5,
  NOT_LEADER_OR_FOLLOWER: 6,
  REQUEST_TIMED_OUT: 7,
  BROKER_NOT_AVAILABLE: 8,
  REPLICA_NOT_AVAILABLE: 9,
  MESSAGE_TOO_LARGE: 10,
  STALE_CONTROLLER_EPOCH: 11,
  OFFSET_METADATA_TOO_LARGE: 12,
  NETWORK_EXCEPTION: 13,
  COORDINATOR_LOAD_IN_PROGRESS: 14,
  COORDINATOR_NOT_AVAILABLE: 15,
  NOT_COORDINATOR: 16,
  INVALID_TOPIC_EXCEPTION: 17,
  RECORD_LIST_TOO_LARGE: 18,
  NOT_ENOUGH_REPLICAS: 19,
  NOT_ENOUGH_REPLICAS_AFTER_APPEND: 20,
  INVALID_REQUIRED_ACKS: 21,
  ILLEGAL_GENERATION: 22,
  INCONSISTENT_GROUP_PROTOCOL: 23,
  INVALID_GROUP_ID: 24,
  UNKNOWN_MEMBER_ID: 25,
  INVALID_SESSION_TIMEOUT: 26,
  REBALANCE_IN_PROGRESS: 27,
  INVALID_COMMIT_OFFSET_SIZE: 28,
  TOPIC_AUTHORIZATION_FAILED: 29,
  GROUP_AUTHORIZATION_FAILED: 30,
  CLUSTER_AUTHORIZATION_FAILED: 31,
  INVALID_TIMESTAMP: 32,
  UNSUPPORTED_SASL_MECHANISM: 33,
  ILLEGAL_SASL_STATE: 34,
  UNSUPPORTED_VERSION: 35,
  TOPIC_ALREADY_EXISTS: 36,
  INVALID_PARTITIONS: 37,
  INVALID_REPLICATION_FACTOR: 38,
  INVALID_REPLICA_ASSIGNMENT: 39,
  INVALID_CONFIG: 40,
  NOT_CONTROLLER: 41,
  INVALID_REQUEST: 42,
  UNSUPPORTED_FOR_MESSAGE_FORMAT: 43,
  POLICY_VIOLATION: 44,
  OUT_OF_ORDER_SEQUENCE_NUMBER: 45,
  DUPLICATE_SEQUENCE_NUMBER: 46,
  INVALID_PRODUCER_EPOCH: 47,
  INVALID_TXN_STATE: 48,
  INVALID_PRODUCER_ID_MAPPING: 49,
  INVALID_TRANSACTION_TIMEOUT: 50,
  CONCURRENT_TRANSACTIONS: 51,
  TRANSACTION_COORDINATOR_FENCED: 52,
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED: 53,
  SECURITY_DISABLED: 54,
  OPERATION_NOT_ATTEMPTED: 55,
  KAFKA_STORAGE_ERROR: 56,
  LOG_DIR_NOT_FOUND: 57,
  SASL_AUTHENTICATION_FAILED: 58,
  UNKNOWN_PRODUCER_ID: 59,
  REASSIGNMENT_IN_PROGRESS: 60,
  DELEGATION_TOKEN_AUTH_DISABLED: 61,
  DELEGATION_TOKEN_NOT_FOUND: 62,
  DELEGATION_TOKEN_OWNER_MISMATCH: 63,
  DELEGATION_TOKEN_REQUEST_NOT_ALLOWED: 64,
  DELEGATION_TOKEN_AUTHORIZATION_FAILED: 65,
  DELEGATION_TOKEN_EXPIRED: 66,
  INVALID_PRINCIPAL_TYPE: 67,
  NON_EMPTY_GROUP: 68,
  GROUP_ID_NOT_FOUND: 69,
  FETCH_SESSION_ID_NOT_FOUND: 70,
  INVALID_FETCH_SESSION_EPOCH: 71,
  LISTENER_NOT_FOUND: 72,
  TOPIC_DELETION_DISABLED: 73,
  FENCED_LEADER_EPOCH: 74,
  UNKNOWN_LEADER_EPOCH: 75,
  UNSUPPORTED_COMPRESSION_TYPE: 76,
  STALE_BROKER_EPOCH: 77,
  OFFSET_NOT_AVAILABLE: 78,
  MEMBER_ID_REQUIRED: 79,
  PREFERRED_LEADER_NOT_AVAILABLE: 80,
  GROUP_MAX_SIZE_REACHED: 81,
  FENCED_INSTANCE_ID: 82,
  ELIGIBLE_LEADERS_NOT_AVAILABLE: 83,
  ELECTION_NOT_NEEDED: 84,
  NO_REASSIGNMENT_IN_PROGRESS: 85,
  GROUP_SUBSCRIBED_TO_TOPIC: 86,
  INVALID_RECORD: 87,
  UNSTABLE_OFFSET_COMMIT: 88,
  THROTTLING_QUOTA_EXCEEDED: 89,
  PRODUCER_FENCED: 90,
  RESOURCE_NOT_FOUND: 91,
  DUPLICATE_RESOURCE: 92,
  UNACCEPTABLE_CREDENTIAL: 93,
  INCONSISTENT_VOTER_SET: 94,
  INVALID_UPDATE_VERSION: 95,
  FEATURE_UPDATE_FAILED: 96,
  PRINCIPAL_DESERIALIZATION_FAILURE: 97,
  SNAPSHOT_NOT_FOUND: 98,
  POSITION_OUT_OF_RANGE: 99,
  UNKNOWN_TOPIC_ID: 100,
  DUPLICATE_BROKER_REGISTRATION: 101,
  BROKER_ID_NOT_REGISTERED: 102,
  INCONSISTENT_TOPIC_ID: 103,
  INCONSISTENT_CLUSTER_ID: 104,
  TRANSACTIONAL_ID_NOT_FOUND: 105,
  FETCH_SESSION_TOPIC_ID_ERROR: 106,
  INELIGIBLE_REPLICA: 107,
  NEW_LEADER_ELECTED: 108,
  OFFSET_MOVED_TO_TIERED_STORAGE: 109,
  FENCED_MEMBER_EPOCH: 110,
  UNRELEASED_INSTANCE_ID: 111,
  UNSUPPORTED_ASSIGNOR: 112,
  STALE_MEMBER_EPOCH: 113,
  MISMATCHED_ENDPOINT_TYPE: 114,
  UNSUPPORTED_ENDPOINT_TYPE: 115,
  UNKNOWN_CONTROLLER_ID: 116,
  UNKNOWN_SUBSCRIPTION_ID: 117,
  TELEMETRY_TOO_LARGE: 118,
  INVALID_REGISTRATION: 119,
  TRANSACTION_ABORTABLE: 120,
  INVALID_RECORD_STATE: 121,
  SHARE_SESSION_NOT_FOUND: 122,
  INVALID_SHARE_SESSION_EPOCH: 123,
  FENCED_STATE_EPOCH: 124,
  INVALID_REGULAR_EXPRESSION: 128,
  SHARE_SESSION_LIMIT_REACHED: 133,
} as const;

export type ErrorCodeName = keyof typeof ErrorCode;
export type KafkaErrorCode = (typeof ErrorCode)[ErrorCodeName];

/** An error that maps to one Kafka error code for the affected partition or resource. */
const KNOWN_CODES = new Set<number>(Object.values(ErrorCode));

/** Whether `n` is an error code Kafka defines (and this registry knows). */
export function isKafkaErrorCode(n: unknown): n is KafkaErrorCode {
  return typeof n === 'number' && KNOWN_CODES.has(n);
}

/** A code read off the wire: itself when it is a known Kafka code, else UNKNOWN_SERVER_ERROR. */
export function kafkaErrorCodeOf(n: unknown): KafkaErrorCode {
  return isKafkaErrorCode(n) ? n : ErrorCode.UNKNOWN_SERVER_ERROR;
}

export class KafkaError extends Error {
  constructor(readonly code: KafkaErrorCode, message?: string) {
    super(message ?? codeName(code));
  }
}

const names = new Map<number, string>(Object.entries(ErrorCode).map(([k, v]) => [v, k]));
export function codeName(code: number): string {
  return names.get(code) ?? `ERROR_${code}`;
}

// ---------------------------------------------------------------- internal

/**
 * Stable internal error codes. Never renumber, never reuse a number: a code
 * taken out of use moves to RETIRED_CODES. Blocks: RN1xxx a request the
 * broker cannot take (the connection closes), RN2xxx the log store (a request
 * meeting one gets a retriable Kafka code, see kafkaCodeOf), RN3xxx start-up
 * and configuration, RN4xxx the archiver. Each code is thrown or logged in
 * product code and documented (test/common/errors-registry.test.ts).
 */
export const Internal = {
  PROTOCOL_MALFORMED: { code: 'RN1001', text: 'malformed request' },
  PROTOCOL_FRAME_TOO_LARGE: { code: 'RN1002', text: 'request length prefix is negative or above the frame limit' },
  STORAGE_UNAVAILABLE: { code: 'RN2001', text: 'log store unavailable' },
  STORAGE_CORRUPT: { code: 'RN2003', text: 'stored data is not a valid record batch' },
  STORAGE_FENCE_SCRIPT_FAILED: { code: 'RN2004', text: 'append refused: the fence script did not run' },
  CONFIG_INVALID: { code: 'RN3001', text: 'invalid configuration' },
  EMBEDDED_REDIS_FAILED: { code: 'RN3002', text: 'embedded redis-server failed to start' },
  HTTP_BYPASSES_AUTHORIZER: { code: 'RN3003', text: 'http endpoints would bypass the authorizer' },
  LISTEN_PORT_IN_USE: { code: 'RN3004', text: 'port already in use' },
  NODE_TOO_OLD: { code: 'RN3005', text: 'Node.js is too old' },
  ARCHIVER_LAKE_UNAVAILABLE: { code: 'RN4001', text: 'lake storage request failed' },
  ARCHIVER_COMMIT_ABORTED: { code: 'RN4002', text: 'delta commit aborted: another archiver advanced the partition' },
  ARCHIVER_CORRUPT_BATCH: { code: 'RN4003', text: 'stored record batch cannot be decoded' },
  ARCHIVER_DELTA_LOG_INVALID: { code: 'RN4004', text: 'delta log cannot be replayed' },
  ARCHIVER_LEASE_LOST: { code: 'RN4005', text: 'archiver lease on a partition was lost' },
  ARCHIVER_OFFSET_GAP: { code: 'RN4006', text: 'stream does not continue after the archived offset' },
  ARCHIVER_BATCH_UNENCODABLE: { code: 'RN4007', text: 'record batch cannot be written to the lake' },
  ARCHIVER_DELTA_COMMIT_TORN: { code: 'RN4008', text: 'newest delta log commit is torn' },
} as const;

/**
 * Codes no longer given to any error, kept so that their numbers are never
 * reused (logs and runbooks may still name them).
 */
export const RETIRED_CODES: Readonly<Record<string, string>> = {
  // An unknown API key or version is answered with Kafka's UNSUPPORTED_VERSION
  // (as Kafka answers it) and the connection stays: nothing failed inside the broker.
  RN1003: 'unsupported API key',
  // A fenced append is answered NOT_LEADER_OR_FOLLOWER, with the fence's
  // reason as the error message: another broker leads the partition, or its log end moved.
  RN2002: 'append fenced: the stream tail moved',
};

export type InternalKind = keyof typeof Internal;

export class RunnelError extends Error {
  readonly code: string;
  constructor(readonly kind: InternalKind, detail?: string, options?: { cause?: unknown }) {
    super(`${Internal[kind].code} ${Internal[kind].text}${detail ? `: ${detail}` : ''}`, options);
    this.code = Internal[kind].code;
  }
}

/** A request that cannot be parsed. The connection that sent it is closed. */
export class ProtocolError extends RunnelError {
  constructor(detail: string) {
    super('PROTOCOL_MALFORMED', detail);
  }
}

/**
 * Who answers the request that met a failure. Storage trouble is retriable
 * either way: a partition leader answers KAFKA_STORAGE_ERROR; a group or
 * transaction coordinator answers COORDINATOR_NOT_AVAILABLE, after which
 * clients look the coordinator up again.
 */
export type AnsweredBy = 'leader' | 'coordinator';

/**
 * The one error policy: the Kafka error code a failure is answered with.
 * A KafkaError carries its code. A RunnelError of the log store block (RN2xxx:
 * Redis unreachable, a stored entry unreadable, the append fence script
 * failing) is storage trouble, answered as `by` says. Anything else is null:
 * no error the protocol has an answer for (a bug). The caller rethrows it,
 * and the dispatcher answers UNKNOWN_SERVER_ERROR and logs it.
 */
export function kafkaCodeOf(e: unknown, by: AnsweredBy = 'leader'): KafkaErrorCode | null {
  if (e instanceof KafkaError) return e.code;
  if (e instanceof RunnelError && e.code.startsWith('RN2')) return by === 'leader' ? ErrorCode.KAFKA_STORAGE_ERROR : ErrorCode.COORDINATOR_NOT_AVAILABLE;
  return null;
}
