// Per-file statistics and the Delta table schema: what the main thread needs to
// write commits, without loading Arrow (which only the Parquet workers use).

/** Delta schemaString (table schema incl. the partition column `date`). */
export const DELTA_SCHEMA = {
  type: 'struct',
  fields: [
    { name: 'partition', type: 'integer', nullable: false, metadata: {} },
    { name: 'offset', type: 'long', nullable: false, metadata: {} },
    { name: 'timestamp', type: 'timestamp', nullable: false, metadata: {} },
    { name: 'timestamp_type', type: 'string', nullable: false, metadata: {} },
    { name: 'key', type: 'binary', nullable: true, metadata: {} },
    { name: 'value', type: 'binary', nullable: true, metadata: {} },
    {
      name: 'headers',
      type: {
        type: 'array',
        elementType: {
          type: 'struct',
          fields: [
            { name: 'key', type: 'string', nullable: false, metadata: {} },
            { name: 'value', type: 'binary', nullable: true, metadata: {} },
          ],
        },
        containsNull: false,
      },
      nullable: true,
      metadata: {},
    },
    { name: 'date', type: 'date', nullable: true, metadata: {} },
  ],
};

export interface FileStats {
  numRecords: number;
  minPartition: number;
  maxPartition: number;
  minOffset: number;
  maxOffset: number;
  minTimestampMs: number;
  maxTimestampMs: number;
  keyNulls: number;
  valueNulls: number;
}

export function isoMs(ms: number): string {
  return new Date(ms).toISOString();
}

/** Delta `add.stats` JSON for a data file. */
export function deltaStats(s: FileStats): string {
  if (s.numRecords === 0) return JSON.stringify({ numRecords: 0 });
  return JSON.stringify({
    numRecords: s.numRecords,
    minValues: { partition: s.minPartition, offset: s.minOffset, timestamp: isoMs(s.minTimestampMs) },
    maxValues: { partition: s.maxPartition, offset: s.maxOffset, timestamp: isoMs(s.maxTimestampMs) },
    nullCount: { partition: 0, offset: 0, timestamp: 0, timestamp_type: 0, key: s.keyNulls, value: s.valueNulls },
  });
}

/** Stats of a file with no rows yet; min/max fold in as rows are added. */
export function emptyFileStats(): FileStats {
  return {
    numRecords: 0,
    minPartition: Infinity,
    maxPartition: -Infinity,
    minOffset: Infinity,
    maxOffset: -Infinity,
    minTimestampMs: Infinity,
    maxTimestampMs: -Infinity,
    keyNulls: 0,
    valueNulls: 0,
  };
}
