// Applies cli/v8-flags.ts before anything else is loaded (this module is
// cli/main.ts's first import): the run-time flags, and for `runnel broker`
// and `runnel archiver` started without the start-up heap flags, a re-exec of
// node with them. process.execve replaces the process image, so the pid, the
// open stdio and the parent's view of the process stay the same (a SIGKILL
// still reaches the broker); it happens before any module of the broker loads.
import v8 from 'node:v8';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { startupReexecArgs, V8_FLAGS, V8_FLAGS_APPLY, V8_STARTUP_FLAGS } from './v8-flags.js';

if (isMainThread && typeof process.execve === 'function') {
  const args = startupReexecArgs({
    argv: process.argv,
    execArgv: process.execArgv,
    env: process.env,
    cliPath: fileURLToPath(new URL('./runnel.js', import.meta.url)),
    nodeSupportsFlags: V8_FLAGS_APPLY,
  });
  if (args) {
    try {
      process.execve(process.execPath, args, process.env);
    } catch (e) {
      // Runs on without them: only the GC schedule differs.
      process.stderr.write(`runnel: could not re-execute node with ${V8_STARTUP_FLAGS.join(' ')} (${e instanceof Error ? e.message : String(e)}); continuing without it\n`);
    }
  }
}

if (V8_FLAGS_APPLY) for (const flag of V8_FLAGS) v8.setFlagsFromString(flag);
