// Small numeric helpers.

export function median(xs: number[]): number | null {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const m = v.length >> 1;
  return v.length % 2 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
}

/** Nearest-rank percentile of an already sorted array (q in 0..1). */
export function percentileSorted(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i]!;
}

export function latencySummary(samplesMs: number[]): { count: number; avg: number; p50: number; p99: number; p999: number; max: number } {
  const s = Float64Array.from(samplesMs).sort();
  const arr = Array.from(s);
  const sum = arr.reduce((a, b) => a + b, 0);
  return {
    count: arr.length,
    avg: arr.length ? sum / arr.length : NaN,
    p50: percentileSorted(arr, 0.5),
    p99: percentileSorted(arr, 0.99),
    p999: percentileSorted(arr, 0.999),
    max: arr.length ? arr[arr.length - 1]! : NaN,
  };
}

export function round(x: number | null | undefined, digits = 1): number | null {
  if (x === null || x === undefined || !Number.isFinite(x)) return null;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Human formatting for tables: 12345 -> "12,345"; 1.234 -> "1.23". */
export function fmt(x: number | null | undefined, digits?: number): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—';
  const d = digits ?? (Math.abs(x) >= 100 ? 0 : Math.abs(x) >= 10 ? 1 : 2);
  return x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
}
