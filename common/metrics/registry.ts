// Prometheus metrics of a Runnel process (prom-client), shared by the broker
// and the archiver: one registry per process with Node's default process
// metrics, plus gauges whose samples are computed when /metrics is scraped.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

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

/** One labelled series of a CellCounter: the hot path adds to `value`, a plain number. */
export interface CounterCell {
  value: number;
}

/**
 * A counter whose series are plain numbers bumped by the caller and handed to
 * prom-client only when scraped: no label hashing per increment (request
 * path). Cells are created once per label set and kept by the caller.
 */
export class CellCounter<L extends string> {
  private readonly cells: Array<{ labels: Partial<Record<L, string | number>>; cell: CounterCell }> = [];

  constructor(registry: Registry, name: string, help: string, labelNames: readonly L[]) {
    const cells = this.cells;
    new Counter<L>({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const c of cells) this.inc(c.labels, c.cell.value);
      },
    });
  }

  /** A new series (call once per label set and keep it). */
  cell(labels: Partial<Record<L, string | number>>): CounterCell {
    const cell = { value: 0 };
    this.cells.push({ labels, cell });
    return cell;
  }
}
