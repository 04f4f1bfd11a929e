// Starts a private redis-server or valkey-server for a test.
//
//   const r = await startRedis();               // flavor from RUNNEL_TEST_BACKEND
//   r.url  -> redis://127.0.0.1:<port>
//   await r.kill();  await r.restart();          // crash + recover from the AOF
//   await r.stop();                              // final; removes the temp dir
//
// Defaults: no RDB snapshots (--save ''), appendonly yes, appendfsync everysec.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort, HOST, spawnManaged, waitFor, type ManagedProcess } from './procs.js';

export type RedisFlavor = 'redis' | 'valkey';

export function backendFromEnv(): RedisFlavor {
  const v = (process.env.RUNNEL_TEST_BACKEND ?? 'redis').trim().toLowerCase();
  if (v === 'redis' || v === 'valkey') return v;
  throw new Error(`RUNNEL_TEST_BACKEND must be 'redis' or 'valkey', got '${v}'`);
}

export interface StartRedisOptions {
  flavor?: RedisFlavor;
  /** Default true (appendfsync everysec). */
  appendonly?: boolean;
  appendfsync?: 'always' | 'everysec' | 'no';
  /** Data dir; default a fresh temp dir (removed by stop()). */
  dir?: string;
  port?: number;
  /** Extra server args, e.g. ['--maxmemory', '1gb']. */
  args?: string[];
  startTimeoutMs?: number;
}

export interface RedisServer {
  flavor: RedisFlavor;
  url: string;
  host: string;
  port: number;
  dir: string;
  /** Current server process (changes on restart). */
  proc(): ManagedProcess;
  /** Graceful shutdown (SIGTERM) and cleanup. Final. */
  stop(): Promise<void>;
  /** Graceful shutdown then start again on the same port and dir. */
  restart(): Promise<void>;
  /** SIGKILL (crash). Call restart() to bring it back. */
  kill(): Promise<void>;
  /** Send one inline command (e.g. 'PING', 'INFO persistence'); returns the raw RESP reply. */
  command(line: string): Promise<string>;
}

/** Sends one inline command and returns the first complete RESP reply (raw). */
export function redisRaw(port: number, line: string, host = HOST, timeoutMs = 2000): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host, port });
    let buf = '';
    const finish = (err: Error | null, value?: string): void => {
      sock.removeAllListeners();
      sock.destroy();
      if (err) reject(err);
      else resolve(value ?? '');
    };
    sock.setTimeout(timeoutMs, () => finish(new Error(`redis ${host}:${port} timed out on '${line}'`)));
    sock.once('error', (e) => finish(e));
    sock.on('connect', () => sock.write(`${line}\r\n`));
    sock.on('data', (d) => {
      buf += d.toString('utf8');
      const nl = buf.indexOf('\r\n');
      if (nl < 0) return;
      if (buf[0] === '$') {
        const len = Number(buf.slice(1, nl));
        if (len < 0) return finish(null, buf.slice(0, nl + 2));
        if (buf.length >= nl + 2 + len + 2) return finish(null, buf.slice(0, nl + 2 + len + 2));
        return;
      }
      finish(null, buf.slice(0, nl + 2));
    });
  });
}

function binaryFor(flavor: RedisFlavor): string {
  return flavor === 'valkey' ? 'valkey-server' : 'redis-server';
}

export async function startRedis(opts: StartRedisOptions = {}): Promise<RedisServer> {
  const flavor = opts.flavor ?? backendFromEnv();
  const port = opts.port ?? (await freePort());
  const ownDir = opts.dir === undefined;
  const dir = opts.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), `runnel-${flavor}-`));
  fs.mkdirSync(dir, { recursive: true });
  const appendonly = opts.appendonly ?? true;
  const args = [
    '--port', String(port),
    '--bind', HOST,
    '--dir', dir,
    '--save', '',
    '--appendonly', appendonly ? 'yes' : 'no',
    '--appendfsync', opts.appendfsync ?? 'everysec',
    '--daemonize', 'no',
    '--logfile', '',
    '--protected-mode', 'no',
    ...(opts.args ?? []),
  ];
  const startTimeoutMs = opts.startTimeoutMs ?? 60_000;

  let proc: ManagedProcess;
  let stopped = false;

  const launch = async (): Promise<void> => {
    proc = spawnManaged(`${flavor}-${port}`, binaryFor(flavor), args);
    // PING answers -LOADING while the AOF is replayed; wait for +PONG.
    await waitFor(
      `${flavor} PONG on ${port}`,
      async () => (await redisRaw(port, 'PING')).startsWith('+PONG'),
      { proc, timeoutMs: startTimeoutMs, intervalMs: 50 },
    );
  };
  await launch();

  const server: RedisServer = {
    flavor,
    url: `redis://${HOST}:${port}`,
    host: HOST,
    port,
    dir,
    proc: () => proc,
    async stop() {
      if (stopped) return;
      stopped = true;
      await proc.stop(15_000);
      if (ownDir && process.env.RUNNEL_TEST_KEEP !== '1') fs.rmSync(dir, { recursive: true, force: true });
    },
    async restart() {
      if (stopped) throw new Error('restart() after stop()');
      await proc.stop(15_000);
      await launch();
    },
    async kill() {
      await proc.kill();
    },
    command: (line: string) => redisRaw(port, line),
  };
  return server;
}
