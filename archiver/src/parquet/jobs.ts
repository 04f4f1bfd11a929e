// CPU-heavy work (decompress, decode, Parquet encode/decode) as pure functions.
// They run inside worker_threads (see pool.ts); tests may call them inline.
import * as arrow from 'apache-arrow';
import * as pq from 'parquet-wasm';
import { decodeBatch } from '../../../common/record-batch/decode.js';
import { ColumnSet, DATA_SCHEMA, DateSplitter, dayString, DAY_MS } from './columns.js';
import { emptyFileStats, type FileStats } from './file-stats.js';
import { PartitionStats, resharedRanges } from './partition-stats.js';
import { mergePartitionRanges, type PartitionRange } from '../../../common/lake/partition-ranges.js';
import { ensureSchemas, typedColumns, type RawColumn, type SchemaLookup, type TypedSpec } from '../schemas/typed.js';
import type { DeltaField } from '../schemas/avro-arrow.js';

export interface EncodeJob {
  /** stored batches, each in its own (transferable) ArrayBuffer */
  batches: Uint8Array[];
  /** per batch: [partition, skipUpTo] */
  meta: Float64Array;
  verifyCrc: boolean;
  /** typed columns (archive.value.schema / archive.key.schema = id): see schemas/typed.ts */
  typed?: TypedSpec;
}

export interface EncodedFile {
  date: string;
  bytes: Uint8Array;
  stats: FileStats;
  /** what the file holds of each Kafka partition (the `runnel.partitions` tag) */
  ranges: PartitionRange[];
  /** typed files: the Delta fields of their typed columns (decode_error last) */
  typed?: DeltaField[];
}

export interface EncodeResult {
  files: EncodedFile[];
  records: number;
  /** typed jobs: records whose value or key did not decode, by `part:reason` */
  decodeErrors?: Record<string, number>;
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

/**
 * Files with typed columns (schemas/typed.ts): no dictionary encoding except on the
 * low-cardinality raw columns. On typed fields (ids, prices, times, free text) the
 * dictionary mostly overflows and falls back: measured on 100 B Avro orders it cost
 * a third of the Parquet write and made the file 25% larger
 * (bench/archiver/typed-micro.mjs). Page statistics stay (typed columns prune).
 */
export function typedWriterProps(): pq.WriterProperties {
  return new pq.WriterPropertiesBuilder()
    .setCompression(pq.Compression.ZSTD)
    .setStatisticsEnabled(pq.EnabledStatistics.Page)
    .setColumnStatisticsEnabled('key', pq.EnabledStatistics.None)
    .setColumnStatisticsEnabled('value', pq.EnabledStatistics.None)
    .setCreatedBy('runnel-archiver')
    .setDictionaryEnabled(false)
    .setColumnDictionaryEnabled('partition', true)
    .setColumnDictionaryEnabled('timestamp_type', true)
    .build();
}

export function writeParquet(table: arrow.Table, props: pq.WriterProperties = writerProps()): Uint8Array {
  const ipc = arrow.tableToIPC(table, 'stream');
  const wt = pq.Table.fromIPCStream(ipc);
  return pq.writeParquet(wt, props);
}

function decodeJob(job: EncodeJob): { splitter: DateSplitter; records: number } {
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
  return { splitter, records };
}

/** Column sets in file order: by day, then as filled. */
function fileSets(splitter: DateSplitter): [number, ColumnSet][] {
  const out: [number, ColumnSet][] = [];
  for (const [day, sets] of [...splitter.byDay.entries()].sort((a, b) => a[0] - b[0])) for (const cs of sets) if (cs.n > 0) out.push([day, cs]);
  return out;
}

export function encodeDataFiles(job: EncodeJob): EncodeResult {
  const { splitter, records } = decodeJob(job);
  const files: EncodedFile[] = fileSets(splitter).map(([day, cs]) => {
    const bytes = writeParquet(new arrow.Table([cs.toRecordBatch()]));
    return { date: dayString(day), bytes, stats: cs.stats, ranges: cs.parts.ranges(bytes.length) };
  });
  return { files, records };
}

const raw = (c: ColumnSet['value']): RawColumn => ({ buf: c.data.buf, offsets: c.offsets, valid: c.valid, n: c.n });

/**
 * A job of a topic with typed columns: the raw columns as encodeDataFiles writes
 * them, plus the typed ones (schemas/typed.ts). Schemas this thread has not
 * compiled yet are asked for through `lookup` (the main thread's cached registry
 * reader), once per job.
 */
export async function encodeTypedFiles(job: EncodeJob, lookup: SchemaLookup): Promise<EncodeResult> {
  const spec = job.typed!;
  const { splitter, records } = decodeJob(job);
  const sets = fileSets(splitter);
  const cols: RawColumn[] = [];
  for (const [, cs] of sets) {
    if (spec.value === 'id') cols.push(raw(cs.value));
    if (spec.key === 'id') cols.push(raw(cs.key));
  }
  await ensureSchemas(cols, lookup, [spec.value, spec.key].filter((m): m is number => typeof m === 'number'));
  const decodeErrors: Record<string, number> = {};
  const files: EncodedFile[] = sets.map(([day, cs]) => {
    const base = cs.toRecordBatch();
    const t = typedColumns(spec, raw(cs.value), raw(cs.key));
    for (const [k, v] of Object.entries(t.errors)) decodeErrors[k] = (decodeErrors[k] ?? 0) + v;
    const schema = new arrow.Schema([...DATA_SCHEMA.fields, ...t.fields]);
    const struct = arrow.makeData({ type: new arrow.Struct(schema.fields), length: cs.n, nullCount: 0, children: [...base.data.children, ...t.data] });
    const bytes = writeParquet(new arrow.Table([new arrow.RecordBatch(schema, struct)]), typedWriterProps());
    return { date: dayString(day), bytes, stats: cs.stats, ranges: cs.parts.ranges(bytes.length), typed: t.delta };
  });
  return { files, records, decodeErrors };
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

/** A column of `n` nulls. */
function nullData(type: arrow.DataType, n: number): arrow.Data {
  const b = arrow.makeBuilder({ type, nullValues: [null] });
  for (let i = 0; i < n; i++) b.append(null);
  return b.finish().flush();
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
  const tables = job.files.map(readParquetTable);
  // typed columns (schemas/typed.ts): the union of the inputs' columns, in first-seen
  // order after the raw ones; a file written before a column existed reads null for it
  const extra = new Map<string, arrow.Field>();
  for (const t of tables) for (const f of t.schema.fields) if (!DATA_SCHEMA.fields.some((d) => d.name === f.name) && !extra.has(f.name)) extra.set(f.name, new arrow.Field(f.name, f.type, true));
  const schema = extra.size ? new arrow.Schema([...DATA_SCHEMA.fields, ...extra.values()]) : DATA_SCHEMA;
  for (const t of tables) {
    for (const b of t.batches) {
      // re-wrap with our canonical schema (drops reader-added metadata)
      const base = DATA_SCHEMA.fields.map((f) => b.getChild(f.name)!.data[0]!);
      const typed = [...extra.values()].map((f) => b.getChild(f.name)?.data[0] ?? nullData(f.type, b.numRows));
      const rb = new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: b.numRows, nullCount: 0, children: [...base, ...typed] }));
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
  const bytes = writeParquet(new arrow.Table(schema, batches), extra.size ? typedWriterProps() : writerProps());
  const ranges = inputRanges ? resharedRanges(mergePartitionRanges(inputRanges as PartitionRange[][]), bytes.length) : parts!.ranges(bytes.length);
  return { bytes, stats, ranges };
}

export { ColumnSet, DAY_MS };
