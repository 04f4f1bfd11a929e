#!/usr/bin/env node
// Standalone archiver process (used by tests and benchmarks; the CLI wires runArchiver itself).
// Configuration comes from the environment (see config.ts). SIGTERM/SIGINT flush and exit.
import { loadConfig, runArchiver } from './main.js';
import { createLogger, setLogFormat } from '../../common/logger/logger.js';

// the same JSON format (and URL redaction) as every other line of the archiver
let log = createLogger('info', 'archiver');

let h: Awaited<ReturnType<typeof runArchiver>>;
try {
  const config = loadConfig();
  setLogFormat(config.logFormat); // RUNNEL_LOG_FORMAT, as `runnel archiver` does
  log = createLogger(config.logLevel, 'archiver', { fields: { id: config.archiverId } });
  h = await runArchiver(config);
} catch (e) {
  // a configuration error (RN3001) or Redis unreachable at start: say why, exit non-zero
  log.error('archiver cannot start', { err: e instanceof Error ? e.message : String(e) });
  process.exit(1);
}
let stopping = false;
const stop = async (sig: string) => {
  if (stopping) return;
  stopping = true;
  log.info(`received ${sig}, stopping`);
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
