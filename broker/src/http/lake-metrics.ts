// Metrics of the remote tier (tiered topics read from the lake): lake reads
// (count by outcome, bytes, latency, cache hits and misses), the reader's
// cache, and per led tiered partition what each tier holds.
import { Counter, Histogram, type Registry } from 'prom-client';
import { scrapeGauge, type Sample } from '../../../common/metrics/registry.js';
import type { BrokerServices } from '../handlers/support/types.js';

/** One lake operation as the reader reports it: a read for a Fetch, or a data file decoded into batches. */
export interface LakeEvent {
  op: 'read' | 'decode';
  ms: number;
  bytes: number;
  cacheHit: boolean;
  ok: boolean;
}

const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Tiered partitions whose Redis memory one scrape asks for (MEMORY USAGE per stream). */
export const MAX_TIER_SERIES = 2_000;

export class LakeMetrics {
  private readonly ops: Counter<'op' | 'result'>;
  private readonly bytes: Counter<'op'>;
  private readonly latency: Histogram<'op'>;
  private readonly cache: Counter<'result'>;

  constructor(registry: Registry) {
    this.ops = new Counter({ name: 'runnel_lake_operations_total', help: 'Lake reads for Fetch (op=read) and data files decoded into batches (op=decode), by result', labelNames: ['op', 'result'], registers: [registry] });
    this.bytes = new Counter({ name: 'runnel_lake_bytes_total', help: 'Bytes of record batches served from the lake (op=read) and of data files decoded (op=decode)', labelNames: ['op'], registers: [registry] });
    this.latency = new Histogram({ name: 'runnel_lake_operation_seconds', help: 'Latency of lake reads and decodes', labelNames: ['op'], buckets: LATENCY_BUCKETS, registers: [registry] });
    this.cache = new Counter({ name: 'runnel_lake_cache_lookups_total', help: 'Lake reads answered from the rebuilt-batch cache (result=hit) or not (miss)', labelNames: ['result'], registers: [registry] });
  }

  observe(e: LakeEvent): void {
    this.ops.inc({ op: e.op, result: e.ok ? 'ok' : 'error' });
    if (e.ok) this.bytes.inc({ op: e.op }, e.bytes);
    this.latency.observe({ op: e.op }, e.ms / 1000);
    if (e.op === 'read') this.cache.inc({ result: e.cacheHit ? 'hit' : 'miss' });
  }
}

type TierLabels = 'topic' | 'partition' | 'tier';

/**
 * Scrape-time gauges of each led partition of a tiered topic: the Kafka log
 * start and the Redis one, records and bytes per tier (local: the Redis
 * stream's memory; remote: the lake's rows).
 */
export function observeTiers(registry: Registry, b: BrokerServices, cacheBytes: () => number): void {
  scrapeGauge(registry, 'runnel_lake_cache_bytes', 'Bytes of rebuilt batches the lake reader keeps (remote.log.reader.cache.size.bytes bounds it)', [], () => [{ value: cacheBytes() }]);
  const tiered = () => b.log.loadedPartitions().filter((p) => p.ready && b.cluster.leads(p.unit) && isTiered(b, p.tp.topic)).slice(0, MAX_TIER_SERIES);
  scrapeGauge(registry, 'runnel_partition_local_log_start_offset', 'Start of what Redis holds of each led partition of a tiered topic (Kafka\'s local log start offset)', ['topic', 'partition'], () =>
    tiered().map((p) => ({ labels: { topic: p.tp.topic, partition: p.tp.partition }, value: p.logStartOffset })));
  scrapeGauge(registry, 'runnel_partition_tier_records', 'Records of each led partition of a tiered topic, by tier (local: Redis, from its log start; remote: the lake)', ['topic', 'partition', 'tier'], async () => {
    const out: Sample<TierLabels>[] = [];
    for (const p of tiered()) {
      const t = b.log.cachedTopic(p.tp.topic);
      const remote = t && b.remoteLog ? await b.remoteLog.extent(p.tp, t.id).catch(() => null) : null;
      out.push({ labels: { topic: p.tp.topic, partition: p.tp.partition, tier: 'local' }, value: Math.max(0, p.highWatermark - p.logStartOffset) });
      out.push({ labels: { topic: p.tp.topic, partition: p.tp.partition, tier: 'remote' }, value: remote?.records ?? 0 });
    }
    return out;
  });
  scrapeGauge(registry, 'runnel_partition_tier_bytes', 'Bytes of each led partition of a tiered topic, by tier (local: Redis memory of its streams; remote: the lake\'s share of its data files)', ['topic', 'partition', 'tier'], async () => {
    const out: Sample<TierLabels>[] = [];
    for (const p of tiered()) {
      const t = b.log.cachedTopic(p.tp.topic);
      const [local, remote] = await Promise.all([
        b.log.store.sizeBytes(p.tp).catch(() => 0),
        t && b.remoteLog ? b.remoteLog.extent(p.tp, t.id).catch(() => null) : null,
      ]);
      out.push({ labels: { topic: p.tp.topic, partition: p.tp.partition, tier: 'local' }, value: local });
      out.push({ labels: { topic: p.tp.topic, partition: p.tp.partition, tier: 'remote' }, value: remote?.bytes ?? 0 });
    }
    return out;
  });
}

function isTiered(b: BrokerServices, topic: string): boolean {
  const t = b.log.cachedTopic(topic);
  return t !== null && t !== undefined && b.log.isTiered(t);
}
