import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { startupReexecArgs, V8_FLAGS, V8_FLAGS_APPLY, V8_STARTUP_FLAGS, type ReexecInput } from '../../cli/v8-flags.js';

// What the flags save is measured, not asserted here (docs/architecture.md,
// "Garbage collection"): a synthetic churn test in a child process counted
// major GCs too erratically to be a test that only fails when a flag is lost.
// That `runnel broker` and `runnel archiver` really run with the start-up
// flags is checked on the live processes in test/integration/cli.test.ts.
const CLI = resolve(__dirname, '../../dist/cli/runnel.js');
const input = (over: Partial<ReexecInput> = {}): ReexecInput => ({
  argv: ['/usr/bin/node', CLI, 'broker', '--port', '9092'],
  execArgv: [],
  env: {},
  cliPath: CLI,
  nodeSupportsFlags: true,
  ...over,
});

describe('cli/v8-flags', () => {
  it('cli/v8-setup is the first module cli/main.ts loads (after the entry\'s Node version check), so its flags are set before the broker or archiver allocates', () => {
    const src = readFileSync(resolve(__dirname, '../../cli/main.ts'), 'utf8');
    expect(src.split('\n').find((l) => l.startsWith('import '))).toBe("import './v8-setup.js';");
    const entry = readFileSync(resolve(__dirname, '../../cli/runnel.ts'), 'utf8');
    expect(entry.split('\n').filter((l) => l.startsWith('import '))).toEqual(["import { nodeTooOld } from './node-version.js';"]);
  });

  it('names only flags the Node it applies them on accepts', async () => {
    const { spawnSync } = await import('node:child_process');
    expect(V8_FLAGS_APPLY).toBe(Number(process.versions.node.split('.')[0]) >= 26);
    // The tests run on Node 26 (test/run-all.sh puts it first on PATH); an older Node gets no flags.
    if (!V8_FLAGS_APPLY) return;
    for (const flag of [...V8_FLAGS, ...V8_STARTUP_FLAGS]) {
      const r = spawnSync(process.execPath, [flag, '-e', '0'], { encoding: 'utf8' });
      expect(r.status, `${flag}: ${r.stderr}`).toBe(0);
      expect(r.stderr).not.toMatch(/unknown|bad option/i);
    }
  });

  it('re-executes `runnel broker` and `runnel archiver` with the start-up flags first, keeping node flags and arguments in order', () => {
    expect(startupReexecArgs(input({ execArgv: ['--enable-source-maps'] }))).toEqual(['/usr/bin/node', ...V8_STARTUP_FLAGS, '--enable-source-maps', CLI, 'broker', '--port', '9092']);
    expect(startupReexecArgs(input({ argv: ['/usr/bin/node', CLI, 'archiver'] }))).toEqual(['/usr/bin/node', ...V8_STARTUP_FLAGS, CLI, 'archiver']);
  });

  it('does not re-execute when the flags or the operator own heap sizing are there, for short commands, other scripts, old Node, or RUNNEL_V8_REEXEC=0', () => {
    expect(startupReexecArgs(input({ execArgv: [...V8_STARTUP_FLAGS] }))).toBeNull();
    expect(startupReexecArgs(input({ execArgv: ['--initial-old-space-size=512'] }))).toBeNull();
    expect(startupReexecArgs(input({ execArgv: ['--initial_heap_size=256'] }))).toBeNull();
    expect(startupReexecArgs(input({ argv: ['/usr/bin/node', CLI, 'apis'] }))).toBeNull();
    expect(startupReexecArgs(input({ argv: ['/usr/bin/node', CLI] }))).toBeNull();
    expect(startupReexecArgs(input({ argv: ['/usr/bin/node', '/somewhere/vitest.mjs', 'broker'] }))).toBeNull();
    expect(startupReexecArgs(input({ nodeSupportsFlags: false }))).toBeNull();
    expect(startupReexecArgs(input({ env: { RUNNEL_V8_REEXEC: '0' } }))).toBeNull();
  });
});
