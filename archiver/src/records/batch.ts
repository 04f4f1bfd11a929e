// The archiver decodes stored batches with the shared record-batch code
// (common/record-batch); this module names what the Parquet jobs use.
export { decodeBatch, type DecodeOptions } from '../../../common/record-batch/decode.js';
export type { RecordSink } from '../../../common/record-batch/records.js';
