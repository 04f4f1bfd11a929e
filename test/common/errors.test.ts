import { describe, expect, it } from 'vitest';
import { ErrorCode, isKafkaErrorCode, kafkaErrorCodeOf } from '../../common/errors.js';
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
