// The control batch of a transaction marker, byte by byte (Kafka's
// EndTransactionMarker in a control batch).
import { describe, expect, it } from 'vitest';
import { buildMarkerBatch, decodeMarkerBatch } from '../../../broker/src/log/txn-marker.js';
import { readBatchHeader, checkCrc } from '../../../common/record-batch/header.js';
import { validateBatch } from '../../../common/record-batch/validate.js';

describe('transaction marker batches', () => {
  it('is a one-record control batch with the producer of the transaction and no sequence', () => {
    const b = buildMarkerBatch({ producerId: 4242, producerEpoch: 3, commit: false, coordinatorEpoch: 17 }, 1_700_000_000_000);
    const h = readBatchHeader(b);
    expect(h).toMatchObject({ magic: 2, isControl: true, isTransactional: true, codec: 0, lastOffsetDelta: 0, recordCount: 1, producerId: 4242, producerEpoch: 3, baseSequence: -1, baseTimestamp: 1_700_000_000_000 });
    expect(h.attributes).toBe(0x30);
    expect(() => checkCrc(b)).not.toThrow();
    expect(() => validateBatch(b, 'stored')).not.toThrow();
    // record: length, attributes 0, timestampDelta 0, offsetDelta 0, key (4 bytes), value (6 bytes), 0 headers
    const rec = b.subarray(61);
    expect([...rec]).toEqual([
      0x20, // record length 16 (zigzag varint)
      0, 0, 0,
      0x08, 0x00, 0x00, 0x00, 0x00, // key length 4: version 0, type 0 (ABORT)
      0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x11, // value length 6: version 0, coordinatorEpoch 17
      0, // no headers
    ]);
  });

  it('encodes COMMIT as type 1 and decodes back', () => {
    const m = { producerId: 7, producerEpoch: 0, commit: true, coordinatorEpoch: 2 };
    const b = buildMarkerBatch(m, 0);
    expect(b.readInt16BE(61 + 4 + 3)).toBe(1);
    expect(decodeMarkerBatch(b)).toEqual(m);
    expect(decodeMarkerBatch(buildMarkerBatch({ ...m, commit: false }, 0))).toEqual({ ...m, commit: false });
  });
});
