// Prometheus metrics of a Runnel process (prom-client), shared by the broker
// and the archiver: one registry per process with Node's default process
// metrics, plus gauges whose samples are computed when /metrics is scraped.
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Adds the default process metrics (process_*, nodejs_*) to `registry`. Only
 * for a registry that /metrics serves: they watch the event loop and GC.
 */
export function withProcessMetrics(registry: Registry = new Registry()): Registry {
  collectDefaultMetrics({ register: registry });
  return registry;
}

export type Sample<L extends string> = { labels?: Partial<Record<L, string | number>>; value: number };

/**
 * A gauge whose samples are all recomputed at each scrape by `collect`
 * (state owned elsewhere: high watermarks, lag), so a series that no longer
 * exists (a partition released) disappears.
 */
export function scrapeGauge<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
  collect: () => Sample<L>[] | Promise<Sample<L>[]>,
): Gauge<L> {
  return new Gauge<L>({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      const samples = await collect();
      this.reset();
      for (const s of samples) {
        if (s.labels) this.set(s.labels, s.value);
        else this.set(s.value);
      }
    },
  });
}
