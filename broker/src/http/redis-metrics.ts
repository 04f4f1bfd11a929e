// Redis memory as Prometheus gauges: INFO memory of every primary, read at
// scrape time through a short cache and a timeout, and the bytes each topic's
// partition streams take (MEMORY USAGE, the log store's sizeBytes), refreshed
// at most every 30 s (a scrape waits 1 s at most for it, then it goes on in
// the background) and bounded per refresh. Both cost Redis commands, so
// neither runs more often than its period however often /metrics is scraped,
// and neither holds a scrape longer than its wait.
import { Counter, type Registry } from 'prom-client';
import { scrapeGauge, type Sample } from '../../../common/metrics/registry.js';
import type { RedisMemory } from '../storage/status.js';
import type { TopicPartition, TopicRecord } from '../storage/log-store.js';

/** INFO memory is read at most once per this period; scrapes in between get the cached values. */
export const REDIS_MEMORY_CACHE_MS = 5_000;
/** How long a scrape waits for INFO memory before answering with what it has. */
export const REDIS_MEMORY_TIMEOUT_MS = 1_000;
/** Memory values older than this (no successful read since) are dropped rather than shown. */
export const REDIS_MEMORY_STALE_MS = 60_000;
/** The per-topic byte counts are refreshed at most once per this period. */
export const TOPIC_BYTES_REFRESH_MS = 30_000;
/** Partitions whose size one refresh reads at most; whole topics past the bound are left out (runnel_topic_redis_bytes_truncated). */
export const MAX_SIZE_PARTITIONS_PER_REFRESH = 2_000;
/** How long a scrape waits for a topic-sizes refresh it started; a longer one goes on in the background. */
export const TOPIC_BYTES_WAIT_MS = 1_000;
/** Per-topic values older than this (every refresh since failed) are dropped. */
export const TOPIC_BYTES_STALE_MS = 300_000;
/** MEMORY USAGE commands in flight at once during a refresh. */
const SIZE_CONCURRENCY = 16;

export interface CachedReadOptions {
  /** A new read starts at most once per this period (counted from the start of the last try, failed or not). */
  periodMs: number;
  /** How long get() waits for a read in flight; 0: never wait (the read goes on in the background). */
  waitMs: number;
  /** A value is dropped (get() answers null) when no read has succeeded for this long. */
  staleMs: number;
  /** Whether a read still running at the end of the wait counts in `failures` (default true). */
  lateIsFailure?: boolean;
  now?: () => number;
}

/**
 * A value read lazily from a slow source: get() starts a read when the last
 * try is older than `periodMs`, waits for it at most `waitMs` (one deadline
 * per read, shared by every caller), and answers the newest successful value
 * unless it is older than `staleMs`. At most one read is in flight.
 */
export class CachedRead<T> {
  /** Reads that failed or did not finish within `waitMs`. */
  failures = 0;
  private last: { at: number; value: T } | null = null;
  private lastTry = Number.NEGATIVE_INFINITY;
  private inflight: Promise<void> | null = null;
  private deadline: Promise<void> | null = null;
  private readonly now: () => number;

  constructor(private readonly read: () => Promise<T>, private readonly opts: CachedReadOptions) {
    this.now = opts.now ?? Date.now;
  }

  async get(): Promise<T | null> {
    if (this.inflight === null && this.now() - this.lastTry >= this.opts.periodMs) this.start();
    // Every caller waits on the same deadline, set when the read started: a read that hangs holds no caller past it.
    if (this.inflight !== null && this.deadline !== null) await Promise.race([this.inflight, this.deadline]);
    if (this.last === null || this.now() - this.last.at > this.opts.staleMs) return null;
    return this.last.value;
  }

  private start(): void {
    const started = this.now();
    this.lastTry = started;
    let late = false;
    let timer: NodeJS.Timeout | undefined;
    this.deadline = this.opts.waitMs > 0
      ? new Promise<void>((done) => {
        timer = setTimeout(() => {
          late = true;
          if (this.opts.lateIsFailure ?? true) this.failures++;
          done();
        }, this.opts.waitMs);
        timer.unref();
      })
      : null;
    this.inflight = this.read().then(
      (value) => {
        // A read that finishes after its deadline still refreshes the value (it was counted as a failure once).
        this.last = { at: started, value };
      },
      () => { if (!late || !(this.opts.lateIsFailure ?? true)) this.failures++; },
    ).finally(() => {
      clearTimeout(timer);
      this.inflight = null;
      this.deadline = null;
    });
  }
}

/** What the topic byte counts are read from: the log manager (its topics and its store's sizeBytes). */
export interface TopicSizes {
  allTopics(): Promise<TopicRecord[]>;
  sizeBytes(tp: TopicPartition): Promise<number>;
}

/**
 * Bytes of every topic (in name order, internal topics included): the sum of
 * sizeBytes over its partitions. At most `max` partitions are read; a topic
 * that would go past the bound is left out whole (no partial sums) and its
 * partitions are counted in `truncated`.
 */
export async function topicBytes(log: TopicSizes, max: number): Promise<{ samples: Sample<'topic'>[]; truncated: number }> {
  const topics = (await log.allTopics()).filter((t) => Number.isFinite(t.partitions)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const samples: Sample<'topic'>[] = [];
  let read = 0;
  let truncated = 0;
  for (const t of topics) {
    if (read + t.partitions > max) {
      truncated += t.partitions;
      continue;
    }
    read += t.partitions;
    let bytes = 0;
    for (let from = 0; from < t.partitions; from += SIZE_CONCURRENCY) {
      const chunk = Array.from({ length: Math.min(SIZE_CONCURRENCY, t.partitions - from) }, (_, i) => log.sizeBytes({ topic: t.name, partition: from + i }));
      for (const n of await Promise.all(chunk)) bytes += n;
    }
    samples.push({ labels: { topic: t.name }, value: bytes });
  }
  return { samples, truncated };
}

export interface RedisMetricsDeps {
  /** INFO memory of every Redis primary the broker uses (status-report.ts redisMemory). */
  redisMemory(): Promise<RedisMemory[]>;
  log: TopicSizes;
  /** Overrides of the periods and bounds above (tests). */
  limits?: Partial<{ memoryCacheMs: number; memoryTimeoutMs: number; memoryStaleMs: number; topicRefreshMs: number; topicWaitMs: number; topicStaleMs: number; maxPartitions: number }>;
  now?: () => number;
}

/** Registers the Redis memory gauges on `registry`. */
export function observeRedisMemory(registry: Registry, d: RedisMetricsDeps): void {
  const l = d.limits ?? {};
  const memory = new CachedRead(() => d.redisMemory(), {
    periodMs: l.memoryCacheMs ?? REDIS_MEMORY_CACHE_MS, waitMs: l.memoryTimeoutMs ?? REDIS_MEMORY_TIMEOUT_MS, staleMs: l.memoryStaleMs ?? REDIS_MEMORY_STALE_MS, now: d.now,
  });
  const perNode = (value: (m: RedisMemory) => number) => async (): Promise<Sample<'node'>[]> =>
    ((await memory.get()) ?? []).map((m) => ({ labels: { node: m.node }, value: value(m) }));
  scrapeGauge(registry, 'runnel_redis_memory_used_bytes', 'used_memory of INFO memory, per Redis primary (read at most every 5 s)', ['node'], perNode((m) => m.usedMemory));
  scrapeGauge(registry, 'runnel_redis_memory_max_bytes', 'maxmemory of INFO memory, per Redis primary (0: no limit)', ['node'], perNode((m) => m.maxMemory));

  const max = l.maxPartitions ?? MAX_SIZE_PARTITIONS_PER_REFRESH;
  const topics = new CachedRead(() => topicBytes(d.log, max), {
    periodMs: l.topicRefreshMs ?? TOPIC_BYTES_REFRESH_MS, waitMs: l.topicWaitMs ?? TOPIC_BYTES_WAIT_MS, staleMs: l.topicStaleMs ?? TOPIC_BYTES_STALE_MS, lateIsFailure: false, now: d.now,
  });
  // prom-client runs the collect functions of one scrape concurrently: each gauge awaits the shared read itself.
  scrapeGauge(registry, 'runnel_topic_redis_bytes', 'Redis memory of the topic\'s partition streams (MEMORY USAGE), refreshed at most every 30 s', ['topic'], async () =>
    (await topics.get())?.samples ?? []);
  scrapeGauge(registry, 'runnel_topic_redis_bytes_truncated', 'Partitions left out of the last topic-bytes refresh (over the per-refresh bound)', [], async () =>
    [{ value: (await topics.get())?.truncated ?? 0 }]);

  new Counter({
    name: 'runnel_redis_memory_read_failures_total',
    help: 'Reads of INFO memory that failed or timed out, and topic-size refreshes that failed',
    registers: [registry],
    async collect() {
      await Promise.all([memory.get(), topics.get()]); // this scrape's reads settle (or pass their deadline) first
      this.reset();
      this.inc(memory.failures + topics.failures);
    },
  });
}
