// Committing a topic buffer: encode to Parquet in the worker pool, upload, then
// one Delta commit (put-if-absent) with the data files and one `txn` action per
// source partition (appId `runnel/<topic>/<partition>`, version = last archived offset).
//
// Exactly-once does not rely on the leases: a commit is only made if, in the
// table state just before it, each of its partitions' txn version is still the
// one its batches continue from. Otherwise the commit is abandoned and the
// partition restarts from the txn version in the log.
import { randomUUID } from 'node:crypto';
import { RunnelError } from '../../common/errors.js';
import { luaSource } from '../../common/redis/lua.js';
import type { ArchiverContext } from './context.js';
import { crashPoint } from './crash-points.js';
import type { Action, AddFile } from '../../common/lake/delta/actions.js';
import { appIdOf } from './keys.js';
import { DELTA_SCHEMA, deltaStats } from './parquet/file-stats.js';
import type { EncodedFile, EncodeJob } from './parquet/jobs.js';
import { splitRuns } from './parquet/split.js';
import { withPartitionRanges } from './parquet/partition-stats.js';
import { TornCommit } from '../../common/lake/delta/torn.js';
import { clearTableStall, stallTable } from './table-stall.js';
import type { Buffered, PartState, TopicArchiver, TopicSchemas } from './topic-state.js';
import { mergeTypedColumns, tableTypedColumns, TypedColumnConflict } from './schemas/table-schema.js';
import { SchemaLookupError } from './schemas/registry.js';
import type { PartMode, TypedSpec } from './schemas/typed.js';

export const PROTOCOL = { minReaderVersion: 1, minWriterVersion: 2 } as const;

const LUA = new URL('./lua/', import.meta.url);
const PUBLISH_ARCHIVED = luaSource(LUA, 'publish-archived');

/**
 * Raise each partition's `archived` watermark in Redis to `v` (never lowers it).
 * One script per partition: each touches only its partition's meta key, so on a
 * Redis Cluster it runs on that partition's shard. All are sent at once; every
 * one is tried, and the first failure is then thrown.
 */
export async function publishArchived(ctx: ArchiverContext, topic: string, items: { p: number; v: number }[]) {
  const r = await Promise.allSettled(items.map(async (it) => ctx.redis.eval(PUBLISH_ARCHIVED, 1, ctx.keys.meta(topic, it.p), String(it.v))));
  const failed = r.find((x): x is PromiseRejectedResult => x.status === 'rejected');
  if (failed) throw failed.reason;
}

const PUBLISH_LAKE_TABLE = luaSource(LUA, 'publish-lake-table');

/**
 * Publishes the summary of the topic's Delta table (version, live files and
 * their bytes, last commit time) to `<prefix>:lake-tables`, where the broker's
 * web console reads it. One key, one script: Redis Cluster safe. A summary of
 * an older version never replaces a newer one.
 */
export async function publishTable(ctx: ArchiverContext, t: TopicArchiver): Promise<void> {
  const st = t.table.state;
  if (st.version < 0) return;
  let bytes = 0;
  let newestFile = 0;
  for (const f of st.files.values()) {
    bytes += f.size;
    newestFile = Math.max(newestFile, f.modificationTime);
  }
  const summary = {
    version: st.version, files: st.files.size, bytes, lastCommitMs: st.lastCommitMs ?? newestFile,
    table: `${ctx.store.url.replace(/\/+$/, '')}/${t.topic}`,
  };
  await ctx.redis.eval(PUBLISH_LAKE_TABLE, 1, ctx.keys.lakeTables(), t.topic, String(st.version), JSON.stringify(summary));
}

/** Drop the buffer and restart every partition from its txn version in the table log. */
async function resetTable(ctx: ArchiverContext, t: TopicArchiver) {
  let failure: unknown = null;
  try {
    await t.table.update();
  } catch {
    t.loaded = false;
    try {
      await t.table.load();
      t.loaded = true;
    } catch (e) {
      failure = e;
    }
  }
  // One synchronous step after the table read: no XRANGE reply is buffered between
  // dropping the buffer and moving the positions back (replies read before carry an old epoch).
  t.buf = [];
  t.bufBytes = 0;
  t.bufStart = 0;
  t.generation++; // flushes encoded from earlier buffers are not committed (finishFlush)
  if (failure !== null) throw failure; // the lake is away: the next commit's txn check finds the positions
  for (const ps of t.parts.values()) {
    const v = t.table.state.txns.get(appIdOf(t.topic, ps.partition))?.version ?? -1;
    ps.committed = ps.base = ps.last = v;
    ps.pendingTs = [];
    ps.epoch++;
  }
}

/** A flush whose data files are encoded, waiting for its turn to upload and commit. */
export interface PreparedFlush {
  adv: { ps: PartState; base: number; last: number }[];
  /** the topic's reset generation when the buffer was taken */
  generation: number;
  storedBytes: number;
  records: number;
  files: EncodedFile[];
  encodeMs: number;
  /** the encode failed: handled (under the table lock) by finishFlush */
  error?: UndecodableBuffer | SchemaLookupError;
  /** typed columns: records whose value or key did not decode, by `part:reason` */
  decodeErrors: Record<string, number>;
}

/** Write what `t` has buffered as data files and commit them with the partitions' new txn versions (caller holds the table lock). */
export async function flush(ctx: ArchiverContext, t: TopicArchiver): Promise<void> {
  const prepared = await prepareFlush(ctx, t);
  if (prepared) await finishFlush(ctx, t, prepared);
}

/**
 * Stage 1, without the table lock: take the buffer, advance each partition's
 * `base` to what it holds, and encode it in the workers (large buffers as
 * parallel runs, parquet/split.ts). The archiver starts the next flush's
 * stage 1 while this one uploads and commits; commits stay in buffer order
 * because each queues on the table lock when its encode is done.
 */
export async function prepareFlush(ctx: ArchiverContext, t: TopicArchiver): Promise<PreparedFlush | null> {
  const batches = t.buf;
  const storedBytes = t.bufBytes;
  t.buf = [];
  t.bufBytes = 0;
  t.bufStart = 0;
  const adv: { ps: PartState; base: number; last: number }[] = [];
  for (const ps of t.parts.values()) {
    if (ps.last > ps.base) {
      adv.push({ ps, base: ps.base, last: ps.last });
      ps.base = ps.last;
    }
  }
  if (!adv.length) return null;
  const t0 = performance.now();
  const prepared: PreparedFlush = { adv, generation: t.generation, storedBytes, records: 0, files: [], encodeMs: 0, decodeErrors: {} };
  if (batches.length) {
    // typed columns (schemas/typed.ts): the job learns the table's typed columns, and asks for schemas through the cached reader
    try {
      const schemas = ctx.topicSchemas?.(t.topic);
      // inside the try: a registry read that fails is this flush's error (finishFlush resets the positions)
      const typed: TypedSpec | undefined = schemas && ctx.registry ? await typedSpec(ctx, t, schemas) : undefined;
      const lookup = typed ? (ids: number[]) => ctx.registry!.lookup(ids) : undefined;
      // large buffers encode as several runs at once, one per worker (parquet/split.ts)
      const runs = t.noSplit && typed ? [batches] : splitRuns(batches, ctx.pool.size, ctx.config.splitMinBytes);
      // CRC verified when read; a failure here is the records themselves (or the worker), not the lake
      const encoded = await Promise.all(runs.map((run) => ctx.pool.encode(encodeJob(run, typed), lookup)));
      prepared.files = encoded.flatMap((e) => e.files);
      prepared.records = encoded.reduce((s, e) => s + e.records, 0);
      for (const e of encoded) for (const [k, n] of Object.entries(e.decodeErrors ?? {})) prepared.decodeErrors[k] = (prepared.decodeErrors[k] ?? 0) + n;
    } catch (e) {
      const err = e as Error;
      // the registry could not be read (Redis away): retried like a lake failure, never a decode error
      prepared.error = err instanceof SchemaLookupError ? err : err.message.startsWith(SchemaLookupError.PREFIX) ? new SchemaLookupError(err.message) : new UndecodableBuffer(err);
    }
  }
  prepared.encodeMs = Math.round(performance.now() - t0);
  return prepared;
}

/** Stage 2, under the table lock: upload the files and commit them with the partitions' new txn versions. */
export async function finishFlush(ctx: ArchiverContext, t: TopicArchiver, prepared: PreparedFlush): Promise<void> {
  const { adv, storedBytes, records } = prepared;
  // the table was reset (an earlier commit failed or aborted) after this buffer was taken:
  // its partitions re-read from their committed versions, so these files are dropped unwritten
  if (prepared.generation !== t.generation) return;
  const t0 = performance.now();
  let tUploaded = t0;
  try {
    if (prepared.error) throw prepared.error;
    const now = Date.now();
    const files = prepared.files.map((f) => ({
      bytes: f.bytes,
      add: {
        path: `date=${f.date}/part-${randomUUID()}.zstd.parquet`,
        partitionValues: { date: f.date },
        size: f.bytes.length,
        modificationTime: now,
        dataChange: true,
        stats: deltaStats(f.stats),
        // which offsets of which partitions the file holds: the remote tier's index (common/lake/partition-ranges.ts)
        tags: withPartitionRanges(null, f.ranges),
      } satisfies AddFile,
    }));
    if (files.length) {
      const outBytes = files.reduce((s, f) => s + f.bytes.length, 0);
      const r = storedBytes > 0 ? outBytes / storedBytes : 1;
      t.ratio = t.ratioKnown ? 0.5 * t.ratio + 0.5 * r : r;
      t.ratioKnown = true;
      crashPoint('before-upload');
      await mapLimit(files, 4, async (f) => {
        await ctx.store.put(`${t.topic}/${f.add.path}`, f.bytes);
        crashPoint('mid-upload');
      });
      crashPoint('after-upload');
      ctx.stats.bytesWritten += outBytes;
    }
    tUploaded = performance.now();
    let conflicts = 0;
    const timed = ctx.metrics?.commitTimer();
    const outcome = await t.table.commit((state) => {
      conflicts++;
      for (const a of adv) {
        const cur = state.txns.get(appIdOf(t.topic, a.ps.partition))?.version ?? -1;
        if (cur !== a.base) return null;
      }
      const actions: Action[] = [];
      // typed columns new to the table: Delta schema evolution, a new metaData in the same commit as the first file with them
      const merged = mergeTypedColumns(state.metaData?.schemaString ?? JSON.stringify(DELTA_SCHEMA), prepared.files.map((f) => f.typed));
      if (!state.metaData) actions.push(...tableHeader(ctx, t.topic, merged ?? JSON.stringify(DELTA_SCHEMA)));
      else if (merged) actions.push({ metaData: { ...state.metaData, schemaString: merged } });
      const now = Date.now();
      for (const a of adv) actions.push({ txn: { appId: appIdOf(t.topic, a.ps.partition), version: a.last, lastUpdated: now } });
      for (const f of files) actions.push({ add: f.add });
      return actions;
    }, 'WRITE');
    timed?.(outcome.status === 'aborted' ? 'aborted' : 'committed');
    ctx.stats.commitConflicts += Math.max(0, conflicts - 1);
    if (outcome.status === 'aborted') {
      ctx.stats.commitsAborted++;
      ctx.log.warn(new RunnelError('ARCHIVER_COMMIT_ABORTED', `${t.topic}: ${adv.map((a) => a.ps.partition).join(',')}`).message);
      await resetTable(ctx, t);
      return;
    }
    crashPoint('after-commit');
    clearTableStall(ctx, t);
    t.verifyRecords = false; // everything committed since the last decode failure was checked when read
    ctx.stats.commits++;
    ctx.stats.filesWritten += files.length;
    ctx.stats.recordsArchived += records;
    if (Object.keys(prepared.decodeErrors).length) {
      ctx.metrics?.countDecodeErrors(t.topic, prepared.decodeErrors);
      ctx.log.warn('records archived with decode_error (typed columns null, raw bytes kept)', { topic: t.topic, ...prepared.decodeErrors });
    }
    const published: { p: number; v: number }[] = [];
    for (const a of adv) {
      if (t.parts.get(a.ps.partition) === a.ps) {
        a.ps.committed = a.last;
        while (a.ps.pendingTs.length && a.ps.pendingTs[0]![0] <= a.last) a.ps.pendingTs.shift();
      }
      published.push({ p: a.ps.partition, v: a.last });
    }
    ctx.log.info('committed', {
      table: ctx.store.url.replace(/\/+$/, '') + '/' + t.topic, topic: t.topic,
      storedBytes, encodeMs: prepared.encodeMs, uploadMs: Math.round(tUploaded - t0), commitMs: Math.round(performance.now() - tUploaded),
      // last, as the README's quick start shows them
      version: outcome.version, files: files.length, records,
    });
    await publishArchived(ctx, t.topic, published).catch((e) => ctx.log.warn('cannot publish archived offsets', { err: e as Error }));
    await publishTable(ctx, t).catch((e) => ctx.log.warn('cannot publish the table summary', { topic: t.topic, err: e as Error }));
    await maybeCheckpoint(ctx, t, outcome.version);
  } catch (e) {
    if (e instanceof TornCommit) {
      // a commit that does not parse: nothing is written over it; the table waits for an operator (table-stall.ts)
      stallTable(ctx, t, e);
      await resetTable(ctx, t);
      return;
    }
    ctx.stats.errors++;
    if (e instanceof TypedColumnConflict || e instanceof SchemaLookupError) {
      // a typed column's type chosen twice differently (by two runs of this flush, or
      // a concurrent commit): re-encoded against the table's schema, in one run
      if (e instanceof TypedColumnConflict) t.noSplit = true;
      ctx.log.warn(`${t.topic}: ${e.message}; retrying`);
      t.backoffUntil = Date.now() + 1000;
      await resetTable(ctx, t);
      return;
    }
    if (e instanceof UndecodableBuffer && !t.verifyRecords) {
      // Some buffered batch passed the read checks (CRC) but its records do not decode.
      // Re-read with record checks: that batch then stalls only its partition (records/stall.ts).
      t.verifyRecords = true;
      t.lastDecodeFailureLog = Date.now();
      ctx.log.error(
        new RunnelError('ARCHIVER_CORRUPT_BATCH', `${t.topic}: buffered batches cannot be decoded (${e.cause.message}); re-reading the topic with record checks`).message,
      );
    } else {
      // the lake, or a failure that record checks did not explain: back off and retry
      const now = Date.now();
      const kind = e instanceof UndecodableBuffer ? 'ARCHIVER_CORRUPT_BATCH' : 'ARCHIVER_LAKE_UNAVAILABLE';
      const cause = e instanceof UndecodableBuffer ? e.cause : (e as Error);
      if (kind === 'ARCHIVER_LAKE_UNAVAILABLE' || now - t.lastDecodeFailureLog >= 60_000) {
        if (kind === 'ARCHIVER_CORRUPT_BATCH') t.lastDecodeFailureLog = now;
        ctx.log.warn(new RunnelError(kind, `${t.topic}: ${cause.message}`).message);
      }
      t.backoffUntil = now + 1000;
    }
    await resetTable(ctx, t);
  }
}

/** The encode job's typed spec: the table's typed columns, and for `latest` the subject's latest schema id (TopicNameStrategy: `<topic>-value`, `<topic>-key`). */
async function typedSpec(ctx: ArchiverContext, t: TopicArchiver, s: TopicSchemas): Promise<TypedSpec> {
  const part = async (mode: TopicSchemas['value'], suffix: string): Promise<PartMode> =>
    mode === 'none' ? false : mode === 'id' ? 'id' : ((await ctx.registry!.latestId(`${t.topic}-${suffix}`)) ?? -1);
  return { value: await part(s.value, 'value'), key: await part(s.key, 'key'), table: tableTypedColumns(t.table.state.metaData?.schemaString) };
}

/** The worker job for one run of buffered batches (each batch's bytes are transferred to the worker). */
function encodeJob(run: Buffered[], typed?: TypedSpec): EncodeJob {
  const meta = new Float64Array(run.length * 2);
  run.forEach((b, i) => {
    meta[i * 2] = b.p;
    meta[i * 2 + 1] = b.skipUpTo;
  });
  return { batches: run.map((b) => b.bytes), meta, verifyCrc: false, ...(typed ? { typed } : {}) };
}

/** The Parquet job failed on the buffered batches (decode or encode), before any lake request. */
class UndecodableBuffer extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message);
  }
}

function tableHeader(ctx: ArchiverContext, topic: string, schemaString: string): Action[] {
  return [
    { protocol: { ...PROTOCOL } },
    {
      metaData: {
        id: randomUUID(),
        name: topic,
        description: `Kafka topic ${topic} archived by Runnel`,
        format: { provider: 'parquet', options: {} },
        schemaString,
        partitionColumns: ['date'],
        configuration: ctx.topicId(topic) ? { 'runnel.topicId': ctx.topicId(topic)! } : {},
        createdTime: Date.now(),
      },
    },
  ];
}

/** Write a checkpoint when `version` is a multiple of the checkpoint interval; failures are only logged. */
export async function maybeCheckpoint(ctx: ArchiverContext, t: TopicArchiver, version: number) {
  if (version <= 0 || version % ctx.config.checkpointInterval !== 0) return;
  // the state must be exactly `version` (it is: commit just applied it)
  if (t.table.state.version !== version) return;
  try {
    crashPoint('before-checkpoint');
    await t.table.checkpoint(Date.now() - ctx.config.vacuumRetentionMs);
    crashPoint('after-checkpoint');
    ctx.stats.checkpoints++;
    ctx.log.debug('checkpoint written', { topic: t.topic, version });
  } catch (e) {
    ctx.log.warn('checkpoint failed', { topic: t.topic, version, err: e as Error });
  }
}

async function mapLimit<T>(items: T[], limit: number, fn: (t: T) => Promise<void>) {
  let i = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (i < items.length) await fn(items[i++]!);
  });
  await Promise.all(workers);
}
