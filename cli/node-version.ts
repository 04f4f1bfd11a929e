// The Node.js line Runnel needs (package.json `engines`, cli/node-lts.sh's
// RUNNEL_NODE_MAJOR). Imports only common/errors.ts (which imports nothing),
// so cli/runnel.ts can check it on any Node before loading modules that need
// Node 26 (node:zlib's zstd functions).
import { RunnelError } from '../common/errors.js';

export const NODE_MAJOR_NEEDED = 26;

/** Null when `version` (process.versions.node, e.g. "20.20.2") is new enough; else the RN3005 message to print. */
export function nodeTooOld(version: string, execPath: string): string | null {
  const major = Number(version.split('.')[0]);
  if (Number.isInteger(major) && major >= NODE_MAJOR_NEEDED) return null;
  return `${new RunnelError('NODE_TOO_OLD', `runnel needs Node.js ${NODE_MAJOR_NEEDED} or newer; this is v${version} (${execPath})`).message}\n`
    + `  Start it with ./runnel from the checkout, which fetches Node.js ${NODE_MAJOR_NEEDED} into .cache/node once (cli/node-lts.sh),\n`
    + `  or install Node.js ${NODE_MAJOR_NEEDED} (https://nodejs.org/en/download) and run runnel with that node.\n`;
}
