import { describe, expect, it } from 'vitest';
import { ErrorCode, KafkaError, ProtocolError, RunnelError, isKafkaErrorCode, kafkaCodeOf, kafkaErrorCodeOf } from '../../common/errors.js';
import { isTxnState } from '../../broker/src/transactions/txn-metadata.js';

describe('error codes read off the wire', () => {
  it('keeps a code Kafka defines, and turns any other value into UNKNOWN_SERVER_ERROR', () => {
    expect(kafkaErrorCodeOf(ErrorCode.NOT_COORDINATOR)).toBe(ErrorCode.NOT_COORDINATOR);
    expect(kafkaErrorCodeOf(0)).toBe(ErrorCode.NONE);
    for (const bad of [9999, -2, 1.5, '15', null, undefined]) expect(kafkaErrorCodeOf(bad)).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
    expect(isKafkaErrorCode(ErrorCode.INVALID_TXN_STATE)).toBe(true);
    expect(isKafkaErrorCode(9999)).toBe(false);
  });

  it('knows the transaction states by name', () => {
    expect(isTxnState('Ongoing')).toBe(true);
    expect(isTxnState('ongoing')).toBe(false);
    expect(isTxnState(null)).toBe(false);
  });
});

describe('kafkaCodeOf: the one error policy', () => {
  it('a KafkaError answers with its code, whoever answers', () => {
    expect(kafkaCodeOf(new KafkaError(ErrorCode.OFFSET_OUT_OF_RANGE))).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    expect(kafkaCodeOf(new KafkaError(ErrorCode.NOT_COORDINATOR), 'coordinator')).toBe(ErrorCode.NOT_COORDINATOR);
  });

  it('log store trouble (RN2xxx) is retriable: KAFKA_STORAGE_ERROR from a leader, COORDINATOR_NOT_AVAILABLE from a coordinator', () => {
    for (const kind of ['STORAGE_UNAVAILABLE', 'STORAGE_CORRUPT', 'STORAGE_FENCE_SCRIPT_FAILED'] as const) {
      expect(kafkaCodeOf(new RunnelError(kind))).toBe(ErrorCode.KAFKA_STORAGE_ERROR);
      expect(kafkaCodeOf(new RunnelError(kind), 'coordinator')).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    }
  });

  it('anything else has no answer (null: the caller rethrows, the dispatcher answers UNKNOWN_SERVER_ERROR)', () => {
    for (const e of [new RunnelError('CONFIG_INVALID'), new ProtocolError('truncated'), new TypeError('bug'), 'thrown string', undefined]) {
      expect(kafkaCodeOf(e)).toBeNull();
      expect(kafkaCodeOf(e, 'coordinator')).toBeNull();
    }
  });
});
