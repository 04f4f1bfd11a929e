import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { V8_FLAGS, V8_FLAGS_APPLY } from '../../cli/v8-flags.js';

// What the flag saves is measured, not asserted here: full GCs of one
// 300,000-record produce run went from 31-32 to 9-15 and broker CPU from
// 1.67-1.86 s to 1.18-1.28 s (docs/architecture.md, "Garbage collection"). A
// synthetic churn test in a child process counted major GCs too erratically
// (0-19 with the flag, 6-12 without) to be a test that only fails when the
// flag is lost.
describe('cli/v8-flags', () => {
  it('is the first module cli/runnel.ts loads, so its flags are set before the broker or archiver allocates', () => {
    const src = readFileSync(resolve(__dirname, '../../cli/runnel.ts'), 'utf8');
    expect(src.split('\n').find((l) => l.startsWith('import '))).toBe("import './v8-flags.js';");
  });

  it('names only flags the Node it applies them on accepts', async () => {
    const { spawnSync } = await import('node:child_process');
    expect(V8_FLAGS_APPLY).toBe(Number(process.versions.node.split('.')[0]) >= 26);
    // The tests run on Node 26 (test/run-all.sh puts it first on PATH); an older Node gets no flags.
    if (!V8_FLAGS_APPLY) return;
    for (const flag of V8_FLAGS) {
      const r = spawnSync(process.execPath, [flag, '-e', '0'], { encoding: 'utf8' });
      expect(r.status, `${flag}: ${r.stderr}`).toBe(0);
      expect(r.stderr).not.toMatch(/unknown|bad option/i);
    }
  });
});
