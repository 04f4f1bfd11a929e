#!/usr/bin/env node
// Standalone archiver process (used by tests and benchmarks; the CLI wires runArchiver itself).
// Configuration comes from the environment (see config.ts). SIGTERM/SIGINT flush and exit.
import { loadConfig, runArchiver } from './main.js';

let h: Awaited<ReturnType<typeof runArchiver>>;
try {
  h = await runArchiver(loadConfig());
} catch (e) {
  // a configuration error (RN3001) or Redis unreachable at start: say why, exit non-zero
  process.stderr.write(JSON.stringify({ level: 'error', msg: 'archiver cannot start', err: e instanceof Error ? e.message : String(e) }) + '\n');
  process.exit(1);
}
let stopping = false;
const stop = async (sig: string) => {
  if (stopping) return;
  stopping = true;
  process.stderr.write(JSON.stringify({ level: 'info', msg: `received ${sig}, stopping` }) + '\n');
  await h.stop();
  process.exit(0);
};
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
if (process.env.RUNNEL_ARCHIVER_STATUS_MS) {
  setInterval(() => {
    process.stdout.write(JSON.stringify({ stats: h.stats(), lag: h.lag() }) + '\n');
  }, Number(process.env.RUNNEL_ARCHIVER_STATUS_MS)).unref();
}
