// The archiver: Redis stream partitions -> ZSTD Parquet -> one Delta table per topic.
//
// Per topic (= table) this process keeps one buffer of stored batches from the
// partitions it holds leases for. A buffer is cut into data files (one per UTC
// date) when its estimated Parquet size reaches the target or its first batch
// is older than the max age. Files are encoded in worker threads, uploaded,
// then committed with put-if-absent together with one `txn` action per source
// partition (see commit.ts for the exactly-once rule).
//
// This file runs the loops; the parts live in membership.ts (which partitions),
// reader.ts (XRANGE into buffers), commit.ts (flush and commit), maintenance.ts
// (OPTIMIZE / VACUUM) and metrics.ts (counters and lag).
//
// Redis: one node or a Redis Cluster (detected from the server, see redis.ts).
// Every command, script and MULTI the archiver sends touches the keys of one
// hash tag only, so each runs on one shard.
import { isCluster, type RedisClient } from '../../common/redis/connect.js';
import { connectWithRetry } from '../../common/redis/connect-retry.js';
import { finishFlush, flush, prepareFlush, type PreparedFlush } from './commit.js';
import type { ArchiverConfig } from './config.js';
import type { ArchiverContext } from './context.js';
import { Keys } from './keys.js';
import { Leases } from './lease.js';
import { createLogger, type Logger } from '../../common/logger/logger.js';
import { optimize, vacuum } from './maintenance.js';
import { Membership } from './membership.js';
import { ArchiverMetrics, emptyStats, partitionLag, type ArchiverStats, type PartitionLag } from './metrics.js';
import { ParquetPool } from './parquet/pool.js';
import { pollOnce, readLimitBytes } from './reader.js';
import { openArchiverRedis } from './redis.js';
import type { TransactionHooks } from './records/transactions.js';
import { redisTransactionHooks } from './records/redis-transactions.js';
import { openLake, type ObjectStore } from '../../common/lake/index.js';
import type { TopicArchiver, TopicSchemas } from './topic-state.js';
import { RegistryReader } from './schemas/registry.js';
import { TornCommit } from '../../common/lake/delta/torn.js';
import { stallTable } from './table-stall.js';

export { PROTOCOL } from './commit.js';
export type { ArchiverStats, PartitionLag } from './metrics.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Archiver implements ArchiverContext {
  readonly keys: Keys;
  readonly store: ObjectStore;
  private client: RedisClient | null = null;
  readonly pool: ParquetPool;
  readonly log: Logger;
  readonly leases: Leases;
  readonly topics = new Map<string, TopicArchiver>();
  readonly stats: ArchiverStats = emptyStats();
  readonly metrics = new ArchiverMetrics();
  /** Registry schemas by id, cached (typed columns) */
  readonly registry: RegistryReader;
  private readonly membership: Membership;
  private stopRequested = false;
  private loops: Promise<void>[] = [];
  private wake: (() => void) | null = null;
  /** Only committed data reaches the lake: by default the broker's transaction indexes in Redis (records/redis-transactions.ts). */
  readonly hooks: TransactionHooks;

  constructor(
    readonly config: ArchiverConfig,
    hooks?: TransactionHooks,
    deps: { store?: ObjectStore; redis?: RedisClient; logger?: Logger } = {},
  ) {
    this.keys = new Keys(config.keyPrefix);
    this.hooks = hooks ?? redisTransactionHooks(() => this.redis, this.keys);
    this.log = deps.logger ?? createLogger(config.logLevel, 'archiver', { fields: { id: config.archiverId } });
    this.store =
      deps.store ??
      openLake(config.lake, { s3Endpoint: config.s3Endpoint, s3ForcePathStyle: config.s3ForcePathStyle, s3Region: config.s3Region });
    if (deps.redis) this.useClient(deps.redis, isCluster(deps.redis));
    this.pool = new ParquetPool(config.workers);
    this.registry = new RegistryReader(() => this.redis, this.keys);
    this.leases = new Leases(() => this.redis, this.keys, config.archiverId, config.leaseTtlMs);
    this.membership = new Membership(this);
  }

  /** The Redis client (connected by start(), or given to the constructor). */
  get redis(): RedisClient {
    if (!this.client) throw new Error('archiver: Redis is not connected (start() first)');
    return this.client;
  }

  /** True when Redis is a Redis Cluster. */
  get cluster(): boolean {
    return this.client !== null && isCluster(this.client);
  }

  private useClient(client: RedisClient, cluster: boolean) {
    this.client = client;
    // In cluster mode a partition key is only built from its topic's placement, never guessed.
    this.keys.strict = cluster;
    client.on('error', (e: Error) => this.log.warn('redis error', { err: e.message }));
  }

  /**
   * Opens Redis from the config (redis.ts): seed list, cluster detection, ACL
   * user, TLS. A Redis that is not up yet is waited for (as the broker does)
   * for RUNNEL_REDIS_CONNECTION_TIMEOUT_MS; a setting that cannot work fails at once.
   */
  private async connect(): Promise<void> {
    await connectWithRetry(async () => {
      const { client, cluster } = await openArchiverRedis(this.config, this.log);
      this.useClient(client, cluster);
    }, {
      url: this.config.redisUrl, timeoutMs: this.config.redisConnectionTimeoutMs, setting: 'RUNNEL_REDIS_CONNECTION_TIMEOUT_MS',
      urlSetting: '--redis / RUNNEL_REDIS_URL', tlsSettings: 'RUNNEL_REDIS_TLS_*', logger: this.log,
    });
  }

  get stopping(): boolean {
    return this.stopRequested;
  }

  topicId(topic: string): string | undefined {
    return this.membership.topicId(topic);
  }

  topicSchemas(topic: string): TopicSchemas | undefined {
    return this.membership.topicSchemas(topic);
  }

  wakeUp(): void {
    this.wake?.();
  }

  async start(): Promise<void> {
    this.log.info('archiver starting', { lake: this.store.url, workers: this.config.workers });
    if (!this.client) await this.connect();
    await this.refreshTopics();
    await this.membershipTick();
    this.loops.push(this.loop('topics', this.config.topicRefreshMs, () => this.refreshTopics()));
    this.loops.push(this.loop('membership', Math.max(100, Math.floor(this.config.leaseTtlMs / 3)), () => this.membershipTick()));
    this.loops.push(this.mainLoop());
  }

  /**
   * Readiness (`/ready`): Redis answers PING and the lake answers a read (a missing
   * object is an answer), each within `timeoutMs`.
   */
  async ready(timeoutMs = 3000): Promise<boolean> {
    if (this.stopRequested || !this.client) return false;
    const client = this.client;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((r) => { timer = setTimeout(() => r(false), timeoutMs); });
    const checks = Promise.all([client.ping(), this.store.get('_runnel_ready_probe')]).then(() => true, () => false);
    try {
      return await Promise.race([checks, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stop reading, flush what is buffered, release leases. */
  async stop(opts: { flush?: boolean } = {}): Promise<void> {
    if (this.stopRequested) return;
    this.stopRequested = true;
    this.wake?.();
    await Promise.allSettled(this.loops);
    if (opts.flush !== false) {
      for (const t of this.topics.values()) {
        await t.busy?.catch(() => {});
        await t.lock; // a flush may still be committing behind the last job
        if (t.buf.length || [...t.parts.values()].some((p) => p.last > p.base)) {
          await t.withLock(() => this.flush(t)).catch((e) => this.log.error('final flush failed', { topic: t.topic, err: e }));
        }
      }
    }
    for (const t of this.topics.values()) {
      await t.busy?.catch(() => {});
      await t.lock;
      for (const p of t.parts.keys()) await this.leases.release(t.topic, p).catch(() => {});
    }
    if (this.client) await this.leases.leave().catch(() => {});
    await this.pool.close();
    await this.store.close();
    this.client?.disconnect();
    this.log.info('archiver stopped', { ...this.stats });
  }

  private async loop(name: string, everyMs: number, fn: () => Promise<void>) {
    while (!this.stopRequested) {
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
    if (this.stopRequested) return;
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

  refreshTopics(): Promise<void> {
    return this.membership.refreshTopics();
  }

  membershipTick(): Promise<void> {
    return this.membership.tick();
  }

  // ------------------------------------------------------------------ main loop

  private async mainLoop() {
    while (!this.stopRequested) {
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

  pollOnce(): Promise<number> {
    return pollOnce(this);
  }

  private scheduleWork() {
    const now = Date.now();
    for (const t of this.topics.values()) {
      if (now < t.backoffUntil) continue;
      const due =
        t.estimated() >= this.config.targetFileBytes ||
        t.bufBytes >= readLimitBytes(this) ||
        (t.bufStart > 0 && now - t.bufStart >= this.config.maxFileAgeMs);
      if (due) {
        // the next buffer encodes while the previous flush uploads and commits
        if (!t.encoding && t.flushesInFlight < 2) this.startFlush(t);
        continue;
      }
      if (t.busy) continue;
      let job: (() => Promise<void>) | null = null;
      if (t.parts.has(0) && this.config.optimizeIntervalMs > 0 && now - t.lastOptimize >= this.config.optimizeIntervalMs)
        job = async () => void (await this.optimize(t));
      else if (t.parts.has(0) && this.config.vacuumIntervalMs > 0 && now - t.lastVacuum >= this.config.vacuumIntervalMs)
        job = async () => void (await this.vacuum(t));
      if (job) this.track(t, t.withLock(job));
    }
  }

  /** A flush in two stages (commit.ts): encode without the table lock, then upload and commit under it, in order. */
  private startFlush(t: TopicArchiver) {
    t.encoding = true;
    t.flushesInFlight++;
    const run = (async () => {
      let prepared: PreparedFlush | null;
      try {
        prepared = await prepareFlush(this, t);
      } finally {
        t.encoding = false;
        this.wake?.();
      }
      if (prepared) await t.withLock(() => finishFlush(this, t, prepared));
    })().finally(() => t.flushesInFlight--);
    this.track(t, run);
  }

  /** `t.busy` follows the last job scheduled; a failed job backs the topic off. */
  private track(t: TopicArchiver, job: Promise<void>) {
    const tracked: Promise<void> = job
      .catch((e) => {
        if (e instanceof TornCommit) return stallTable(this, t, e); // rate-limited, backs the table off
        this.stats.errors++;
        t.backoffUntil = Date.now() + 1000;
        this.log.warn('table job failed', { topic: t.topic, err: e as Error });
      })
      .finally(() => {
        if (t.busy === tracked) t.busy = null;
        this.wake?.();
      });
    t.busy = tracked;
  }

  // ------------------------------------------------------------------ flush / OPTIMIZE / VACUUM

  flush(t: TopicArchiver): Promise<void> {
    return flush(this, t);
  }

  optimize(t: TopicArchiver): Promise<number> {
    return optimize(this, t);
  }

  vacuum(t: TopicArchiver): Promise<number> {
    return vacuum(this, t);
  }

  /** Run OPTIMIZE / VACUUM now on a topic this process has loaded (tests, admin). */
  async maintain(topic: string, what: 'optimize' | 'vacuum'): Promise<number> {
    const t = this.topics.get(topic);
    if (!t) return 0;
    await t.busy?.catch(() => {});
    return t.withLock(() => (what === 'optimize' ? this.optimize(t) : this.vacuum(t)));
  }

  /** Tables stalled on a torn Delta commit (RN4008), by topic. */
  tableStalls(): { topic: string; code: string; file: string }[] {
    const out: { topic: string; code: string; file: string }[] = [];
    for (const t of this.topics.values()) if (t.tableStall) out.push({ topic: t.topic, code: t.tableStall.code, file: t.tableStall.file });
    return out;
  }

  /** Lake lag of every partition this process archives. */
  lag(now = Date.now()): PartitionLag[] {
    return partitionLag(this.topics.values(), now);
  }
}
