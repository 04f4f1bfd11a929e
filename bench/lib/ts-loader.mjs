// Runs the bench's TypeScript sources (and the test/helpers they reuse) in place,
// without a build step: `node --import ./bench/lib/ts-loader.mjs bench/run.ts`.
// Node 20 has no type stripping, so .ts files are transpiled on load with the
// project's own `typescript` (ts.transpileModule: no type checking here; the
// bench script runs `tsc -p bench/tsconfig.json --noEmit` first). Running the
// sources in place matters: test/helpers/procs.ts derives the repo root from
// its own location.
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);
