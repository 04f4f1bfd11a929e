// With no Redis configured, the broker runs its own redis-server (or
// valkey-server) child with AOF persistence under the data folder.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { resolve } from 'node:path';
import { RunnelError } from '../../../common/errors.js';
import type { Logger } from '../../../common/logger/logger.js';
import { RECOMMENDED_AOF_REWRITE_PERCENTAGE, RECOMMENDED_STREAM_NODE_MAX_BYTES } from './server-checks.js';

const CANDIDATES = ['redis-server', 'valkey-server'];

function findServer(): string | null {
  for (const bin of CANDIDATES) {
    if (spawnSync('sh', ['-c', `command -v ${bin}`]).status === 0) return bin;
  }
  return null;
}

function tryInstall(logger: Logger): void {
  if (process.getuid?.() !== 0 || spawnSync('sh', ['-c', 'command -v apt-get']).status !== 0) return;
  logger.info('redis-server not found; installing it with apt-get');
  spawnSync('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server'], { stdio: 'inherit' });
}

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

/**
 * File under the data folder holding the URL of the running embedded Redis
 * (`redis://127.0.0.1:<port>`): `runnel archiver` with the same data folder and
 * no --redis reads it. Written once the server answers, removed on stop.
 */
export const EMBEDDED_REDIS_URL_FILE = 'redis.url';

/** The embedded server's stdout and stderr, appended, under `<data dir>/redis/`. */
export const EMBEDDED_REDIS_LOG_FILE = 'redis-server.log';

/** The URL a broker's embedded Redis published under `dataDir`, or null when there is none. */
export function readEmbeddedRedisUrl(dataDir: string): string | null {
  try {
    const url = readFileSync(resolve(dataDir, EMBEDDED_REDIS_URL_FILE), 'utf8').trim();
    return /^redis:\/\/\S+$/.test(url) ? url : null;
  } catch {
    return null;
  }
}

export interface EmbeddedRedis {
  url: string;
  stop(): Promise<void>;
}

export async function startEmbeddedRedis(dataDir: string, logger: Logger): Promise<EmbeddedRedis> {
  let bin = findServer();
  if (!bin) {
    tryInstall(logger);
    bin = findServer();
  }
  if (!bin) {
    throw new RunnelError('EMBEDDED_REDIS_FAILED',
      'no redis-server or valkey-server on PATH. Install one (Debian/Ubuntu: `sudo apt-get install redis-server`), or point the broker at a server with --redis redis://host:port');
  }
  const dir = resolve(dataDir, 'redis');
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  // The server's own output goes to its own file in the data folder, not into the broker's JSON log.
  const logFile = resolve(dir, EMBEDDED_REDIS_LOG_FILE);
  const out = openSync(logFile, 'a');
  const child: ChildProcess = spawn(bin, [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir,
    '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', '',
    '--stream-node-max-bytes', String(RECOMMENDED_STREAM_NODE_MAX_BYTES), // batches share stream nodes (server-checks.ts)
    '--rdbcompression', 'no', // AOF rewrites write the log as it is, without LZF (docs/durability.md "Redis settings")
    '--auto-aof-rewrite-percentage', String(RECOMMENDED_AOF_REWRITE_PERCENTAGE), // a rewrite per 4x growth, not 1x (server-checks.ts)
    '--protected-mode', 'yes', '--daemonize', 'no', '--loglevel', 'notice', // its own file: start-up and AOF notices help
  ], { stdio: ['ignore', out, out] });
  closeSync(out);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  await new Promise<void>((res, rej) => {
    const deadline = Date.now() + 15_000;
    const probe = (): void => {
      const c = connect(port, '127.0.0.1');
      c.once('connect', () => { c.destroy(); res(); });
      c.once('error', () => {
        c.destroy();
        if (child.exitCode !== null || Date.now() > deadline) rej(new RunnelError('EMBEDDED_REDIS_FAILED', `${bin} did not start (its output: ${logFile})`));
        else setTimeout(probe, 50);
      });
    };
    probe();
  });
  const url = `redis://127.0.0.1:${port}`;
  const urlFile = resolve(dataDir, EMBEDDED_REDIS_URL_FILE);
  writeFileSync(urlFile, `${url}\n`);
  logger.info('embedded redis started', { bin, port, dir, urlFile, logFile });
  return {
    url,
    async stop() {
      // only this process's URL: a newer broker on the same folder may have replaced it
      if (readEmbeddedRedisUrl(dataDir) === url) rmSync(urlFile, { force: true });
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
