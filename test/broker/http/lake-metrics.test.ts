// The remote tier's metrics: lake operations counted by outcome, bytes and
// latency, cache hits; per led tiered partition its two log starts and what
// each tier holds. Over an in-memory store and remote tier (the reader's own
// counters are checked against real tables in test/broker/lake/).
import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { LakeMetrics, observeTiers } from '../../../broker/src/http/lake-metrics.js';
import type { RemoteLog } from '../../../broker/src/storage/remote-log.js';
import { MemoryLogStore } from '../support/memory-log-store.js';
import { unitServices } from '../support/services.js';
import { buildBatch } from '../../helpers/batches.js';

async function values(registry: Registry, name: string): Promise<Array<{ labels: Record<string, unknown>; value: number }>> {
  const m = (await registry.getMetricsAsJSON()).find((x) => x.name === name);
  if (!m) throw new Error(`no metric ${name}`);
  return (m.values as Array<{ labels: Record<string, unknown>; value: number; metricName?: string }>).map((v) => ({ labels: { ...v.labels }, value: v.value }));
}

describe('lake metrics', () => {
  it('count lake reads and decodes by outcome, their bytes, latency and cache hits', async () => {
    const registry = new Registry();
    const m = new LakeMetrics(registry);
    m.observe({ op: 'read', ms: 4, bytes: 1000, cacheHit: true, ok: true });
    m.observe({ op: 'read', ms: 40, bytes: 0, cacheHit: false, ok: false });
    m.observe({ op: 'decode', ms: 300, bytes: 5000, cacheHit: false, ok: true });
    expect(await values(registry, 'runnel_lake_operations_total')).toEqual(expect.arrayContaining([
      { labels: { op: 'read', result: 'ok' }, value: 1 },
      { labels: { op: 'read', result: 'error' }, value: 1 },
      { labels: { op: 'decode', result: 'ok' }, value: 1 },
    ]));
    expect(await values(registry, 'runnel_lake_bytes_total')).toEqual(expect.arrayContaining([
      { labels: { op: 'read' }, value: 1000 },
      { labels: { op: 'decode' }, value: 5000 },
    ]));
    expect(await values(registry, 'runnel_lake_cache_lookups_total')).toEqual(expect.arrayContaining([
      { labels: { result: 'hit' }, value: 1 },
      { labels: { result: 'miss' }, value: 1 },
    ]));
    const hist = await registry.getSingleMetricAsString('runnel_lake_operation_seconds');
    expect(hist).toMatch(/runnel_lake_operation_seconds_count\{op="read"\} 2/);
    expect(hist).toMatch(/runnel_lake_operation_seconds_bucket\{le="0.5",op="decode"\} 1/);
  });

  it('show, per led partition of a tiered topic, both log starts and the records and bytes of each tier', async () => {
    const store = new MemoryLogStore();
    const b = unitServices({ store });
    const remote: RemoteLog = {
      read: async () => [], offsetForTimestamp: async () => null, segments: async () => [], close: async () => {},
      extent: async () => ({ startOffset: 0, endOffset: 6, records: 6, bytes: 6000 }),
    };
    b.remoteLog = remote;
    await b.log.createTopic('t', 1, { 'remote.storage.enable': 'true' });
    await b.log.createTopic('plain', 1, {});
    for (const name of ['t', 'plain']) {
      const p = await b.log.partition(name, 0);
      for (let i = 0; i < 10; i++) await p.append(buildBatch([{ key: null, value: Buffer.alloc(10, i) }]), { logAppendTime: false });
    }
    const p = await b.log.partition('t', 0);
    await b.log.advanceLogStart(p, 6, true);
    const registry = new Registry();
    observeTiers(registry, b, () => 1234);
    expect(await values(registry, 'runnel_lake_cache_bytes')).toEqual([{ labels: {}, value: 1234 }]);
    expect(await values(registry, 'runnel_partition_local_log_start_offset')).toEqual([{ labels: { topic: 't', partition: 0 }, value: 6 }]);
    expect(await values(registry, 'runnel_partition_tier_records')).toEqual([
      { labels: { topic: 't', partition: 0, tier: 'local' }, value: 4 },
      { labels: { topic: 't', partition: 0, tier: 'remote' }, value: 6 },
    ]);
    const bytes = await values(registry, 'runnel_partition_tier_bytes');
    expect(bytes.find((x) => x.labels.tier === 'remote')!.value).toBe(6000);
    expect(bytes.find((x) => x.labels.tier === 'local')!.value).toBe(await store.sizeBytes({ topic: 't', partition: 0 }));
  });
});
