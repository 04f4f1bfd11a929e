// CPU-heavy work (decompress, decode, Parquet encode/decode) as pure functions.
// They run inside worker_threads (see pool.ts); tests may call them inline.
import * as arrow from 'apache-arrow';
import * as pq from 'parquet-wasm';
import { decodeBatch } from '../../../common/record-batch/decode.js';
import { ColumnSet, DATA_SCHEMA, DateSplitter, dayString, DAY_MS } from './columns.js';
import { emptyFileStats, type FileStats } from './file-stats.js';
import { PartitionStats, resharedRanges } from './partition-stats.js';
import { mergePartitionRanges, type PartitionRange } from '../../../common/lake/partition-ranges.js';

export interface EncodeJob {
  /** stored batches, each in its own (transferable) ArrayBuffer */
  batches: Uint8Array[];
  /** per batch: [partition, skipUpTo] */
  meta: Float64Array;
  verifyCrc: boolean;
}

export interface EncodedFile {
  date: string;
  bytes: Uint8Array;
  stats: FileStats;
  /** what the file holds of each Kafka partition (the `runnel.partitions` tag) */
  ranges: PartitionRange[];
}

export interface EncodeResult {
  files: EncodedFile[];
  records: number;
}

/**
 * ZSTD at parquet-rs's default level (1; parquet-wasm 0.8 exposes no level setting).
 * Page statistics everywhere except `key` and `value`: min/max of opaque payloads
 * prune nothing, and computing them cost ~5% of the Parquet write
 * (bench/archiver/README.md). Delta's `add.stats` do not use them.
 */
export function writerProps(): pq.WriterProperties {
  return new pq.WriterPropertiesBuilder()
    .setCompression(pq.Compression.ZSTD)
    .setStatisticsEnabled(pq.EnabledStatistics.Page)
    .setColumnStatisticsEnabled('key', pq.EnabledStatistics.None)
    .setColumnStatisticsEnabled('value', pq.EnabledStatistics.None)
    .setCreatedBy('runnel-archiver')
    .setColumnDictionaryEnabled('key', false)
    .setColumnDictionaryEnabled('value', false)
    .setColumnDictionaryEnabled('offset', false)
    .setColumnDictionaryEnabled('timestamp', false)
    .build();
}

export function writeParquet(table: arrow.Table): Uint8Array {
  const ipc = arrow.tableToIPC(table, 'stream');
  const wt = pq.Table.fromIPCStream(ipc);
  return pq.writeParquet(wt, writerProps());
}

export function encodeDataFiles(job: EncodeJob): EncodeResult {
  const total = job.batches.reduce((s, b) => s + b.byteLength, 0);
  const splitter = new DateSplitter(Math.min(Math.ceil(total * 1.25), 512 * 1024 * 1024));
  let records = 0;
  job.batches.forEach((b, i) => {
    splitter.partition = job.meta[i * 2]!;
    records += decodeBatch(Buffer.from(b.buffer, b.byteOffset, b.byteLength), splitter, {
      verifyCrc: job.verifyCrc,
      skipUpTo: job.meta[i * 2 + 1]!,
    });
  });
  const files: EncodedFile[] = [];
  for (const [day, sets] of [...splitter.byDay.entries()].sort((a, b) => a[0] - b[0])) {
    for (const cs of sets) {
      if (cs.n === 0) continue;
      const bytes = writeParquet(new arrow.Table([cs.toRecordBatch()]));
      files.push({ date: dayString(day), bytes, stats: cs.stats, ranges: cs.parts.ranges(bytes.length) });
    }
  }
  return { files, records };
}

export function readParquetTable(bytes: Uint8Array): arrow.Table {
  const t = pq.readParquet(bytes);
  return arrow.tableFromIPC(t.intoIPCStream());
}

export interface CompactJob {
  files: Uint8Array[];
  /** per input file, its `runnel.partitions` ranges, or null where it has none (a file written before the tag) */
  ranges?: (PartitionRange[] | null)[];
}

export interface CompactResult {
  bytes: Uint8Array;
  stats: FileStats;
  ranges: PartitionRange[];
}

/** Byte length of element i of a binary/utf8 column (0 when null). */
const binLen = (d: arrow.Data, i: number) => d.valueOffsets[d.offset + i + 1]! - d.valueOffsets[d.offset + i]!;

/**
 * Merge several data files of one date partition into one file (row order kept).
 * The merged file's ranges are the inputs' merged when every input has them,
 * otherwise computed from the rows in the same walk as the stats.
 */
export function compactFiles(job: CompactJob): CompactResult {
  const batches: arrow.RecordBatch[] = [];
  const stats: FileStats = emptyFileStats();
  const inputRanges = job.ranges && job.ranges.length === job.files.length && job.ranges.every((r) => r !== null) ? job.ranges : null;
  const parts = inputRanges ? null : new PartitionStats();
  for (const f of job.files) {
    const t = readParquetTable(f);
    for (const b of t.batches) {
      // re-wrap with our canonical schema (drops reader-added metadata)
      const rb = new arrow.RecordBatch(DATA_SCHEMA, arrow.makeData({ type: new arrow.Struct(DATA_SCHEMA.fields), length: b.numRows, nullCount: 0, children: b.data.children }));
      batches.push(rb);
      const n = b.numRows;
      stats.numRecords += n;
      const [pd, od, td, , kd, vd, hd] = b.data.children as arrow.Data[];
      const part = pd!.values as Int32Array;
      const off = od!.values as BigInt64Array;
      const ts = td!.values as BigInt64Array;
      const po = pd!.offset;
      const oo = od!.offset;
      const to = td!.offset;
      // headers: list offsets into a struct<key, value> whose children hold the bytes
      const hk = hd!.children[0]!.children[0]!;
      const hv = hd!.children[0]!.children[1]!;
      for (let i = 0; i < n; i++) {
        const p = part[po + i]!;
        const o = Number(off[oo + i]!);
        const t2 = Number(ts[to + i]! / 1000n);
        if (p < stats.minPartition) stats.minPartition = p;
        if (p > stats.maxPartition) stats.maxPartition = p;
        if (o < stats.minOffset) stats.minOffset = o;
        if (o > stats.maxOffset) stats.maxOffset = o;
        if (t2 < stats.minTimestampMs) stats.minTimestampMs = t2;
        if (t2 > stats.maxTimestampMs) stats.maxTimestampMs = t2;
        if (parts) {
          const lo = hd!.valueOffsets[hd!.offset + i]!;
          const hi = hd!.valueOffsets[hd!.offset + i + 1]!;
          let payload = binLen(kd!, i) + binLen(vd!, i);
          if (hi > lo) {
            payload += hk.valueOffsets[hk.offset + hi]! - hk.valueOffsets[hk.offset + lo]!;
            payload += hv.valueOffsets[hv.offset + hi]! - hv.valueOffsets[hv.offset + lo]!;
          }
          parts.row(p, o, t2, payload);
        }
      }
      stats.keyNulls += kd!.nullCount;
      stats.valueNulls += vd!.nullCount;
    }
  }
  const bytes = writeParquet(new arrow.Table(DATA_SCHEMA, batches));
  const ranges = inputRanges ? resharedRanges(mergePartitionRanges(inputRanges as PartitionRange[][]), bytes.length) : parts!.ranges(bytes.length);
  return { bytes, stats, ranges };
}

export { ColumnSet, DAY_MS };
