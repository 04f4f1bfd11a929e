// The records of a rebuilt batch with offsets in [from, to), as a batch of
// their own that starts at the first of them: a Fetch from an offset inside a
// batch gets no record below it. Only the first and the last batch of a read
// are cut, so the cost is bounded by one batch.
import { decodeBatch } from '../../../common/record-batch/decode.js';
import { RecordsWriter, writeBatchHeader } from '../../../common/record-batch/encode.js';
import { writeCrc } from '../../../common/record-batch/header.js';
import { Attr, BATCH_HEADER_SIZE } from '../../../common/record-batch/layout.js';
import type { RecordSink } from '../../../common/record-batch/records.js';

/** The cut batch, null when no record of `batch` is in [from, to). */
export function sliceBatch(batch: Buffer, from: number, to: number): Buffer | null {
  const w = new RecordsWriter(batch.length);
  const start = w.skip(BATCH_HEADER_SIZE);
  let base = -1;
  let baseTs = 0;
  let maxTs = 0;
  let last = 0;
  let lat = false;
  let open = 0;
  let skipping = false;
  const sink: RecordSink = {
    record(offset, ts, tsType, buf, kS, kL, vS, vL, headerCount) {
      skipping = offset >= to;
      if (skipping) return;
      if (base < 0) {
        base = offset;
        baseTs = ts;
        maxTs = ts;
        lat = tsType === 1;
      }
      if (ts > maxTs) maxTs = ts;
      last = offset;
      w.beginRecord(lat ? 0 : ts - baseTs, offset - base, kL < 0 ? null : buf, kS, kL, vL < 0 ? null : buf, vS, vL, headerCount);
      open = headerCount;
      if (open === 0) w.endRecord();
    },
    header(buf, kS, kL, vS, vL) {
      if (skipping) return;
      w.field(buf, kS, kL);
      w.field(buf, vS, vL);
      if (--open === 0) w.endRecord();
    },
  };
  decodeBatch(batch, sink, { verifyCrc: false, skipUpTo: from - 1 });
  if (base < 0) return null;
  const b = Buffer.from(w.buf.subarray(start, w.pos));
  writeBatchHeader(b, { baseOffset: base, lastOffsetDelta: last - base, baseTimestamp: baseTs, maxTimestamp: maxTs, recordCount: w.count, attributes: lat ? Attr.LOG_APPEND_TIME : 0 }, b.length - BATCH_HEADER_SIZE);
  writeCrc(b);
  return b;
}
