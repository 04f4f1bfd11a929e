// V8 settings for the broker and archiver processes. The flags and the re-exec
// decision live here, side-effect free; cli/v8-setup.ts applies them (it is
// cli/main.ts's first import).
//
// Both processes move most bytes through Buffers: socket chunks, request
// frames, Redis replies. Each one is an ArrayBuffer whose memory is outside
// V8's heap. By default V8 starts a full (mark-compact) GC each time such
// external memory grows by a fixed soft limit, which at 100 MB/s of produce
// traffic meant about 10 full GCs a second of a 15 MB heap: 30% of the
// broker's CPU. Counting external memory in V8's global limit instead (which
// grows with the heap) keeps it bounded with a third of the full GCs. The
// remaining full GCs came from the global limit starting, and after every full
// GC being recomputed, from the small live heap; an initial old-space size is
// also V8's floor for that limit, so no full GC runs below it. Measured:
// docs/architecture.md, "Garbage collection".
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';

/** Set at run time (v8.setFlagsFromString) by cli/v8-setup.ts. */
export const V8_FLAGS = ['--external-memory-accounted-in-global-limit'] as const;

/**
 * Heap sizing that V8 reads only when it creates the heap, so it must be on
 * node's command line: `runnel broker` and `runnel archiver` started without
 * it re-execute themselves with it (same pid, see startupReexecArgs).
 */
export const V8_STARTUP_FLAGS = ['--initial-old-space-size=128'] as const;

/** The flags exist in the V8 of Node 26 (the LTS ./runnel runs on), not in Node 20's, where V8 would print an error. */
export const V8_FLAGS_APPLY = Number(process.versions.node.split('.')[0]) >= 26;

/** The long-running commands, the only ones worth a re-exec. */
const REEXEC_COMMANDS = new Set(['broker', 'archiver']);

/** Flags that size the old generation: one given by the operator wins over ours. */
const HEAP_SIZING = ['--initial-old-space-size', '--initial-heap-size'];

const flagName = (f: string): string => f.split('=')[0]!.replace(/_/g, '-');

function samePath(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return resolve(a) === resolve(b);
  }
}

export interface ReexecInput {
  /** process.argv: node, the script, the command, ... */
  argv: readonly string[];
  /** process.execArgv: node's own flags */
  execArgv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  /** the path of dist/cli/runnel.js */
  cliPath: string;
  nodeSupportsFlags: boolean;
}

/**
 * The argv to re-execute node with so that V8_STARTUP_FLAGS apply, or null
 * when no re-exec is needed: the flags (or the operator's own heap sizing) are
 * already on node's command line, the script is not the runnel CLI (a test
 * runner importing it), the command is a short one, the Node is too old, or
 * RUNNEL_V8_REEXEC=0.
 */
export function startupReexecArgs(o: ReexecInput): string[] | null {
  if (!o.nodeSupportsFlags || o.env.RUNNEL_V8_REEXEC === '0') return null;
  const script = o.argv[1];
  if (!script || !samePath(script, o.cliPath)) return null;
  if (!REEXEC_COMMANDS.has(o.argv[2] ?? '')) return null;
  const given = new Set(o.execArgv.map(flagName));
  if (HEAP_SIZING.some((f) => given.has(f))) return null;
  return [o.argv[0]!, ...V8_STARTUP_FLAGS, ...o.execArgv, ...o.argv.slice(1)];
}
