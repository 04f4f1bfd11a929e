// Decoding the records of a stored batch into a sink (the archiver's Parquet
// writer). Same checks as validateBatch with the 'stored' rules.
import { asBuffer, decompress } from './codecs.js';
import { BATCH_HEADER_SIZE } from './layout.js';
import { walkRecords, type RecordSink } from './records.js';
import { checkBatchHeader } from './validate.js';

export interface DecodeOptions {
  /** check the CRC-32C (default true) */
  verifyCrc?: boolean;
  /** records at or below this offset are skipped (a batch straddling the archived offset) */
  skipUpTo?: number;
}

/**
 * Decodes every record of a stored batch into `sink`. Control batches hold
 * transaction markers, not data: they are checked but deliver nothing.
 * Returns the number of records delivered. Throws RecordBatchError.
 */
export function decodeBatch(bytes: Uint8Array, sink: RecordSink, opts: DecodeOptions = {}): number {
  const b = asBuffer(bytes);
  const h = checkBatchHeader(b, 'stored', opts.verifyCrc !== false);
  if (h.isControl) return 0;
  const data = decompress(h.codec, b.subarray(BATCH_HEADER_SIZE));
  return walkRecords(data, 0, data.length, h, 'increasing', sink, opts.skipUpTo ?? -1);
}
