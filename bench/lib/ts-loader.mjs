// Runs the bench's TypeScript sources (and the test/helpers they reuse) in place,
// without a build step: `node --import ./bench/lib/ts-loader.mjs bench/run.ts`.
// Node 20 has no type stripping, so .ts files are transpiled on load with the
// project's own `typescript` (ts.transpileModule: no type checking here; the
// bench script runs `tsc -p bench/tsconfig.json --noEmit` first). Running the
// sources in place matters: test/helpers/procs.ts derives the repo root from
// its own location.
import { register } from 'node:module';

// The brokers the bench starts run on this node (process.execPath): an older
// one (Debian's Node 20) fails them at start-up. bench/bench.sh (npm run bench)
// puts Node 26 first on PATH.
const major = Number(process.versions.node.split('.')[0]);
if (major < 26) {
  process.stderr.write(`bench: Node ${process.versions.node} is older than 26, the line Runnel runs on: run 'npm run bench' (bench/bench.sh puts Node 26 first)\n`);
  process.exit(1);
}

register('./ts-hooks.mjs', import.meta.url);
