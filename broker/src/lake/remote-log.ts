// The remote tier of a tiered topic (storage/remote-log.ts) read from the
// archiver's Delta tables: one table per topic at `<lake>/<topic>`. The
// table view (table-view.ts) places an offset in a file without opening one;
// the file's rows become record batches in a worker thread (rebuild.ts), kept
// per (file, partition) in a cache bounded in bytes (batch-cache.ts). A
// partition's batches larger than the whole cache are kept as a window from
// the offset read on; a reader of a file has the next one
// decoded ahead of it.
//
// Every failure of the lake (unreachable, S3 errors, a listed file missing,
// corrupt Parquet, a read past readTimeoutMs) is KAFKA_STORAGE_ERROR, logged
// once per topic and cause.
import { availableParallelism } from 'node:os';
import { ErrorCode, KafkaError } from '../../../common/errors.js';
import { openLake, type ObjectStore } from '../../../common/lake/index.js';
import type { AddFile } from '../../../common/lake/delta/actions.js';
import type { PartitionRange } from '../../../common/lake/partition-ranges.js';
import type { Logger } from '../../../common/logger/logger.js';
import { decodeBatch } from '../../../common/record-batch/decode.js';
import { readInt64 } from '../../../common/record-batch/header.js';
import { At } from '../../../common/record-batch/layout.js';
import type { FetchBatch, TopicPartition } from '../storage/log-store.js';
import type { RemoteExtent, RemoteLog, RemoteSegment } from '../storage/remote-log.js';
import { BatchCache } from './batch-cache.js';
import { DecodePool } from './decode-pool.js';
import { M, META_FIELDS } from './batch-meta.js';
import type { PartBatches } from './rebuild.js';
import { sliceBatch } from './slice.js';
import { firstRunAtOrAfter, TableView, type Run } from './table-view.js';

/** Records per rebuilt batch, in bytes (Kafka's default max.message.bytes is 1 MiB). */
export const TARGET_BATCH_BYTES = 256 * 1024;
const LOG_REPEAT_MS = 60_000;

export interface LakeObservation {
  op: 'read' | 'decode';
  ms: number;
  bytes: number;
  cacheHit: boolean;
  ok: boolean;
}

export interface LakeRemoteLogOptions {
  lake: string;
  s3Endpoint?: string;
  s3ForcePathStyle?: boolean;
  s3Region?: string;
  /** bytes of rebuilt batches the cache keeps */
  cacheBytes: number;
  /** how often a table's view is brought up to date with its new commits */
  refreshIntervalMs: number;
  /** a read (or lookup) that takes longer fails with KAFKA_STORAGE_ERROR; default 15 s */
  readTimeoutMs?: number;
  logger: Logger;
  observe?: (e: LakeObservation) => void;
  /** decode worker threads; default half the cores, 1 to 4 */
  workers?: number;
  targetBatchBytes?: number;
  /** decode the next file of a partition while a reader reads the current one (default true) */
  readAhead?: boolean;
}

export interface LakeRemoteLog extends RemoteLog {
  stats(): { cacheBytes: number; cacheEntries: number };
}

/** One partition's rebuilt batches from one run of files. */
interface Part {
  partition: number;
  bytes: Buffer;
  meta: Float64Array;
  /** key, value and header bytes of its rows */
  payloadBytes: number;
  size: number;
  /** false: a window of consecutive batches of the run (windowOf) */
  complete: boolean;
}

export function openLakeRemoteLog(opts: LakeRemoteLogOptions): LakeRemoteLog {
  return new LakeTier(opts);
}

class LakeTier implements LakeRemoteLog {
  private readonly store: ObjectStore;
  private readonly pool: DecodePool;
  private readonly cache: BatchCache<Part>;
  private readonly views = new Map<string, TableView>();
  private readonly inflight = new Map<string, Promise<Map<number, Part>>>();
  private readonly logged = new Map<string, number>();
  private readonly timeoutMs: number;
  private readonly target: number;
  private readonly readAhead: boolean;
  private closed = false;

  constructor(private readonly o: LakeRemoteLogOptions) {
    // A consumer waits on these reads: fewer, shorter S3 attempts than the archiver's (10, 60 s), so a failing
    // lake reaches the client as KAFKA_STORAGE_ERROR in about a second, and a silent one within readTimeoutMs.
    this.store = openLake(o.lake, { s3Endpoint: o.s3Endpoint, s3ForcePathStyle: o.s3ForcePathStyle, s3Region: o.s3Region, s3MaxAttempts: 3, s3RequestTimeoutMs: 10_000, s3ConnectionTimeoutMs: 3_000 });
    this.timeoutMs = o.readTimeoutMs ?? 15_000;
    this.target = o.targetBatchBytes ?? TARGET_BATCH_BYTES;
    this.readAhead = o.readAhead ?? true;
    this.pool = new DecodePool(o.workers ?? Math.max(1, Math.min(4, availableParallelism() >> 1)), this.timeoutMs);
    this.cache = new BatchCache<Part>(o.cacheBytes);
  }

  stats() {
    return { cacheBytes: this.cache.bytes, cacheEntries: this.cache.size };
  }

  read(tp: TopicPartition, topicId: string, offset: number, endOffset: number, maxBytes: number): Promise<FetchBatch[]> {
    const t0 = performance.now();
    const hits = { all: true };
    return this.guard(tp.topic, () => this.withView(tp.topic, topicId, [], (v) => this.doRead(v, tp, offset, endOffset, maxBytes, hits))).then(
      (out) => {
        this.o.observe?.({ op: 'read', ms: performance.now() - t0, bytes: out.reduce((s, b) => s + b.size, 0), cacheHit: hits.all && out.length > 0, ok: true });
        return out;
      },
      (e: unknown) => {
        this.o.observe?.({ op: 'read', ms: performance.now() - t0, bytes: 0, cacheHit: false, ok: false });
        throw e;
      },
    );
  }

  private async doRead(v: TableView, tp: TopicPartition, offset: number, endOffset: number, maxBytes: number, hits: { all: boolean }): Promise<FetchBatch[]> {
    if (offset >= endOffset) return [];
    let runs = v.partition(tp.partition)?.runs ?? [];
    let i = firstRunAtOrAfter(runs, offset);
    if (i >= runs.length || runs[i]!.minOffset >= endOffset) {
      // newer commits may hold it
      await this.refresh(v, true);
      runs = v.partition(tp.partition)?.runs ?? [];
      i = firstRunAtOrAfter(runs, offset);
    }
    const out: FetchBatch[] = [];
    let total = 0;
    let from = offset;
    let done = false;
    for (; i < runs.length && !done; i++) {
      const run = runs[i]!;
      if (run.minOffset >= endOffset || (out.length > 0 && total >= maxBytes)) break;
      const part = await this.part(v, run, tp.partition, hits, from);
      const n = part.meta.length / META_FIELDS;
      let j = firstBatchAtOrAfter(part.meta, from);
      for (; j < n; j++) {
        const m = j * META_FIELDS;
        const base = part.meta[m + M.BASE]!;
        const last = part.meta[m + M.LAST]!;
        if (base >= endOffset) {
          done = true;
          break;
        }
        let bytes: Buffer | null = part.bytes.subarray(part.meta[m + M.START]!, part.meta[m + M.START]! + part.meta[m + M.SIZE]!);
        if (base < from || last >= endOffset) bytes = sliceBatch(bytes, from, endOffset);
        if (!bytes) continue;
        if (out.length > 0 && total + bytes.length > maxBytes) {
          done = true;
          break;
        }
        out.push({ baseOffset: readInt64(bytes, At.BASE_OFFSET), lastOffsetDelta: bytes.readInt32BE(At.LAST_OFFSET_DELTA), size: bytes.length, pieces: [bytes] });
        total += bytes.length;
        from = last + 1;
      }
      // a reader of a run: decode the next runs while it reads this one (decoding a run takes about five
      // times as long as serving it from the cache, so the decode starts as early as it can), as many at
      // once as the other workers and half the cache (counted in runs of this one's size) allow
      if (this.readAhead && part.complete) {
        const depth = Math.max(1, Math.min(this.pool.size - 1, Math.floor(this.cache.limit / (2 * Math.max(1, part.size)))));
        for (let k = i + 1; k <= i + depth && k < runs.length && runs[k]!.minOffset < endOffset; k++) this.prefetch(v, runs[k]!, tp.partition);
      }
      // a window of the run's batches: the rest of the run is the next read's
      if (!part.complete) break;
    }
    return out;
  }

  extent(tp: TopicPartition, topicId: string): Promise<RemoteExtent | null> {
    return this.guard(tp.topic, async () => {
      const v = await this.view(tp.topic, topicId);
      const files = v?.partition(tp.partition)?.files;
      if (!files?.length) return null;
      let start = Infinity;
      let end = -Infinity;
      let records = 0;
      let bytes = 0;
      for (const f of files) {
        start = Math.min(start, f.minOffset);
        end = Math.max(end, f.maxOffset + 1);
        records += f.records;
        bytes += f.bytes;
      }
      return { startOffset: start, endOffset: end, records, bytes };
    });
  }

  segments(tp: TopicPartition, topicId: string): Promise<RemoteSegment[]> {
    return this.guard(tp.topic, async () => {
      const v = await this.view(tp.topic, topicId);
      const files = v?.partition(tp.partition)?.files ?? [];
      return files.map((f) => ({ minOffset: f.minOffset, maxOffset: f.maxOffset, maxTimestampMs: f.maxTimestampMs, records: f.records, bytes: f.bytes }));
    });
  }

  offsetForTimestamp(tp: TopicPartition, topicId: string, timestampMs: number, endOffset: number): Promise<{ offset: number; timestamp: number } | null> {
    return this.guard(tp.topic, () => this.withView(tp.topic, topicId, null, async (v) => {
      const runs = v.partition(tp.partition)?.runs ?? [];
      for (const run of runs) {
        if (run.minOffset >= endOffset) break;
        if (run.maxTimestampMs < timestampMs) continue;
        const part = await this.part(v, run, tp.partition, { all: true }, null);
        const n = part.meta.length / META_FIELDS;
        for (let j = 0; j < n; j++) {
          const m = j * META_FIELDS;
          if (part.meta[m + M.BASE]! >= endOffset) return null;
          if (part.meta[m + M.MAX_TS]! < timestampMs) continue;
          let found: { offset: number; timestamp: number } | null = null;
          decodeBatch(
            part.bytes.subarray(part.meta[m + M.START]!, part.meta[m + M.START]! + part.meta[m + M.SIZE]!),
            {
              record(offset, ts) {
                if (found === null && offset < endOffset && ts >= timestampMs) found = { offset, timestamp: ts };
              },
              header() {},
            },
            { verifyCrc: false },
          );
          if (found) return found;
        }
      }
      return null;
    }));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.cache.clear();
    await this.pool.close();
    await this.store.close();
  }

  /**
   * `fn` on the topic's view (`empty` when the table is another topic's). A
   * data file found missing may have been compacted into another and vacuumed:
   * after a refresh that no longer lists it, `fn` runs once more.
   */
  private async withView<T>(topic: string, topicId: string, empty: T, fn: (v: TableView) => Promise<T>): Promise<T> {
    const v = await this.view(topic, topicId);
    if (!v) return empty;
    try {
      return await fn(v);
    } catch (e) {
      if (!(e instanceof MissingFile)) throw e;
      await this.refresh(v, true);
      if (v.isLive(e.path)) throw e;
      return fn(v);
    }
  }

  /** The topic's table view, up to date within refreshIntervalMs; null when the table is another topic's. */
  private async view(topic: string, topicId: string): Promise<TableView | null> {
    let v = this.views.get(topic);
    if (!v) {
      v = new TableView(
        this.store,
        topic,
        { write: () => Promise.reject(new Error('the broker writes no checkpoint')), read: (b) => this.pool.readCheckpoint(own(b)) },
        (view, f) => this.derive(view, f),
        this.pool.size,
      );
      this.views.set(topic, v);
    }
    if (!v.loaded) await this.refresh(v);
    else if (Date.now() - v.lastRefreshMs >= this.o.refreshIntervalMs) {
      // the view it has still serves what was committed: a failed periodic refresh only delays new commits
      await this.refresh(v).catch((e: unknown) => this.logOnce(`${topic}:refresh`, 'lake table refresh failed; reading the last view', { topic, err: (e as Error).message }));
    }
    const id = v.topicId;
    if (id !== undefined && id !== topicId) {
      this.logOnce(`${topic}:topicId`, 'lake table belongs to another topic id: it holds nothing for this topic', { topic, topicId, tableTopicId: id });
      return null;
    }
    return v;
  }

  /** Brings the view up to date (with a refresh begun after the call: `startAfterNow`) and drops the cached batches of files no longer in the table. */
  private async refresh(v: TableView, startAfterNow = false): Promise<void> {
    await (startAfterNow ? v.refreshNow() : v.refresh());
    const prefix = `${v.topic}\0`;
    this.cache.prune((k) => k.startsWith(prefix) && k.slice(prefix.length, k.lastIndexOf('#')).split('\n').some((p) => !v.isLive(p)));
  }

  private cacheKey(v: TableView, runKey: string, p: number | '*'): string {
    return `${v.topic}\0${runKey}#${p}`;
  }

  /** Starts decoding the run a sequential reader reaches next, unless cached or under way. */
  private prefetch(v: TableView, run: Run, p: number): void {
    const key = this.cacheKey(v, run.key, p);
    if (this.cache.peek(key) || this.inflight.has(key) || this.inflight.has(this.cacheKey(v, run.key, '*'))) return;
    this.part(v, run, p, { all: true }, run.minOffset).catch(() => {});
  }

  /**
   * Partition `p`'s batches from `run` that hold `from` (null: the whole run):
   * from the cache, a decode under way, or a new decode.
   */
  private async part(v: TableView, run: Run, p: number, hits: { all: boolean }, from: number | null): Promise<Part> {
    const key = this.cacheKey(v, run.key, p);
    const cached = this.cache.get(key);
    if (cached && covers(cached, from)) return cached;
    hits.all = false;
    const allKey = this.cacheKey(v, run.key, '*');
    const shared = this.inflight.get(allKey) ?? this.inflight.get(key);
    if (shared) {
      const got = (await shared).get(p);
      if (got && covers(got, from)) return got;
    }
    // one file the cache can likely hold whole: rebuild all its partitions at once (their readers come next)
    const f = run.paths.length === 1 ? v.table.state.files.get(run.paths[0]!) : undefined;
    const all = f !== undefined && f.size * 4 <= this.cache.limit;
    const jobKey = all ? allKey : key;
    const job = this.decode(v, run.paths, all ? -1 : p)
      .then((parts) => {
        const m = new Map<number, Part>();
        for (const part of parts) {
          m.set(part.partition, part);
          // larger than the whole cache: keep the window a sequential reader needs next
          if (part.partition === p) this.cache.set(key, part.size > this.cache.limit ? windowOf(part, from ?? run.minOffset, this.cache.limit >> 1) : part);
          else if (sameRun(v, part.partition, run.key)) this.cache.set(this.cacheKey(v, run.key, part.partition), part);
        }
        return m;
      })
      .finally(() => this.inflight.delete(jobKey));
    this.inflight.set(jobKey, job);
    return (await job).get(p) ?? { partition: p, bytes: Buffer.alloc(0), meta: new Float64Array(0), payloadBytes: 0, size: 0, complete: true };
  }

  /** Reads data files and rebuilds their batches in a worker. */
  private async decode(v: TableView, paths: string[], p: number): Promise<Part[]> {
    const t0 = performance.now();
    let bytes = 0;
    try {
      const files = await Promise.all(
        paths.map(async (path) => {
          const b = await v.store.get(v.fileKey(path));
          if (!b) throw new MissingFile(path, v.fileKey(path));
          bytes += b.length;
          return own(b);
        }),
      );
      const parts = await this.pool.rebuild({ files, partition: p, targetBatchBytes: this.target });
      this.o.observe?.({ op: 'decode', ms: performance.now() - t0, bytes, cacheHit: false, ok: true });
      return parts.map(toPart);
    } catch (e) {
      this.o.observe?.({ op: 'decode', ms: performance.now() - t0, bytes, cacheHit: false, ok: false });
      if (e instanceof KafkaError) throw e;
      throw new KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, `lake data file ${paths.map((x) => v.fileKey(x)).join(', ')} cannot be decoded: ${(e as Error).message}`);
    }
  }

  /** The ranges of a file whose add states none: decoded once, its batches cached on the way. */
  private async derive(v: TableView, f: AddFile): Promise<PartitionRange[]> {
    const parts = await this.decode(v, [f.path], -1);
    let payload = 0;
    for (const part of parts) payload += partPayload(part);
    return parts.map((part) => {
      this.cache.set(this.cacheKey(v, f.path, part.partition), part);
      const n = part.meta.length / META_FIELDS;
      let records = 0;
      let minTs = Infinity;
      let maxTs = -Infinity;
      for (let j = 0; j < n; j++) {
        records += part.meta[j * META_FIELDS + M.COUNT]!;
        minTs = Math.min(minTs, part.meta[j * META_FIELDS + M.MIN_TS]!);
        maxTs = Math.max(maxTs, part.meta[j * META_FIELDS + M.MAX_TS]!);
      }
      return {
        partition: part.partition,
        minOffset: part.meta[M.BASE]!,
        maxOffset: part.meta[(n - 1) * META_FIELDS + M.LAST]!,
        records,
        minTimestampMs: minTs,
        maxTimestampMs: maxTs,
        bytes: payload > 0 ? Math.round((f.size * partPayload(part)) / payload) : 0,
      };
    });
  }

  /** Runs `fn` within the read timeout; any failure becomes KAFKA_STORAGE_ERROR, logged once. */
  private guard<T>(topic: string, fn: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, 'lake reader closed'));
    return new Promise<T>((resolve, reject) => {
      const fail = (e: unknown) => {
        const err = e instanceof KafkaError ? e : new KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, `lake read failed: ${(e as Error)?.message ?? String(e)}`);
        this.logOnce(`${topic}:${err.message}`, 'lake read failed', { topic, err: err.message });
        reject(err);
      };
      const timer = setTimeout(() => fail(new KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, `lake read of ${topic} ran past ${this.timeoutMs} ms`)), this.timeoutMs);
      fn().then(
        (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        (e: unknown) => {
          clearTimeout(timer);
          fail(e);
        },
      );
    });
  }

  private logOnce(key: string, msg: string, fields: Record<string, unknown>): void {
    const now = Date.now();
    if (now - (this.logged.get(key) ?? -Infinity) < LOG_REPEAT_MS) return;
    this.logged.set(key, now);
    if (this.logged.size > 10_000) this.logged.clear();
    this.o.logger.warn(msg, fields);
  }
}

/** A data file the table lists but the store does not have. */
class MissingFile extends KafkaError {
  constructor(
    readonly path: string,
    key: string,
  ) {
    super(ErrorCode.KAFKA_STORAGE_ERROR, `lake data file ${key} is listed in the Delta log but missing`);
  }
}

/** Whether partition `p`'s run in the view is exactly `runKey` (one file decoded for all its partitions). */
function sameRun(v: TableView, p: number, runKey: string): boolean {
  return v.partition(p)?.runs.some((r) => r.key === runKey) ?? false;
}

/** Index of the first batch whose last offset >= offset. */
function firstBatchAtOrAfter(meta: Float64Array, offset: number): number {
  let lo = 0;
  let hi = meta.length / META_FIELDS;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (meta[mid * META_FIELDS + M.LAST]! < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether `part` holds the batches a read from `from` needs (null: all of them). */
function covers(part: Part, from: number | null): boolean {
  if (part.complete) return true;
  const n = part.meta.length / META_FIELDS;
  return from !== null && n > 0 && from >= part.meta[M.BASE]! && from <= part.meta[(n - 1) * META_FIELDS + M.LAST]!;
}

/** The batches of `part` from the one holding `from` on, within `bytes` (at least one), copied out of the whole. */
function windowOf(part: Part, from: number, bytes: number): Part {
  const n = part.meta.length / META_FIELDS;
  const j0 = Math.min(firstBatchAtOrAfter(part.meta, from), Math.max(0, n - 1));
  let j1 = j0;
  const start = part.meta[j0 * META_FIELDS + M.START] ?? 0;
  while (j1 < n && (j1 === j0 || part.meta[j1 * META_FIELDS + M.START]! + part.meta[j1 * META_FIELDS + M.SIZE]! - start <= bytes)) j1++;
  const meta = part.meta.slice(j0 * META_FIELDS, j1 * META_FIELDS);
  for (let j = 0; j < j1 - j0; j++) meta[j * META_FIELDS + M.START]! -= start;
  const end = j1 > j0 ? part.meta[(j1 - 1) * META_FIELDS + M.START]! + part.meta[(j1 - 1) * META_FIELDS + M.SIZE]! : start;
  const win = Buffer.from(part.bytes.subarray(start, end));
  return { partition: part.partition, bytes: win, meta, payloadBytes: 0, size: win.length + meta.byteLength, complete: j0 === 0 && j1 === n };
}

function toPart(p: PartBatches): Part {
  const bytes = Buffer.from(p.bytes.buffer, p.bytes.byteOffset, p.bytes.byteLength);
  return { partition: p.partition, bytes, meta: p.meta, payloadBytes: p.payloadBytes, size: bytes.length + p.meta.byteLength, complete: true };
}

function partPayload(p: Part): number {
  return p.payloadBytes;
}

/** `b` in an ArrayBuffer of its own (a transfer detaches the whole buffer; pooled Buffers share theirs). */
function own(b: Uint8Array): Uint8Array {
  if (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength && b.buffer instanceof ArrayBuffer) return b;
  const c = new Uint8Array(b.byteLength);
  c.set(b);
  return c;
}
