// Transaction markers as Kafka stores them: a control batch (attributes
// isTransactional | isControlBatch) of one record, carrying the producer id
// and epoch of the transaction and baseSequence -1 (markers have no sequence).
//   record key:   int16 version (0) | int16 type (0 = ABORT, 1 = COMMIT)
//   record value: int16 version (0) | int32 coordinatorEpoch
// Kafka's EndTransactionMarker / ControlRecordType. Consumers (read_committed)
// use the marker to stop dropping an aborted producer's batches; the archiver
// and the compaction key map skip control batches.
import { crc32c } from '@node-rs/crc32';
import { Writer } from '../protocol/writer.js';
import { Reader } from '../protocol/reader.js';
import { Attr, BATCH_HEADER_SIZE } from '../../../common/record-batch/layout.js';
import { readHeader } from '../record-batch/batch.js';

/** One transaction marker for one partition (an entry of WriteTxnMarkers). */
export interface TxnMarker {
  producerId: number;
  producerEpoch: number;
  /** true: COMMIT, false: ABORT */
  commit: boolean;
  /** The coordinator epoch of the transaction coordinator that decided the outcome (stored in the marker's value). */
  coordinatorEpoch: number;
}

export const CONTROL_TYPE_ABORT = 0;
export const CONTROL_TYPE_COMMIT = 1;

/** The control batch of `marker` (base offset and partition leader epoch are stamped at append). */
export function buildMarkerBatch(marker: TxnMarker, timestamp: number): Buffer {
  const key = Buffer.alloc(4);
  key.writeInt16BE(0, 0);
  key.writeInt16BE(marker.commit ? CONTROL_TYPE_COMMIT : CONTROL_TYPE_ABORT, 2);
  const value = Buffer.alloc(6);
  value.writeInt16BE(0, 0);
  value.writeInt32BE(marker.coordinatorEpoch, 2);
  // record: attributes, timestampDelta, offsetDelta, key, value, no headers
  const rec = Buffer.from(new Writer(32).int8(0).varlong(0).varint(0).varint(key.length).bytes(key).varint(value.length).bytes(value).varint(0).toBuffer());
  const recs = Buffer.from(new Writer(40).varint(rec.length).bytes(rec).toBuffer());
  const w = new Writer(61 + recs.length);
  w.int64(0).int32(0).int32(0).int8(2).uint32(0).int16(Attr.TRANSACTIONAL | Attr.CONTROL).int32(0)
    .int64(timestamp).int64(timestamp).int64(marker.producerId).int16(marker.producerEpoch).int32(-1).int32(1).bytes(recs);
  const out = Buffer.from(w.toBuffer());
  out.writeInt32BE(out.length - 12, 8); // batchLength: everything after the length field
  out.writeUInt32BE(crc32c(out.subarray(21)), 17); // CRC-32C over attributes..end
  return out;
}

/** Reads a marker back from its control batch (markers are never compressed); null for any other batch. */
export function decodeMarkerBatch(batch: Buffer): TxnMarker | null {
  const h = readHeader(batch);
  if (!h.isControl || !h.isTransactional || h.codec !== 0 || h.recordCount < 1) return null;
  const r = new Reader(batch, BATCH_HEADER_SIZE);
  r.varint(); // record length
  r.int8(); // attributes
  r.varlong(); // timestamp delta
  r.varint(); // offset delta
  const keyLen = r.varint();
  if (keyLen < 4) return null;
  const key = r.slice(keyLen);
  const valueLen = r.varint();
  if (valueLen < 6) return null;
  const value = r.slice(valueLen);
  const type = key.readInt16BE(2);
  if (type !== CONTROL_TYPE_ABORT && type !== CONTROL_TYPE_COMMIT) return null;
  return { producerId: h.producerId, producerEpoch: h.producerEpoch, commit: type === CONTROL_TYPE_COMMIT, coordinatorEpoch: value.readInt32BE(2) };
}
