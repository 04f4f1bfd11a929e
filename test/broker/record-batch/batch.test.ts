// The broker-owned header fields a partition writes into a stored batch.
import { describe, expect, it } from 'vitest';
import { readHeader, stampBatch, stampLogAppendTime } from '../../../broker/src/record-batch/batch.js';
import { validateBatch } from '../../../common/record-batch/validate.js';
import { buildBatch } from '../../helpers/batches.js';

describe('stamping', () => {
  it('stamped batches stay valid: baseOffset and epoch are outside the CRC, LogAppendTime re-signs', () => {
    const b = buildBatch([{ key: Buffer.from('k'), value: Buffer.from('v1') }, { key: null, value: Buffer.from('v2'), headers: [['h', null]] }]);
    stampBatch(b, 1234, 7);
    stampLogAppendTime(b, 1_700_000_000_000);
    expect(() => validateBatch(b, 'client')).not.toThrow();
    const h = readHeader(b);
    expect([h.baseOffset, h.partitionLeaderEpoch, h.timestampType, h.maxTimestamp]).toEqual([1234, 7, 1, 1_700_000_000_000]);
  });
});
