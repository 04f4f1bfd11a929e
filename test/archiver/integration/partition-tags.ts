// Checks the `runnel.partitions` tag of a table's `add` actions on local disk
// against the rows delta-rs and pyarrow read (read_delta.py): delta-rs does not
// report add tags, so they are read from the JSON commits of the log.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { decodePartitionRanges, PARTITION_RANGES_TAG } from '../../../common/lake/partition-ranges.js';
import type { AddFile } from '../../../common/lake/delta/actions.js';
import type { DeltaRead } from './helpers.js';

/** Every `add` of the table's JSON commits, in commit order. */
export function logAdds(tableDir: string): AddFile[] {
  const logDir = path.join(tableDir, '_delta_log');
  return fs
    .readdirSync(logDir)
    .filter((n) => /^\d{20}\.json$/.test(n))
    .sort()
    .flatMap((n) => fs.readFileSync(path.join(logDir, n), 'utf8').split('\n').filter((l) => l.startsWith('{"add"')))
    .map((l) => (JSON.parse(l) as { add: AddFile }).add);
}

/**
 * Every add in the log carries the tag, its byte shares summing to the file's size;
 * for each file delta-rs reads, the tag equals the file's rows per partition; and
 * over those files, the tags hold each partition's rows of the table exactly.
 * Returns the number of adds checked.
 */
export function checkPartitionTags(tableDir: string, read: DeltaRead): number {
  const adds = logAdds(tableDir);
  const byPath = new Map(adds.map((a) => [a.path, a]));
  for (const a of adds) {
    const ranges = decodePartitionRanges(a.tags?.[PARTITION_RANGES_TAG]);
    expect(ranges, a.path).not.toBeNull();
    expect(ranges!.length, a.path).toBeGreaterThan(0);
    expect(ranges!.reduce((s, r) => s + r.bytes, 0), a.path).toBe(a.size);
    expect(ranges!.reduce((s, r) => s + r.records, 0), a.path).toBe(JSON.parse(a.stats!).numRecords);
  }
  const total = new Map<number, { records: number; min: number; max: number }>();
  for (const f of read.files) {
    const add = byPath.get(f.path);
    expect(add, `${f.path} is in the JSON commits`).toBeDefined();
    const ranges = decodePartitionRanges(add!.tags![PARTITION_RANGES_TAG])!;
    const tagged = ranges.map((r) => [r.partition, r.minOffset, r.maxOffset, r.records, r.minTimestampMs * 1000, r.maxTimestampMs * 1000]);
    expect(tagged, f.path).toEqual(f.actual.partitions);
    for (const r of ranges) {
      const t = total.get(r.partition) ?? { records: 0, min: Infinity, max: -Infinity };
      total.set(r.partition, { records: t.records + r.records, min: Math.min(t.min, r.minOffset), max: Math.max(t.max, r.maxOffset) });
    }
  }
  const rows = new Map<number, { records: number; min: number; max: number }>();
  for (const [p, o] of read.rows) {
    const t = rows.get(p) ?? { records: 0, min: Infinity, max: -Infinity };
    rows.set(p, { records: t.records + 1, min: Math.min(t.min, o), max: Math.max(t.max, o) });
  }
  expect(new Map([...total].sort((a, b) => a[0] - b[0]))).toEqual(new Map([...rows].sort((a, b) => a[0] - b[0])));
  return adds.length;
}
