// Cutting one flush's buffer into runs that encode in parallel.
//
// ZSTD Parquet encoding is the archiver's cost (bench/archiver/README.md): one
// worker thread turns ~80 MB of 1 KiB records per core-second into Parquet. A
// flush whose buffer is large enough is cut into contiguous runs, one per worker;
// each run becomes its own data file(s), and all of them land in the flush's one
// Delta commit, so exactly-once (one commit with the txn versions) is unchanged.
// Runs keep buffer order, so within every file the records of a partition stay
// in offset order.

/** The part of a buffered batch the split looks at. */
export interface Sized {
  bytes: Uint8Array;
}

/**
 * Contiguous runs of `items`, at most `workers` of them, each of at least
 * `minBytes` stored bytes (except when the whole buffer is smaller: then one
 * run), cut where the running total passes an equal share. Never empty runs.
 */
export function splitRuns<T extends Sized>(items: T[], workers: number, minBytes: number): T[][] {
  if (!items.length) return [];
  let total = 0;
  for (const it of items) total += it.bytes.byteLength;
  const n = Math.max(1, Math.min(Math.floor(workers), Math.floor(total / Math.max(1, minBytes)), items.length));
  if (n === 1) return [items];
  const runs: T[][] = [];
  const share = total / n;
  let cur: T[] = [];
  let acc = 0;
  for (const it of items) {
    cur.push(it);
    acc += it.bytes.byteLength;
    // cut when this run reached its share of the total (one large batch may make it fewer runs)
    if (runs.length < n - 1 && acc >= share * (runs.length + 1)) {
      runs.push(cur);
      cur = [];
    }
  }
  if (cur.length) runs.push(cur);
  return runs;
}
