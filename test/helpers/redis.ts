// Starts a private redis-server or valkey-server for a test.
//
//   const r = await startRedis();               // flavor from RUNNEL_TEST_BACKEND
//   r.url  -> redis://127.0.0.1:<port>
//   await r.kill();  await r.restart();          // crash + recover from the AOF
//   await r.stop();                              // final; removes the temp dir
//
// Defaults: no RDB snapshots (--save ''), appendonly yes, appendfsync everysec.
//
// RUNNEL_TEST_BACKEND = redis | valkey | redis-cluster | valkey-cluster.
// With a -cluster backend startRedis() starts a Redis Cluster of that flavor
// (3 primaries + 3 replicas, see redis-cluster.ts) and returns it behind the
// same RedisServer interface: url = the comma-separated seeds (initial
// primaries), host/port/dir/proc = the first primary, command() routed like a
// cluster client (follows MOVED/ASK), kill() = SIGKILL every node, restart() =
// start every node again and wait until the cluster is healthy; the cluster
// itself is in `.cluster`. opts.cluster = false forces a single node.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort, HOST, spawnManaged, waitFor, type ManagedProcess } from './procs.js';
import { startRedisCluster, type RedisCluster } from './redis-cluster.js';

export type RedisFlavor = 'redis' | 'valkey';
export type RedisBackend = RedisFlavor | 'redis-cluster' | 'valkey-cluster';

const BACKENDS: readonly RedisBackend[] = ['redis', 'valkey', 'redis-cluster', 'valkey-cluster'];

/** RUNNEL_TEST_BACKEND as given (default 'redis'); throws on an unknown value. */
export function rawBackendFromEnv(): RedisBackend {
  const v = (process.env.RUNNEL_TEST_BACKEND ?? 'redis').trim().toLowerCase();
  if ((BACKENDS as readonly string[]).includes(v)) return v as RedisBackend;
  throw new Error(`RUNNEL_TEST_BACKEND must be one of ${BACKENDS.join(', ')}; got '${v}'`);
}

/** The server flavor of RUNNEL_TEST_BACKEND: 'redis-cluster' -> 'redis', 'valkey-cluster' -> 'valkey'. */
export function flavorFromEnv(): RedisFlavor {
  return rawBackendFromEnv().startsWith('valkey') ? 'valkey' : 'redis';
}

/** The flavor (kept for existing callers; cluster or not: see clusterFromEnv()). */
export function backendFromEnv(): RedisFlavor {
  return flavorFromEnv();
}

/** True when RUNNEL_TEST_BACKEND is redis-cluster or valkey-cluster. */
export function clusterFromEnv(): boolean {
  return rawBackendFromEnv().endsWith('-cluster');
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
  /**
   * Start a Redis Cluster (3 primaries + 3 replicas) instead of one server.
   * Default: clusterFromEnv(). port and dir cannot be combined with it.
   */
  cluster?: boolean;
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
  /** Set when this is a Redis Cluster (RUNNEL_TEST_BACKEND=*-cluster or opts.cluster). */
  cluster?: RedisCluster;
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

/** A Redis Cluster behind the RedisServer interface (see the header). */
async function startClusterServer(opts: StartRedisOptions): Promise<RedisServer> {
  if (opts.port !== undefined || opts.dir !== undefined) {
    throw new Error('startRedis: port/dir cannot be chosen for a Redis Cluster backend (pass cluster: false for a single server)');
  }
  const cluster = await startRedisCluster({
    flavor: opts.flavor ?? flavorFromEnv(),
    appendonly: opts.appendonly,
    appendfsync: opts.appendfsync,
    args: opts.args,
    startTimeoutMs: opts.startTimeoutMs,
  });
  // The first primary (seeds are the initial primaries in creation order).
  const seed = cluster.nodes.find((n) => n.url === cluster.seeds.split(',')[0]) ?? cluster.nodes[0]!;
  return {
    flavor: cluster.flavor,
    url: cluster.url,
    host: seed.host,
    port: seed.port,
    dir: seed.dir,
    cluster,
    proc: () => seed.proc(),
    stop: () => cluster.stop(),
    restart: () => cluster.restartAll(),
    kill: () => cluster.killAll(),
    command: (line: string) => cluster.clusterCommand(line),
  };
}

export async function startRedis(opts: StartRedisOptions = {}): Promise<RedisServer> {
  if (opts.cluster ?? clusterFromEnv()) return startClusterServer(opts);
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
