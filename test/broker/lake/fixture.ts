// Real lake tables for the remote tier's tests: batches encoded as producers
// write them, turned into data files by the archiver's own Parquet encoder,
// committed to a Delta table on a local folder with the archiver's actions.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encodeDataFiles } from '../../../archiver/src/parquet/jobs.js';
import { deltaStats, DELTA_SCHEMA } from '../../../archiver/src/parquet/file-stats.js';
import { PROTOCOL } from '../../../archiver/src/commit.js';
import type { Action, AddFile } from '../../../common/lake/delta/actions.js';
import { DeltaTable } from '../../../common/lake/delta/table.js';
import { LocalStore } from '../../../common/lake/local.js';
import { encodePartitionRanges, PARTITION_RANGES_TAG, type PartitionRange } from '../../../common/lake/partition-ranges.js';
import { decodeBatch } from '../../../common/record-batch/decode.js';
import type { FetchBatch } from '../../../broker/src/storage/log-store.js';
import { encodeBatch, type EncodeRecord } from '../../helpers/encode-batch.js';

/** A record as a consumer sees it. */
export interface Rec {
  partition: number;
  offset: number;
  timestamp: number;
  timestampType: 0 | 1;
  key: string | null;
  value: string | null;
  headers: [string, string | null][];
}

export interface BatchSpec {
  partition: number;
  baseOffset: number;
  records: EncodeRecord[];
  offsetDeltas?: number[];
  logAppendTime?: boolean;
  codec?: number;
}

const dirs: string[] = [];
export function tmpLake(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'rn-lake-reader-'));
  dirs.push(d);
  return d;
}
export function removeLakes(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

const str = (b: Buffer, s: number, l: number) => (l < 0 ? null : b.toString('latin1', s, s + l));

/** Every record of the given batches (a stored batch or a rebuilt one). */
export function recordsOf(batches: Buffer[], partition: number, verifyCrc = true): Rec[] {
  const out: Rec[] = [];
  for (const b of batches) {
    decodeBatch(
      b,
      {
        record(offset, timestamp, timestampType, buf, kS, kL, vS, vL) {
          out.push({ partition, offset, timestamp, timestampType, key: str(buf, kS, kL), value: str(buf, vS, vL), headers: [] });
        },
        header(buf, kS, kL, vS, vL) {
          out[out.length - 1]!.headers.push([buf.toString('utf8', kS, kS + kL), str(buf, vS, vL)]);
        },
      },
      { verifyCrc },
    );
  }
  return out;
}

/** The records of a read's answer, CRCs checked. */
export function fetched(batches: FetchBatch[], partition: number): Rec[] {
  return recordsOf(batches.map((b) => Buffer.concat(b.pieces)), partition, true);
}

export function batchBytes(s: BatchSpec): Buffer {
  return encodeBatch(s.records, { baseOffset: s.baseOffset, offsetDeltas: s.offsetDeltas, logAppendTime: s.logAppendTime, codec: s.codec });
}

export interface DataFile {
  add: AddFile;
  records: Rec[];
}

/** Encodes `specs` into the data files the archiver would write (one per UTC date), uploaded under `<root>/<topic>/`. */
export async function writeDataFiles(root: string, topic: string, specs: BatchSpec[], o: { tags?: boolean } = {}): Promise<DataFile[]> {
  const bytes = specs.map(batchBytes);
  const meta = new Float64Array(specs.length * 2);
  specs.forEach((s, i) => meta.set([s.partition, -1], i * 2));
  const r = encodeDataFiles({ batches: bytes.map((b) => new Uint8Array(b)), meta, verifyCrc: true });
  const all = specs.flatMap((s, i) => recordsOf([bytes[i]!], s.partition));
  const store = new LocalStore(root);
  const out: DataFile[] = [];
  for (const f of r.files) {
    const add: AddFile = {
      path: `date=${f.date}/part-${randomUUID()}.zstd.parquet`,
      partitionValues: { date: f.date },
      size: f.bytes.length,
      modificationTime: Date.now(),
      dataChange: true,
      stats: deltaStats(f.stats),
    };
    const dayStart = Date.parse(`${f.date}T00:00:00Z`);
    const records = all.filter((x) => x.timestamp >= dayStart && x.timestamp < dayStart + 86_400_000);
    if (o.tags !== false) add.tags = { [PARTITION_RANGES_TAG]: encodePartitionRanges(rangesOf(records, f.bytes.length)) };
    await store.put(`${topic}/${add.path}`, f.bytes);
    out.push({ add, records });
  }
  return out;
}

/** The runnel.partitions tag value computed from a file's rows. */
export function rangesOf(records: Rec[], fileSize: number): PartitionRange[] {
  const by = new Map<number, PartitionRange>();
  const payload = (x: Rec) => (x.key?.length ?? 0) + (x.value?.length ?? 0) + x.headers.reduce((s, [k, v]) => s + k.length + (v?.length ?? 0), 0);
  const total = records.reduce((s, x) => s + payload(x), 0);
  for (const x of records) {
    const r = by.get(x.partition) ?? { partition: x.partition, minOffset: x.offset, maxOffset: x.offset, records: 0, minTimestampMs: x.timestamp, maxTimestampMs: x.timestamp, bytes: 0 };
    r.minOffset = Math.min(r.minOffset, x.offset);
    r.maxOffset = Math.max(r.maxOffset, x.offset);
    r.records++;
    r.minTimestampMs = Math.min(r.minTimestampMs, x.timestamp);
    r.maxTimestampMs = Math.max(r.maxTimestampMs, x.timestamp);
    r.bytes += total ? (fileSize * payload(x)) / total : 0;
    by.set(x.partition, r);
  }
  return [...by.values()].map((r) => ({ ...r, bytes: Math.round(r.bytes) }));
}

/** The topic's table, created with its runnel.topicId on first use. */
export async function table(root: string, topic: string, topicId: string): Promise<DeltaTable> {
  const t = new DeltaTable(new LocalStore(root), topic);
  await t.load();
  if (t.state.version < 0) {
    const header: Action[] = [
      { protocol: { ...PROTOCOL } },
      {
        metaData: {
          id: randomUUID(),
          name: topic,
          format: { provider: 'parquet', options: {} },
          schemaString: JSON.stringify(DELTA_SCHEMA),
          partitionColumns: ['date'],
          configuration: { 'runnel.topicId': topicId },
          createdTime: Date.now(),
        },
      },
    ];
    await t.commit(() => header, 'CREATE TABLE');
  }
  return t;
}

/** Commits the files as one WRITE. */
export async function commitFiles(t: DeltaTable, files: DataFile[]): Promise<void> {
  await t.commit(() => files.map((f) => ({ add: f.add })), 'WRITE');
}

/** Records with 1-byte varying payloads, a null key every 5th, a null value every 7th, headers on every 3rd. */
export function records(n: number, t0: number, o: { valueBytes?: number; step?: number } = {}): EncodeRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    key: i % 5 === 4 ? null : Buffer.from(`k${i}`),
    value: i % 7 === 6 ? null : Buffer.from(`v${i}-`.padEnd(o.valueBytes ?? 8, String.fromCharCode(97 + (i % 26)))),
    timestamp: t0 + i * (o.step ?? 1),
    headers: i % 3 === 0 ? [{ key: 'h1', value: Buffer.from(`x${i}`) }, { key: 'h2', value: null }, { key: 'h1', value: Buffer.from('dup') }] : [],
  }));
}
