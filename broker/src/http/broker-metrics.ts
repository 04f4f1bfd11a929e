// The broker's metrics computed when /metrics is scraped (partitions led,
// connections, consumer-group lag, Redis memory: redis-metrics.ts), the Redis
// round-trip sampler, runnel_build_info and the process metrics. Request and traffic counters are in request-metrics.ts.
import { Counter, Histogram, type Registry } from 'prom-client';
import { scrapeGauge, withProcessMetrics, type Sample } from '../../../common/metrics/registry.js';
import { registerBuildInfo } from '../../../common/metrics/build-info.js';
import { At } from '../../../common/record-batch/layout.js';
import type { BrokerServices } from '../handlers/support/types.js';
import type { RedisMemory } from '../storage/status.js';
import { observeRedisMemory, type RedisMetricsDeps } from './redis-metrics.js';

/** Consumer-group lag series computed per scrape at most (the rest are left out, said by runnel_consumer_group_lag_truncated). */
export const MAX_LAG_SERIES = 10_000;
/** How often the Redis round trip is sampled (one PING). */
export const REDIS_RTT_INTERVAL_MS = 5_000;

const RTT_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

export interface BrokerProbeDeps {
  services: BrokerServices;
  /** The connection the round trip is sampled on. */
  redis: { ping(): Promise<unknown> };
  /** Open client connections of each Kafka listener. */
  connections(): Array<{ listener: string; count: number }>;
  /** INFO memory of every Redis primary the broker uses. */
  redisMemory(): Promise<RedisMemory[]>;
  /** Overrides of the Redis memory periods and bounds (tests). */
  redisMemoryLimits?: RedisMetricsDeps['limits'];
}

type PartLabels = 'topic' | 'partition';

/** Registers the scrape-time gauges, the Redis RTT histogram and process metrics on `registry`; returns the sampler's stop. */
export function observeBroker(registry: Registry, d: BrokerProbeDeps): () => void {
  const b = d.services;
  withProcessMetrics(registry);
  registerBuildInfo(registry);
  observeRedisMemory(registry, { redisMemory: d.redisMemory, log: b.log, limits: d.redisMemoryLimits });
  const led = () => b.log.loadedPartitions().filter((p) => b.cluster.leads(p.unit) && p.ready);
  const perPartition = (value: (p: ReturnType<typeof led>[number]) => number) => (): Sample<PartLabels>[] =>
    led().map((p) => ({ labels: { topic: p.tp.topic, partition: p.tp.partition }, value: value(p) }));
  // Names kept from the hand-written exposition of earlier versions.
  scrapeGauge(registry, 'runnel_live_brokers', 'Brokers with a live registration', [], () => [{ value: b.cluster.liveBrokers().length }]);
  scrapeGauge(registry, 'runnel_partitions_led', 'Partitions this broker leads', [], () => [{ value: led().length }]);
  scrapeGauge(registry, 'runnel_partition_high_watermark', 'High watermark of each led partition', ['topic', 'partition'], perPartition((p) => p.highWatermark));
  scrapeGauge(registry, 'runnel_partition_log_start_offset', 'Log start offset of each led partition (on a tiered topic the first offset consumers may read, in the lake)', ['topic', 'partition'], perPartition((p) => p.earliestOffset));
  scrapeGauge(registry, 'runnel_partition_leader_epoch', 'Leader epoch of each led partition', ['topic', 'partition'], perPartition((p) => p.leaderEpoch));
  scrapeGauge(registry, 'runnel_connections', 'Open client connections, by Kafka listener', ['listener'], () => d.connections().map((c) => ({ labels: { listener: c.listener }, value: c.count })));
  const tail = b.log.tailCache;
  new Counter({
    name: 'runnel_tail_cache_lookups_total', help: 'Fetch reads answered from the tail cache (result=hit) or from Redis (miss); none while log.tail.cache.bytes=0', labelNames: ['result'], registers: [registry],
    collect() { this.reset(); this.inc({ result: 'hit' }, tail.hits); this.inc({ result: 'miss' }, tail.misses); },
  });
  new Counter({ name: 'runnel_tail_cache_served_bytes_total', help: 'Record batch bytes Fetch took from the tail cache', registers: [registry], collect() { this.reset(); this.inc(tail.servedBytes); } });
  scrapeGauge(registry, 'runnel_tail_cache_bytes', 'Bytes of batches held in the tail cache (bounded by log.tail.cache.bytes)', [], () => [{ value: tail.used }]);
  let truncated = 0;
  scrapeGauge(registry, 'runnel_consumer_group_lag', 'Records between the committed offset of a group and the end of the partition (groups this broker coordinates)', ['group', 'topic', 'partition'], async () => {
    const r = await groupLag(b, MAX_LAG_SERIES).catch(() => ({ samples: [], truncated: 0 }));
    truncated = r.truncated;
    return r.samples;
  });
  scrapeGauge(registry, 'runnel_consumer_group_lag_truncated', 'Lag series left out of the last scrape (over the per-scrape bound)', [], () => [{ value: truncated }]);

  const rtt = new Histogram({ name: 'runnel_redis_rtt_seconds', help: 'Round trip of a PING to Redis, sampled every 5 s', buckets: RTT_BUCKETS, registers: [registry] });
  const sample = (): void => {
    const end = rtt.startTimer();
    d.redis.ping().then(() => end(), () => undefined);
  };
  sample();
  const timer = setInterval(sample, REDIS_RTT_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Lag of every committed offset of the groups this broker coordinates: the
 * partition's high watermark (led here) or its stored log end (led elsewhere)
 * minus the committed offset, never below 0. At most `max` series.
 */
export async function groupLag(b: BrokerServices, max: number): Promise<{ samples: Sample<'group' | 'topic' | 'partition'>[]; truncated: number }> {
  const samples: Sample<'group' | 'topic' | 'partition'>[] = [];
  let truncated = 0;
  const ends = new Map<string, number | null>();
  for (const g of await b.groups.listGroups()) {
    for (const o of await b.groups.fetchOffsets(g.groupId, null)) {
      if (o.offset < 0) continue;
      if (samples.length >= max) {
        truncated++;
        continue;
      }
      const key = `${o.topic}\u0000${o.partition}`;
      let end = ends.get(key);
      if (end === undefined) {
        end = await logEnd(b, o.topic, o.partition);
        ends.set(key, end);
      }
      if (end !== null) samples.push({ labels: { group: g.groupId, topic: o.topic, partition: o.partition }, value: Math.max(0, end - o.offset) });
    }
  }
  return { samples, truncated };
}

async function logEnd(b: BrokerServices, topic: string, partition: number): Promise<number | null> {
  const p = b.log.cachedPartition(topic, partition);
  if (p && p.ready && b.cluster.leads(p.unit)) return p.highWatermark;
  if (!b.log.cachedTopic(topic)) return null;
  const tail = await b.log.tail({ topic, partition });
  if (tail.nextOffset !== null) return tail.nextOffset;
  return tail.last ? tail.last.baseOffset + tail.last.bytes.readInt32BE(At.LAST_OFFSET_DELTA) + 1 : tail.logStartOffset;
}
