// Kafka RecordBatch (magic v2) wire layout: the facts every reader of stored or
// produced batches shares (broker produce validation, fetch-side helpers, the
// archiver's decoder).
//
//   baseOffset int64 | batchLength int32 | partitionLeaderEpoch int32 | magic int8
//   | crc uint32 (CRC-32C of everything from attributes to the end)
//   | attributes int16 | lastOffsetDelta int32 | baseTimestamp int64 | maxTimestamp int64
//   | producerId int64 | producerEpoch int16 | baseSequence int32 | recordCount int32 | records
//
// attributes: bits 0-2 compression codec, bit 3 timestampType (1 = LogAppendTime),
// bit 4 isTransactional, bit 5 isControlBatch, bit 6 hasDeleteHorizonMs.

/** Bytes before the records section (the 12-byte offset+length prefix included). */
export const BATCH_HEADER_SIZE = 61;
/** baseOffset and batchLength precede what batchLength counts. */
export const LOG_OVERHEAD = 12;

export const At = {
  BASE_OFFSET: 0,
  LENGTH: 8,
  PARTITION_LEADER_EPOCH: 12,
  MAGIC: 16,
  CRC: 17,
  ATTRIBUTES: 21,
  LAST_OFFSET_DELTA: 23,
  BASE_TIMESTAMP: 27,
  MAX_TIMESTAMP: 35,
  PRODUCER_ID: 43,
  PRODUCER_EPOCH: 51,
  BASE_SEQUENCE: 53,
  RECORD_COUNT: 57,
} as const;

export const Attr = {
  CODEC_MASK: 0x07,
  LOG_APPEND_TIME: 0x08,
  TRANSACTIONAL: 0x10,
  CONTROL: 0x20,
  DELETE_HORIZON: 0x40,
} as const;

/** Compression codec ids (attributes bits 0-2); 5..7 are unassigned. */
export const Codec = { NONE: 0, GZIP: 1, SNAPPY: 2, LZ4: 3, ZSTD: 4 } as const;
export type CodecId = (typeof Codec)[keyof typeof Codec];
export const CODEC_NAMES = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
