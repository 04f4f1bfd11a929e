// The archiver: Redis stream partitions -> ZSTD Parquet -> one Delta table per topic.
//
// Per topic (= table) this process keeps one buffer of stored batches from the
// partitions it holds leases for. A buffer is cut into data files (one per UTC
// date) when its estimated Parquet size reaches the target or its first batch
// is older than the max age. Files are encoded in worker threads, uploaded,
// then committed with put-if-absent together with one `txn` action per source
// partition (appId `runnel/<topic>/<partition>`, version = last archived offset).
//
// Exactly-once does not rely on the leases: a commit is only made if, in the
// table state just before it, each of its partitions' txn version is still the
// one its batches continue from. Otherwise the commit is abandoned and the
// partition restarts from the txn version in the log.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RunnelError } from '../../broker/src/errors.js';
import type { ArchiverConfig } from './config.js';
import type { Action, AddFile } from './delta/actions.js';
import { DeltaTable, type CheckpointCodec } from './delta/table.js';
import { Keys, appIdOf } from './keys.js';
import { Leases, rendezvousOwner } from './lease.js';
import { createLogger, type Logger } from './log.js';
import { DELTA_SCHEMA, deltaStats } from './parquet/columns.js';
import { ParquetPool } from './parquet/pool.js';
import { CorruptBatchError, parseBatchHeader, verifyCrc } from './records/batch.js';
import { abortedTransactionFilter, type TransactionHooks } from './records/transactions.js';
import { openLake, type ObjectStore } from './storage/index.js';

export const PROTOCOL = { minReaderVersion: 1, minWriterVersion: 2 } as const;

export interface PartitionLag {
  topic: string;
  partition: number;
  /** highest offset committed to the lake, -1 if none */
  archivedOffset: number;
  /** log end offset seen in the stream, null if not known yet */
  logEndOffset: number | null;
  /** records in Redis not yet in the lake */
  lagRecords: number | null;
  /** age of the oldest record not yet in the lake, 0 when caught up */
  lagSeconds: number | null;
}

export interface ArchiverStats {
  commits: number;
  commitConflicts: number;
  commitsAborted: number;
  filesWritten: number;
  bytesWritten: number;
  recordsArchived: number;
  compactions: number;
  checkpoints: number;
  filesVacuumed: number;
  errors: number;
}

interface PartState {
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
  stalled: boolean;
}

interface Buffered {
  p: number;
  /** own ArrayBuffer: transferred to the worker without another copy */
  bytes: Uint8Array;
  lastOffset: number;
  skipUpTo: number;
}

interface TopicInfo {
  partitions: number;
  id?: string;
}

class TopicArchiver {
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
  busy: Promise<void> | null = null;
  lock: Promise<unknown> = Promise.resolve();
  lastOptimize = Date.now();
  lastVacuum = Date.now();
  sinceCheckpoint = 0;
  backoffUntil = 0;
  partitions = 0;
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Fault injection for crash tests only: RUNNEL_ARCHIVER_CRASH_POINTS="after-upload:0.3,after-commit:0.2"
// makes the process SIGKILL itself at that point with that probability. Unset in production.
const crashPoints = new Map<string, number>(
  (process.env.RUNNEL_ARCHIVER_CRASH_POINTS ?? '')
    .split(',')
    .filter(Boolean)
    .map((kv) => {
      const [k, v] = kv.split(':');
      return [k!.trim(), Number(v ?? '1')] as [string, number];
    }),
);
function crashPoint(name: string) {
  const p = crashPoints.get(name);
  if (p !== undefined && Math.random() < p) process.kill(process.pid, 'SIGKILL');
}

const PUBLISH_ARCHIVED = `local c = redis.call('hget', KEYS[1], 'archived')
if (not c) or tonumber(c) < tonumber(ARGV[1]) then redis.call('hset', KEYS[1], 'archived', ARGV[1]) return 1 end
return 0`;

export class Archiver {
  readonly keys: Keys;
  readonly store: ObjectStore;
  readonly redis: Redis;
  readonly pool: ParquetPool;
  readonly log: Logger;
  readonly leases: Leases;
  readonly topics = new Map<string, TopicArchiver>();
  readonly stats: ArchiverStats = {
    commits: 0,
    commitConflicts: 0,
    commitsAborted: 0,
    filesWritten: 0,
    bytesWritten: 0,
    recordsArchived: 0,
    compactions: 0,
    checkpoints: 0,
    filesVacuumed: 0,
    errors: 0,
  };
  private topicInfo = new Map<string, TopicInfo>();
  private members: string[] = [];
  private readonly adopting = new Set<string>();
  private stopping = false;
  private loops: Promise<void>[] = [];
  private wake: (() => void) | null = null;

  constructor(
    readonly config: ArchiverConfig,
    readonly hooks: TransactionHooks = abortedTransactionFilter,
    deps: { store?: ObjectStore; redis?: Redis; logger?: Logger } = {},
  ) {
    this.keys = new Keys(config.keyPrefix);
    this.log = deps.logger ?? createLogger(config.logLevel, { component: 'archiver', id: config.archiverId });
    this.store =
      deps.store ??
      openLake(config.lake, { s3Endpoint: config.s3Endpoint, s3ForcePathStyle: config.s3ForcePathStyle, s3Region: config.s3Region });
    this.redis = deps.redis ?? new Redis(config.redisUrl, { maxRetriesPerRequest: 3, lazyConnect: false });
    this.redis.on('error', (e) => this.log.warn('redis error', { err: (e as Error).message }));
    this.pool = new ParquetPool(config.workers);
    this.leases = new Leases(this.redis, this.keys, config.archiverId, config.leaseTtlMs);
  }

  async start(): Promise<void> {
    this.log.info('archiver starting', { lake: this.store.url, workers: this.config.workers });
    await this.refreshTopics();
    await this.membershipTick();
    this.loops.push(this.loop('topics', this.config.topicRefreshMs, () => this.refreshTopics()));
    this.loops.push(this.loop('membership', Math.max(100, Math.floor(this.config.leaseTtlMs / 3)), () => this.membershipTick()));
    this.loops.push(this.mainLoop());
  }

  /** Stop reading, flush what is buffered, release leases. */
  async stop(opts: { flush?: boolean } = {}): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.wake?.();
    await Promise.allSettled(this.loops);
    if (opts.flush !== false) {
      for (const t of this.topics.values()) {
        await t.busy?.catch(() => {});
        if (t.buf.length || [...t.parts.values()].some((p) => p.last > p.base)) {
          await t.withLock(() => this.flush(t)).catch((e) => this.log.error('final flush failed', { topic: t.topic, err: e }));
        }
      }
    }
    for (const t of this.topics.values()) {
      await t.busy?.catch(() => {});
      for (const p of t.parts.keys()) await this.leases.release(t.topic, p).catch(() => {});
    }
    await this.leases.leave().catch(() => {});
    await this.pool.close();
    await this.store.close();
    this.redis.disconnect();
    this.log.info('archiver stopped', { ...this.stats });
  }

  private async loop(name: string, everyMs: number, fn: () => Promise<void>) {
    while (!this.stopping) {
      try {
        await fn();
      } catch (e) {
        this.stats.errors++;
        this.log.warn(`${name} tick failed`, { err: e as Error });
      }
      await this.sleepUnlessStopping(everyMs);
    }
  }

  private async sleepUnlessStopping(ms: number) {
    if (this.stopping) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      const prev = this.wake;
      const self = this;
      function done() {
        clearTimeout(t);
        if (self.wake === done) self.wake = prev;
        resolve();
      }
      if (!prev) this.wake = done;
      else
        this.wake = () => {
          prev();
          done();
        };
    });
  }

  // ------------------------------------------------------------------ topics & leases

  async refreshTopics(): Promise<void> {
    const all = await this.redis.hgetall(this.keys.topics());
    const next = new Map<string, TopicInfo>();
    for (const [name, json] of Object.entries(all)) {
      if (name.startsWith('__')) continue; // internal topics are not archived
      if (this.config.topics && !this.config.topics.includes(name)) continue;
      try {
        const info = JSON.parse(json) as { partitions?: number; id?: string };
        if (typeof info.partitions === 'number' && info.partitions > 0) next.set(name, { partitions: info.partitions, id: info.id });
      } catch {
        this.log.warn('unreadable topic entry', { topic: name });
      }
    }
    this.topicInfo = next;
  }

  private assigned(): { topic: string; p: number }[] {
    const out: { topic: string; p: number }[] = [];
    const members = this.members.length ? this.members : [this.config.archiverId];
    for (const [topic, info] of this.topicInfo) {
      for (let p = 0; p < info.partitions; p++) {
        if (rendezvousOwner(members, `${topic}/${p}`) === this.config.archiverId) out.push({ topic, p });
      }
    }
    return out;
  }

  async membershipTick(): Promise<void> {
    if (this.stopping) return;
    this.members = await this.leases.heartbeat();
    // renew what we hold
    const held: { topic: string; p: number }[] = [];
    for (const t of this.topics.values()) for (const p of t.parts.keys()) held.push({ topic: t.topic, p });
    const adopting = [...this.adopting].map((k) => {
      const i = k.lastIndexOf('/');
      return { topic: k.slice(0, i), p: Number(k.slice(i + 1)) };
    });
    const ok = await this.leases.renew([...held, ...adopting]);
    held.forEach((h, i) => {
      if (!ok[i]) {
        this.log.warn(new RunnelError('ARCHIVER_LEASE_LOST', `${h.topic}/${h.p}`).message);
        this.dropPartition(h.topic, h.p);
      }
    });
    // release partitions that moved to another member or whose topic is gone
    const want = new Set(this.assigned().map((a) => `${a.topic}/${a.p}`));
    for (const t of this.topics.values()) {
      for (const p of [...t.parts.keys()]) {
        if (!want.has(`${t.topic}/${p}`)) {
          this.dropPartition(t.topic, p);
          await this.leases.release(t.topic, p).catch(() => {});
        }
      }
    }
    // acquire newly assigned partitions; adoption (log replay) runs in the background so a
    // slow replay never delays lease renewal
    for (const a of this.assigned()) {
      const t = this.topics.get(a.topic);
      const key = `${a.topic}/${a.p}`;
      if (t?.parts.has(a.p) || this.adopting.has(key)) continue;
      if (!(await this.leases.acquire(a.topic, a.p))) continue;
      this.adopting.add(key);
      void this.adoptPartition(a.topic, a.p)
        .catch(async (e) => {
          this.stats.errors++;
          this.log.warn('cannot adopt partition', { topic: a.topic, partition: a.p, err: e as Error });
          await this.leases.release(a.topic, a.p).catch(() => {});
        })
        .finally(() => this.adopting.delete(key));
    }
    await this.refreshLogEnds().catch(() => {});
  }

  private topic(name: string): TopicArchiver {
    let t = this.topics.get(name);
    if (!t) {
      t = new TopicArchiver(name, this.store, {
        write: (a) => this.pool.writeCheckpoint(a),
        read: (b) => this.pool.readCheckpoint(b),
      });
      this.topics.set(name, t);
    }
    return t;
  }

  private async adoptPartition(topic: string, p: number) {
    const t = this.topic(topic);
    await t.withLock(async () => {
      if (this.stopping) return;
      if (!t.loaded) {
        await t.table.load();
        t.loaded = true;
      } else {
        await t.table.update();
      }
      // a table written for an earlier topic with the same name: its txn versions do not apply
      const tableTopicId = t.table.state.metaData?.configuration?.['runnel.topicId'];
      const topicId = this.topicInfo.get(topic)?.id;
      if (tableTopicId && topicId && tableTopicId !== topicId) {
        throw new RunnelError(
          'ARCHIVER_DELTA_LOG_INVALID',
          `table ${topic} belongs to topic id ${tableTopicId}, the topic now has id ${topicId} (re-created?): archive it to another lake path or remove the old table`,
        );
      }
      const v = t.table.state.txns.get(appIdOf(topic, p))?.version ?? -1;
      t.parts.set(p, { partition: p, committed: v, base: v, last: v, epoch: 0, logEnd: null, pendingTs: [], stalled: false });
      if (v >= 0) await this.publishArchived(topic, [{ p, v }]);
      this.log.info('partition adopted', { topic, partition: p, resumeAfter: v, tableVersion: t.table.state.version });
    });
    this.wake?.();
  }

  private dropPartition(topic: string, p: number) {
    const t = this.topics.get(topic);
    const ps = t?.parts.get(p);
    if (!t || !ps) return;
    t.parts.delete(p);
    ps.epoch++;
    const keep = t.buf.filter((b) => b.p !== p);
    if (keep.length !== t.buf.length) {
      t.buf = keep;
      t.bufBytes = keep.reduce((s, b) => s + b.bytes.length, 0);
      if (!keep.length) t.bufStart = 0;
    }
    this.log.info('partition released', { topic, partition: p });
  }

  private async publishArchived(topic: string, items: { p: number; v: number }[]) {
    const pl = this.redis.pipeline();
    for (const it of items) pl.eval(PUBLISH_ARCHIVED, 1, this.keys.meta(topic, it.p), String(it.v));
    await pl.exec();
  }

  private async refreshLogEnds() {
    const reqs: { ps: PartState; topic: string }[] = [];
    const pl = this.redis.pipeline();
    for (const t of this.topics.values())
      for (const ps of t.parts.values()) {
        reqs.push({ ps, topic: t.topic });
        pl.xrevrangeBuffer(this.keys.log(t.topic, ps.partition), '+', '-', 'COUNT', 1);
      }
    if (!reqs.length) return;
    const res = (await pl.exec()) ?? [];
    res.forEach(([err, v], i) => {
      if (err) return;
      const entries = v as [Buffer, Buffer[]][];
      const e = entries[0];
      if (!e) return;
      const b = fieldB(e[1]);
      if (!b) return;
      try {
        const h = parseBatchHeader(b);
        reqs[i]!.ps.logEnd = h.baseOffset + h.lastOffsetDelta + 1;
      } catch {
        /* reported by the reader */
      }
    });
  }

  // ------------------------------------------------------------------ main loop

  private async mainLoop() {
    while (!this.stopping) {
      let n = 0;
      try {
        n = await this.pollOnce();
        this.scheduleWork();
      } catch (e) {
        this.stats.errors++;
        this.log.warn('poll failed', { err: e as Error });
        await sleep(500);
      }
      if (n === 0) await this.sleepUnlessStopping(this.config.pollIntervalMs);
    }
  }

  private readLimitBytes(): number {
    return Math.min(this.config.targetFileBytes * 8, 256 * 1024 * 1024);
  }

  /** One pipelined XRANGE over all owned partitions with room in their table buffer. */
  async pollOnce(): Promise<number> {
    const reqs: { t: TopicArchiver; ps: PartState; epoch: number; lso: number | null; count: number }[] = [];
    for (const t of this.topics.values()) {
      if (t.estimated() >= this.config.targetFileBytes || t.bufBytes >= this.readLimitBytes()) continue;
      // fetch about what still fits in this file, not COUNT huge batches that would be dropped
      const budget = Math.min(this.config.targetFileBytes / t.ratio, this.readLimitBytes()) - t.bufBytes;
      const count = Math.max(1, Math.min(this.config.readCount, Math.ceil(budget / Math.max(1, t.avgBatch) / Math.max(1, t.parts.size))));
      for (const ps of t.parts.values()) {
        if (ps.stalled) continue;
        const lso = await this.hooks.lastStableOffset(t.topic, ps.partition);
        if (lso !== null && ps.last + 1 >= lso) continue;
        reqs.push({ t, ps, epoch: ps.epoch, lso, count });
      }
    }
    if (!reqs.length) return 0;
    const pl = this.redis.pipeline();
    for (const r of reqs) {
      pl.xrangeBuffer(
        this.keys.log(r.t.topic, r.ps.partition),
        r.ps.last < 0 ? '-' : `(${r.ps.last}-1`,
        '+',
        'COUNT',
        r.count,
      );
    }
    const res = (await pl.exec()) ?? [];
    let total = 0;
    for (let i = 0; i < reqs.length; i++) {
      const { t, ps, epoch, lso, count } = reqs[i]!;
      const [err, v] = res[i] ?? [new Error('no reply'), null];
      if (err) throw err;
      if (t.parts.get(ps.partition) !== ps || ps.epoch !== epoch) continue; // reset or dropped meanwhile
      const entries = v as [Buffer, Buffer[]][];
      let stoppedAtLso = false;
      let full = false;
      for (const [idBuf, fields] of entries) {
        if (t.estimated() >= this.config.targetFileBytes || t.bufBytes >= this.readLimitBytes()) {
          full = true; // leave the rest for the next file
          break;
        }
        const b = fieldB(fields);
        const id = idBuf.toString();
        let h;
        try {
          if (!b) throw new CorruptBatchError(`entry ${id} has no field b`);
          h = parseBatchHeader(b);
          // checked here (hardware CRC-32C, ~GB/s) so a corrupt batch stalls only its partition
          if (this.config.verifyCrc) verifyCrc(b, h);
        } catch (e) {
          ps.stalled = true;
          this.stats.errors++;
          this.log.error(new RunnelError('ARCHIVER_CORRUPT_BATCH', `${t.topic}/${ps.partition} entry ${id}: ${(e as Error).message}`).message);
          break;
        }
        const lastOffset = h.baseOffset + h.lastOffsetDelta;
        if (lso !== null && lastOffset >= lso) {
          stoppedAtLso = true;
          break;
        }
        if (lastOffset <= ps.last) continue;
        if (h.baseOffset > ps.last + 1) {
          // trimmed before it was archived, or a compacted/rewritten log: the lake has a hole here
          this.log.warn(new RunnelError('ARCHIVER_OFFSET_GAP', `${t.topic}/${ps.partition}: next batch starts at ${h.baseOffset}, expected ${ps.last + 1}`).message);
        }
        total++;
        if (!t.bufStart) t.bufStart = Date.now();
        const aborted =
          h.isTransactional &&
          (await this.hooks.isAbortedBatch({
            topic: t.topic,
            partition: ps.partition,
            baseOffset: h.baseOffset,
            lastOffset,
            producerId: h.producerId,
            producerEpoch: h.producerEpoch,
            isTransactional: h.isTransactional,
          }));
        if (!h.isControl && !aborted) {
          // copy (redis-parser may return slices of its reusable bufferPool) into an own
          // ArrayBuffer that is later transferred to the worker thread
          const bytes = new Uint8Array(b!);
          t.buf.push({ p: ps.partition, bytes, lastOffset, skipUpTo: ps.last });
          t.bufBytes += bytes.length;
          t.avgBatch = t.avgBatch ? 0.9 * t.avgBatch + 0.1 * bytes.length : bytes.length;
          ps.pendingTs.push([lastOffset, h.timestampType === 1 ? h.maxTimestamp : h.baseTimestamp]);
        }
        ps.last = lastOffset;
      }
      if (entries.length < count && !stoppedAtLso && !full && !ps.stalled) ps.logEnd = ps.last + 1;
    }
    return total;
  }

  private scheduleWork() {
    const now = Date.now();
    for (const t of this.topics.values()) {
      if (t.busy || now < t.backoffUntil) continue;
      const due =
        t.estimated() >= this.config.targetFileBytes ||
        t.bufBytes >= this.readLimitBytes() ||
        (t.bufStart > 0 && now - t.bufStart >= this.config.maxFileAgeMs);
      let job: (() => Promise<void>) | null = null;
      if (due) job = () => this.flush(t);
      else if (t.parts.has(0) && this.config.optimizeIntervalMs > 0 && now - t.lastOptimize >= this.config.optimizeIntervalMs)
        job = async () => void (await this.optimize(t));
      else if (t.parts.has(0) && this.config.vacuumIntervalMs > 0 && now - t.lastVacuum >= this.config.vacuumIntervalMs)
        job = async () => void (await this.vacuum(t));
      if (!job) continue;
      const j = job;
      t.busy = t
        .withLock(j)
        .catch((e) => {
          this.stats.errors++;
          t.backoffUntil = Date.now() + 1000;
          this.log.warn('table job failed', { topic: t.topic, err: e as Error });
        })
        .finally(() => {
          t.busy = null;
          this.wake?.();
        });
    }
  }

  // ------------------------------------------------------------------ flush / commit

  private async resetTable(t: TopicArchiver) {
    t.buf = [];
    t.bufBytes = 0;
    t.bufStart = 0;
    try {
      await t.table.update();
    } catch (e) {
      t.loaded = false;
      await t.table.load();
      t.loaded = true;
    }
    for (const ps of t.parts.values()) {
      const v = t.table.state.txns.get(appIdOf(t.topic, ps.partition))?.version ?? -1;
      ps.committed = ps.base = ps.last = v;
      ps.pendingTs = [];
      ps.epoch++;
    }
  }

  async flush(t: TopicArchiver): Promise<void> {
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
    if (!adv.length) return;
    try {
      let files: { add: AddFile; bytes: Uint8Array }[] = [];
      let records = 0;
      if (batches.length) {
        const meta = new Float64Array(batches.length * 2);
        batches.forEach((b, i) => {
          meta[i * 2] = b.p;
          meta[i * 2 + 1] = b.skipUpTo;
        });
        const enc = await this.pool.encode({ batches: batches.map((b) => b.bytes), meta, verifyCrc: false }); // verified when read
        records = enc.records;
        const now = Date.now();
        files = enc.files.map((f) => ({
          bytes: f.bytes,
          add: {
            path: `date=${f.date}/part-${randomUUID()}.zstd.parquet`,
            partitionValues: { date: f.date },
            size: f.bytes.length,
            modificationTime: now,
            dataChange: true,
            stats: deltaStats(f.stats),
          },
        }));
        const outBytes = enc.files.reduce((s, f) => s + f.bytes.length, 0);
        const r = storedBytes > 0 ? outBytes / storedBytes : 1;
        t.ratio = t.ratioKnown ? 0.5 * t.ratio + 0.5 * r : r;
        t.ratioKnown = true;
        crashPoint('before-upload');
        await mapLimit(files, 4, async (f) => {
          await this.store.put(`${t.topic}/${f.add.path}`, f.bytes);
          crashPoint('mid-upload');
        });
        crashPoint('after-upload');
        this.stats.bytesWritten += outBytes;
      }
      let conflicts = 0;
      const outcome = await t.table.commit((state) => {
        conflicts++;
        for (const a of adv) {
          const cur = state.txns.get(appIdOf(t.topic, a.ps.partition))?.version ?? -1;
          if (cur !== a.base) return null;
        }
        const actions: Action[] = [];
        if (!state.metaData) actions.push(...this.tableHeader(t.topic));
        const now = Date.now();
        for (const a of adv) actions.push({ txn: { appId: appIdOf(t.topic, a.ps.partition), version: a.last, lastUpdated: now } });
        for (const f of files) actions.push({ add: f.add });
        return actions;
      }, 'WRITE');
      this.stats.commitConflicts += Math.max(0, conflicts - 1);
      if (outcome.status === 'aborted') {
        this.stats.commitsAborted++;
        this.log.warn(new RunnelError('ARCHIVER_COMMIT_ABORTED', `${t.topic}: ${adv.map((a) => a.ps.partition).join(',')}`).message);
        await this.resetTable(t);
        return;
      }
      crashPoint('after-commit');
      this.stats.commits++;
      this.stats.filesWritten += files.length;
      this.stats.recordsArchived += records;
      const published: { p: number; v: number }[] = [];
      for (const a of adv) {
        if (t.parts.get(a.ps.partition) === a.ps) {
          a.ps.committed = a.last;
          while (a.ps.pendingTs.length && a.ps.pendingTs[0]![0] <= a.last) a.ps.pendingTs.shift();
        }
        published.push({ p: a.ps.partition, v: a.last });
      }
      this.log.debug('committed', { topic: t.topic, version: outcome.version, files: files.length, records });
      await this.publishArchived(t.topic, published).catch((e) => this.log.warn('cannot publish archived offsets', { err: e as Error }));
      await this.maybeCheckpoint(t, outcome.version);
    } catch (e) {
      this.stats.errors++;
      this.log.warn(new RunnelError('ARCHIVER_LAKE_UNAVAILABLE', `${t.topic}: ${(e as Error).message}`).message);
      t.backoffUntil = Date.now() + 1000;
      await this.resetTable(t);
    }
  }

  private tableHeader(topic: string): Action[] {
    return [
      { protocol: { ...PROTOCOL } },
      {
        metaData: {
          id: randomUUID(),
          name: topic,
          description: `Kafka topic ${topic} archived by Runnel`,
          format: { provider: 'parquet', options: {} },
          schemaString: JSON.stringify(DELTA_SCHEMA),
          partitionColumns: ['date'],
          configuration: this.topicInfo.get(topic)?.id ? { 'runnel.topicId': this.topicInfo.get(topic)!.id! } : {},
          createdTime: Date.now(),
        },
      },
    ];
  }

  private async maybeCheckpoint(t: TopicArchiver, version: number) {
    if (version <= 0 || version % this.config.checkpointInterval !== 0) return;
    // the state must be exactly `version` (it is: commit just applied it)
    if (t.table.state.version !== version) return;
    try {
      crashPoint('before-checkpoint');
      await t.table.checkpoint(Date.now() - this.config.vacuumRetentionMs);
      crashPoint('after-checkpoint');
      this.stats.checkpoints++;
      this.log.debug('checkpoint written', { topic: t.topic, version });
    } catch (e) {
      this.log.warn('checkpoint failed', { topic: t.topic, version, err: e as Error });
    }
  }

  // ------------------------------------------------------------------ OPTIMIZE / VACUUM

  /** Compact small files per date partition (dataChange:false remove/add pairs). */
  async optimize(t: TopicArchiver): Promise<number> {
    t.lastOptimize = Date.now();
    await t.table.update();
    const byDate = new Map<string, AddFile[]>();
    for (const f of t.table.state.files.values()) {
      if (f.size >= this.config.smallFileBytes) continue;
      const d = f.partitionValues.date ?? '';
      let arr = byDate.get(d);
      if (!arr) byDate.set(d, (arr = []));
      arr.push(f);
    }
    let compacted = 0;
    for (const [date, files] of byDate) {
      if (files.length < this.config.optimizeMinFiles) continue;
      files.sort((a, b) => a.modificationTime - b.modificationTime || (a.path < b.path ? -1 : 1));
      // groups bounded by the target size
      const groups: AddFile[][] = [];
      let cur: AddFile[] = [];
      let size = 0;
      for (const f of files) {
        if (cur.length && size + f.size > this.config.targetFileBytes) {
          groups.push(cur);
          cur = [];
          size = 0;
        }
        cur.push(f);
        size += f.size;
      }
      if (cur.length) groups.push(cur);
      for (const g of groups) {
        if (g.length < 2) continue;
        const blobs: Uint8Array[] = [];
        let missing = false;
        for (const f of g) {
          const b = await this.store.get(`${t.topic}/${decodeURIComponent(f.path)}`);
          if (!b) {
            missing = true;
            break;
          }
          blobs.push(b);
        }
        if (missing) continue;
        const out = await this.pool.compact({ files: blobs });
        const now = Date.now();
        const add: AddFile = {
          path: `date=${date}/part-${randomUUID()}.zstd.parquet`,
          partitionValues: { date },
          size: out.bytes.length,
          modificationTime: now,
          dataChange: false,
          stats: deltaStats(out.stats),
        };
        await this.store.put(`${t.topic}/${add.path}`, out.bytes);
        const outcome = await t.table.commit((state) => {
          for (const f of g) if (!state.files.has(f.path)) return null;
          const actions: Action[] = g.map((f) => ({
            remove: {
              path: f.path,
              deletionTimestamp: now,
              dataChange: false,
              extendedFileMetadata: true,
              partitionValues: f.partitionValues,
              size: f.size,
            },
          }));
          actions.push({ add });
          return actions;
        }, 'OPTIMIZE');
        if (outcome.status === 'committed') {
          compacted += g.length;
          this.stats.compactions++;
          this.log.info('optimized', { topic: t.topic, date, files: g.length, into: add.size, version: outcome.version });
          await this.maybeCheckpoint(t, outcome.version);
        } else {
          await this.store.delete(`${t.topic}/${add.path}`).catch(() => {});
        }
      }
    }
    return compacted;
  }

  /** Delete data files that are neither referenced nor within the retention window. */
  async vacuum(t: TopicArchiver): Promise<number> {
    t.lastVacuum = Date.now();
    await t.table.update();
    const cutoff = Date.now() - this.config.vacuumRetentionMs;
    const objects = await this.store.list(`${t.topic}/`);
    const logPrefix = `${t.topic}/_delta_log/`;
    let deleted = 0;
    for (const o of objects) {
      if (o.key.startsWith(logPrefix)) continue;
      const rel = o.key.slice(t.topic.length + 1);
      const encoded = rel.split('/').map(encodeURIComponent).join('/').replace(/%3D/g, '=');
      if (t.table.state.files.has(rel) || t.table.state.files.has(encoded)) continue;
      const tomb = t.table.state.tombstones.get(rel) ?? t.table.state.tombstones.get(encoded);
      if (tomb && (tomb.deletionTimestamp ?? 0) > cutoff) continue;
      if (o.lastModified > cutoff) continue;
      await this.store.delete(o.key);
      deleted++;
    }
    this.stats.filesVacuumed += deleted;
    if (deleted) this.log.info('vacuumed', { topic: t.topic, deleted });
    return deleted;
  }

  /** Run OPTIMIZE / VACUUM now on a topic this process has loaded (tests, admin). */
  async maintain(topic: string, what: 'optimize' | 'vacuum'): Promise<number> {
    const t = this.topics.get(topic);
    if (!t) return 0;
    await t.busy?.catch(() => {});
    return t.withLock(() => (what === 'optimize' ? this.optimize(t) : this.vacuum(t)));
  }

  // ------------------------------------------------------------------ metrics

  /** Lake lag of every partition this process archives. */
  lag(now = Date.now()): PartitionLag[] {
    const out: PartitionLag[] = [];
    for (const t of this.topics.values()) {
      for (const ps of t.parts.values()) {
        const lagRecords = ps.logEnd === null ? null : Math.max(0, ps.logEnd - (ps.committed + 1));
        let lagSeconds: number | null = null;
        if (lagRecords === 0) lagSeconds = 0;
        else if (ps.pendingTs.length) lagSeconds = Math.max(0, (now - ps.pendingTs[0]![1]) / 1000);
        out.push({ topic: t.topic, partition: ps.partition, archivedOffset: ps.committed, logEndOffset: ps.logEnd, lagRecords, lagSeconds });
      }
    }
    return out.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
  }
}

function fieldB(fields: Buffer[]): Buffer | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const f = fields[i]!;
    if (f.length === 1 && f[0] === 0x62) return fields[i + 1];
  }
  return undefined;
}

async function mapLimit<T>(items: T[], limit: number, fn: (t: T) => Promise<void>) {
  let i = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (i < items.length) await fn(items[i++]!);
  });
  await Promise.all(workers);
}
