// Orders test files slowest first by their recorded durations
// (test/durations.json), so the files a pass runs on its workers end close
// together: longest-first keeps a slow file from starting last and running
// alone. Vitest itself orders by its cache of earlier runs, and a fresh clone
// has none (it falls back to file size, which puts small slow files last).
// Files with no recorded duration run first, as Vitest runs unknown files first.
// Refresh the durations after a full run: node test/setup/durations.mjs
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const ROOT = path.resolve(import.meta.dirname, '../..');

function recorded(): Map<string, number> {
  try {
    const j = JSON.parse(readFileSync(path.join(ROOT, 'test/durations.json'), 'utf8')) as Record<string, number>;
    return new Map(Object.entries(j));
  } catch {
    return new Map();
  }
}

export class DurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = recorded();
    const base = await super.sort(files);
    const rank = new Map(base.map((s, i) => [s, i]));
    const of = (s: TestSpecification): number | undefined => seconds.get(path.relative(ROOT, s.moduleId));
    const sorted = [...base].sort((a, b) => {
      if (a.project.name !== b.project.name) return rank.get(a)! - rank.get(b)!;
      const da = of(a);
      const db = of(b);
      if (da === undefined || db === undefined) {
        if (da === undefined && db !== undefined) return -1;
        if (db === undefined && da !== undefined) return 1;
        return rank.get(a)! - rank.get(b)!;
      }
      return db - da;
    });
    if (process.env.RUNNEL_SEQUENCE_DEBUG) for (const s of sorted) console.error(`[sequence] ${s.project.name} ${of(s) ?? '?'} ${path.relative(ROOT, s.moduleId)}`);
    return sorted;
  }
}
