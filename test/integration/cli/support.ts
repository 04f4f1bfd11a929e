// Runs the built `runnel` CLI (dist/, `npm run build` first) against a broker.
import { RUNNEL_CLI } from '../../helpers/runnel.js';
import { runCommand, spawnManaged, type ManagedProcess, type RunResult } from '../../helpers/procs.js';

export function runnel(bootstrap: string, args: string[], opts: { input?: string | Buffer; timeoutMs?: number } = {}): Promise<RunResult> {
  return runCommand(process.execPath, [RUNNEL_CLI, ...args, '--bootstrap-server', bootstrap], { input: opts.input, timeoutMs: opts.timeoutMs ?? 60_000 });
}

/** A long-running `runnel` (a group consumer), stopped by the test. */
export function runnelProcess(name: string, bootstrap: string, args: string[]): ManagedProcess {
  return spawnManaged(name, process.execPath, [RUNNEL_CLI, ...args, '--bootstrap-server', bootstrap]);
}

/** Asserts exit code 0 and returns stdout. */
export function ok(r: RunResult): string {
  if (r.code !== 0) throw new Error(`exit ${r.code}${r.timedOut ? ' (timed out)' : ''}: ${r.stderr}`);
  return r.stdout;
}
