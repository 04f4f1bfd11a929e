// Per-topic state of one archiver process: the Delta table, the buffer of stored
// batches read from the owned partitions, and each partition's read/commit positions.
import { DeltaTable, type CheckpointCodec } from '../../common/lake/delta/table.js';
import type { ObjectStore } from '../../common/lake/index.js';

export interface PartState {
  partition: number;
  /** last offset known to be committed (txn version), -1 none */
  committed: number;
  /** txn version the current buffer continues from */
  base: number;
  /** last offset read (buffered or skipped) */
  last: number;
  epoch: number;
  logEnd: number | null;
  /** [lastOffset, timestampMs] of read-but-uncommitted batches (lag in seconds) */
  pendingTs: [number, number][];
  /** true while a bad batch blocks this partition (details in `stall`) */
  stalled: boolean;
  stall?: StallInfo;
}

/** Why and since when a partition is stalled; the bad batch is re-checked with backoff. */
export interface StallInfo {
  /** internal error code, RN4003 (cannot be decoded) or RN4007 (cannot be written to the lake) */
  code: string;
  /** stream entry id of the bad batch, and its base offset */
  entryId: string;
  baseOffset: number;
  reason: string;
  since: number;
  /** when the bad batch is read and checked again (it may have been removed or the log repaired) */
  retryAt: number;
  retryMs: number;
  /** last time the stall was logged (once, then at most every STALL_LOG_EVERY_MS) */
  loggedAt: number;
}

/** Why and since when a table is stalled (table-stall.ts). */
export interface TableStall {
  /** RN4008 */
  code: string;
  /** the torn commit file, relative to the lake root */
  file: string;
  since: number;
  retryAt: number;
  retryMs: number;
  loggedAt: number;
}

export interface Buffered {
  p: number;
  /** own ArrayBuffer: transferred to the worker without another copy */
  bytes: Uint8Array;
  lastOffset: number;
  skipUpTo: number;
}

export interface TopicInfo {
  partitions: number;
  id?: string;
  /** placement salts from the record (index = partition; absent or shorter = salt 0) */
  placement?: number[];
  /** typed columns (archive.value.schema / archive.key.schema = id; docs/lake.md "Typed columns") */
  schemas?: TopicSchemas;
}

export type SchemaMode = 'none' | 'id' | 'latest';

/** Which parts of a topic's records are decoded into typed columns. */
export interface TopicSchemas {
  /** id: the Confluent wire format, by each record's schema id; latest: no prefix, the subject's latest schema */
  value: SchemaMode;
  key: SchemaMode;
}

export class TopicArchiver {
  readonly table: DeltaTable;
  loaded = false;
  readonly parts = new Map<number, PartState>();
  buf: Buffered[] = [];
  bufBytes = 0;
  bufStart = 0;
  ratio = 1;
  ratioKnown = false;
  /** moving average of stored batch size, to size XRANGE COUNT */
  avgBatch = 0;
  /** the last table job scheduled (a flush: until its commit is done); awaited by stop() */
  busy: Promise<void> | null = null;
  /** true while a flush encodes its buffer (stage 1, commit.ts prepareFlush) */
  encoding = false;
  /** flushes taken and not yet committed: at most 2 (one committing, one encoding the next buffer) */
  flushesInFlight = 0;
  /** counts resets (commit.ts resetTable): a flush encoded before a reset is dropped, not committed */
  generation = 0;
  lock: Promise<unknown> = Promise.resolve();
  lastOptimize = Date.now();
  lastVacuum = Date.now();
  sinceCheckpoint = 0;
  backoffUntil = 0;
  partitions = 0;
  /**
   * Set when the Parquet job could not decode the buffer (a batch whose CRC
   * holds but whose records do not): until the next successful commit every
   * batch of the topic is decompressed and walked when read, so the bad one
   * stalls its partition instead of failing every commit of the topic.
   */
  verifyRecords = false;
  /** partitions that had a bad batch: always checked record by record when read */
  readonly suspects = new Set<number>();
  lastDecodeFailureLog = 0;
  /** set when two runs of one flush chose different types for a new typed column: flushes then encode as one run */
  noSplit = false;
  /** set while the Delta log cannot be read past a torn commit (RN4008, table-stall.ts) */
  tableStall?: TableStall;
  constructor(readonly topic: string, store: ObjectStore, codec: CheckpointCodec) {
    this.table = new DeltaTable(store, topic, codec);
  }
  estimated() {
    return this.bufBytes * this.ratio;
  }
  /** serialize table-state operations */
  withLock<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn, fn);
    this.lock = run.catch(() => {});
    return run;
  }
}
