#!/usr/bin/env node
// `runnel`'s entry: checks the Node.js version first (RN3005, a plain message
// and exit 1 on an older Node) and only then loads the CLI (cli/main.ts).
// Static imports are evaluated before any code of a module, so everything
// that may need Node 26 is behind the dynamic import below; this module and
// cli/node-version.ts import nothing that needs it.
import { nodeTooOld } from './node-version.js';

const tooOld = nodeTooOld(process.versions.node, process.execPath);
if (tooOld) {
  process.stderr.write(tooOld);
  process.exit(1);
}
await import('./main.js');
