// `runnel dev`: a playground in one command. Starts a broker (with its embedded
// Redis unless --redis is given), its HTTP endpoint (web console, /metrics) on
// a fixed port, the Schema Registry, and the archiver into the local lake, each as its own child
// process exactly as `runnel broker` and `runnel archiver` run them; prints
// where each listens and a first produce/consume line; Ctrl-C stops the
// archiver first, then the broker (which stops its embedded Redis).
//
// The children run in their own process group, so a terminal's Ctrl-C reaches
// only this process, which then stops them in order. A child that exits on its
// own stops the rest, and `runnel dev` exits 1. Fixed ports are defaults in
// the children's environment (RUNNEL_HTTP_PORT=8080), so the broker's usual
// precedence applies: an environment variable or a flag given here wins.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { loadBrokerConfig, type BrokerConfig } from '../broker/src/config/config.js';
import { readEmbeddedRedisUrl } from '../broker/src/redis/embedded-redis.js';
import { listenError } from '../broker/src/server/listen-error.js';
import { registryListeners } from '../broker/src/schema-registry/server.js';
import { devBanner, type DevEndpoints } from './dev-banner.js';

/** Settings `runnel dev` gives the broker unless the environment or a flag says otherwise. */
export const DEV_DEFAULTS: Readonly<Record<string, string>> = {
  RUNNEL_HTTP_PORT: '8080',
  RUNNEL_SCHEMA_REGISTRY_LISTENERS: 'http://127.0.0.1:8081',
};

/** How long a child may take to stop after SIGTERM before it is killed. */
const STOP_GRACE_MS = 30_000;
/** How long the broker may take to listen (a first run may start redis-server and write its AOF). */
const START_TIMEOUT_MS = 120_000;

interface Child {
  name: string;
  proc: ChildProcess;
  exited: Promise<number | null>;
}

/** Spawns `runnel <args>` (this same CLI, on this same Node) with its output prefixed line by line. */
function spawnRunnel(name: string, args: string[], env: NodeJS.ProcessEnv): Child {
  const proc = spawn(process.execPath, [process.argv[1]!, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const prefix = `${name.padEnd(8)} | `;
  for (const [from, to] of [[proc.stdout, process.stdout], [proc.stderr, process.stderr]] as const) {
    createInterface({ input: from!, crlfDelay: Infinity }).on('line', (l) => to.write(prefix + l + '\n'));
  }
  const exited = new Promise<number | null>((res) => proc.once('exit', (code, signal) => res(code ?? (signal ? 128 : null))));
  return { name, proc, exited };
}

function connects(host: string, port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = net.connect({ host, port });
    s.setTimeout(1000);
    s.once('connect', () => { s.destroy(); res(true); });
    s.once('error', () => res(false));
    s.once('timeout', () => { s.destroy(); res(false); });
  });
}

/**
 * Fails with RN3004 when another process holds the Kafka port: readiness is
 * judged by a connection to it, which that process would answer.
 */
function checkPortFree(host: string, port: number, setting: string): Promise<void> {
  return new Promise((res, rej) => {
    const s = net.createServer();
    s.once('error', (e) => rej(listenError(e, host, port, setting) as Error));
    s.listen(port, host, () => s.close(() => res()));
  });
}

/** Resolves once host:port accepts a connection; rejects when `child` exits first or time runs out. */
async function waitListening(child: Child, host: string, port: number): Promise<void> {
  let gone = false;
  void child.exited.then(() => { gone = true; });
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!gone && Date.now() < deadline) {
    if (await connects(host, port)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(gone ? `the ${child.name} exited before listening on ${host}:${port}` : `the ${child.name} did not listen on ${host}:${port} within ${START_TIMEOUT_MS / 1000} s`);
}

/** SIGTERM, then SIGKILL after the grace period; resolves when the child has exited. */
async function stopChild(c: Child, graceMs = STOP_GRACE_MS): Promise<void> {
  if (c.proc.exitCode !== null || c.proc.signalCode !== null) return;
  c.proc.kill('SIGTERM');
  const timer = setTimeout(() => c.proc.kill('SIGKILL'), graceMs);
  await c.exited;
  clearTimeout(timer);
}

/** The address clients use for the first listener (a wildcard bind is reached on the loopback). */
function kafkaAddress(cfg: BrokerConfig): { host: string; port: number } {
  const l = cfg.listeners[0]!;
  const host = !l.host || l.host === '0.0.0.0' || l.host === '::' ? '127.0.0.1' : l.host;
  return { host, port: l.port };
}

/** Runs the playground until SIGINT/SIGTERM (exit code 0) or until a child dies (1). */
export async function devCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const childEnv: NodeJS.ProcessEnv = { ...DEV_DEFAULTS, ...env };
  // On a terminal the children log one readable line per record (pino-pretty); piped, JSON as everywhere else.
  if (!env.RUNNEL_LOG_FORMAT && process.stdout.isTTY) childEnv.RUNNEL_LOG_FORMAT = 'pretty';
  // The settings the broker child will compute, read here to know its ports and data folder.
  const cfg = loadBrokerConfig(args, childEnv);
  const kafka = kafkaAddress(cfg);
  if (kafka.port === 0) throw new Error('runnel dev needs a fixed Kafka port (listeners=PLAINTEXT://127.0.0.1:9092 by default)');
  const dataDir = resolve(cfg.dataDir);
  // The broker's own parse of schema.registry.listeners (a bad value fails here as it would in the broker).
  let registries: Array<{ url: string; host: string; port: number }> = [];
  try {
    registries = registryListeners(cfg).map((l) => ({ url: `${l.tls ? 'https' : 'http'}://${l.settings.host.includes(':') ? `[${l.settings.host}]` : l.settings.host}:${l.settings.port}`, host: l.settings.host, port: l.settings.port }));
    await checkPortFree(cfg.listeners[0]!.host, kafka.port, '--port (or listeners)');
    if (cfg.httpPort > 0) await checkPortFree(cfg.httpHost, cfg.httpPort, 'http.port');
    for (const r of registries) await checkPortFree(r.host, r.port, 'schema.registry.listeners');
  } catch (e) {
    process.stderr.write(`runnel dev: ${(e as Error).message}\n`);
    return 1;
  }
  const children: Child[] = [];
  // A crash of this process (not SIGKILL) takes the children with it.
  process.on('exit', () => { for (const c of children) c.proc.kill('SIGKILL'); });

  let stopping = false;
  const stopAll = async (): Promise<void> => {
    stopping = true;
    // The archiver first: it needs Redis, which stops with the broker when embedded.
    for (const c of [...children].reverse()) await stopChild(c);
  };
  const signalled = new Promise<void>((res) => {
    let count = 0;
    const onSignal = (): void => {
      // A second Ctrl-C does not wait for the orderly stop.
      if (++count > 1) for (const c of children) c.proc.kill('SIGKILL');
      res();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });

  const broker = spawnRunnel('broker', ['broker', ...args], childEnv);
  children.push(broker);
  const firstExit = (): Promise<Child> => Promise.race(children.map((c) => c.exited.then(() => c)));
  try {
    const listening = async (): Promise<void> => {
      await waitListening(broker, kafka.host, kafka.port);
      if (cfg.httpPort > 0) await waitListening(broker, cfg.httpHost, cfg.httpPort);
      for (const r of registries) await waitListening(broker, r.host, r.port);
    };
    await Promise.race([listening(), signalled.then(() => { throw new Error('stopped before the broker listened'); })]);
  } catch (e) {
    await stopAll();
    process.stderr.write(`runnel dev: ${(e as Error).message}\n`);
    return 1;
  }
  const redisUrl = cfg.redisUrl || readEmbeddedRedisUrl(dataDir) || '';
  const archiverEnv: NodeJS.ProcessEnv = { ...childEnv, RUNNEL_DATA_DIR: dataDir };
  if (cfg.redisUrl) archiverEnv.RUNNEL_REDIS_URL = cfg.redisUrl;
  children.push(spawnRunnel('archiver', ['archiver'], archiverEnv));

  const endpoints: DevEndpoints = {
    kafka: `${kafka.host}:${kafka.port}`,
    http: cfg.httpPort > 0 ? `http://${cfg.httpHost}:${cfg.httpPort}` : null,
    console: cfg.httpPort > 0 && cfg.httpConsoleEnable,
    registry: registries[0]?.url ?? null,
    redis: redisUrl,
    lake: archiverEnv.RUNNEL_LAKE ?? `file://${resolve(dataDir, 'lake')}`,
  };
  process.stdout.write(devBanner(endpoints));

  const outcome = await Promise.race([signalled.then(() => null), firstExit()]);
  if (outcome && !stopping) {
    process.stderr.write(`runnel dev: the ${outcome.name} exited (code ${outcome.proc.exitCode ?? outcome.proc.signalCode}); stopping the rest\n`);
    await stopAll();
    return 1;
  }
  await stopAll();
  return 0;
}
