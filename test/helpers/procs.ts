// Child-process plumbing for the integration tests.
//
// - Every child writes stdout+stderr straight into a file under
//   .cache/test-logs (the fd is handed to the child; nothing is piped
//   through this process, so chatty servers cost us nothing).
// - Every child is SIGKILLed when this (vitest worker) process exits or is
//   signalled, so a failed test never leaves a Kafka JVM or a Redis behind.
// - freePort() hands out distinct free ports on 127.0.0.1.
// - waitForPort() polls a TCP port and fails fast (with the log tail) if the
//   process it is waiting for dies first.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CACHE_DIR = path.join(REPO_ROOT, '.cache');
export const LOG_DIR = path.join(CACHE_DIR, 'test-logs');
export const HOST = '127.0.0.1';

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

let logSeq = 0;
/** A fresh log file path under .cache/test-logs, unique per call. */
export function logFilePath(name: string, ext = 'log'): string {
  fs.mkdirSync(LOG_DIR, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const safe = name.replace(/[^A-Za-z0-9_.-]+/g, '_');
  return path.join(LOG_DIR, `${stamp}-${process.pid}-${++logSeq}-${safe}.${ext}`);
}

/** Last `bytes` of a file, '' if it cannot be read. */
export function tailFile(file: string, bytes = 4000): string {
  try {
    const st = fs.statSync(file);
    const fd = fs.openSync(file, 'r');
    try {
      const len = Math.min(bytes, st.size);
      const buf = Buffer.alloc(len);
      fs.readSync(fd, buf, 0, len, st.size - len);
      return buf.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '';
  }
}

// ----------------------------------------------------------- kill on exit ---
const live = new Set<ChildProcess>();
let hooksInstalled = false;

function killAllNow(): void {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
  live.clear();
}

function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', killAllNow);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const handler = (): void => {
      killAllNow();
      // If nobody else handles this signal, restore the default action.
      if (process.listenerCount(sig) === 1) {
        process.removeListener(sig, handler);
        process.kill(process.pid, sig);
      }
    };
    process.on(sig, handler);
  }
}

// ------------------------------------------------------------------ spawn ---
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ManagedProcess {
  name: string;
  pid: number;
  logFile: string;
  child: ChildProcess;
  /** Resolves when the process has exited (never rejects). */
  exited: Promise<ExitInfo>;
  /** Null while running. */
  exitInfo(): ExitInfo | null;
  /** Null while running; the exit code once exited, or -1 if it died by a signal. */
  readonly exitCode: number | null;
  running(): boolean;
  /** SIGTERM, then SIGKILL after `graceMs`. Resolves once it is gone. */
  stop(graceMs?: number): Promise<ExitInfo>;
  /** SIGKILL (crash simulation). Resolves once it is gone. */
  kill(): Promise<ExitInfo>;
  /** Last bytes of the log file. */
  tail(bytes?: number): string;
}

export interface SpawnOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Log file to append to; default: a fresh file under .cache/test-logs. */
  logFile?: string;
}

export function spawnManaged(name: string, cmd: string, args: string[], opts: SpawnOptions = {}): ManagedProcess {
  installExitHooks();
  const logFile = opts.logFile ?? logFilePath(name);
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const fd = fs.openSync(logFile, 'a');
  fs.writeSync(fd, `# ${new Date().toISOString()} ${cmd} ${args.map((a) => JSON.stringify(a)).join(' ')}\n`);
  let child: ChildProcess;
  try {
    child = spawn(cmd, args, {
      cwd: opts.cwd ?? REPO_ROOT,
      env: opts.env ?? process.env,
      stdio: ['ignore', fd, fd],
    });
  } finally {
    fs.closeSync(fd);
  }
  let info: ExitInfo | null = null;
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('exit', (code, signal) => {
      info = { code, signal };
      live.delete(child);
      resolve(info);
    });
    child.once('error', (err) => {
      // spawn failure (ENOENT, ...): record it in the log and report as exited.
      try {
        fs.appendFileSync(logFile, `# spawn error: ${String(err)}\n`);
      } catch {
        /* ignore */
      }
      info = { code: -1, signal: null };
      live.delete(child);
      resolve(info);
    });
  });
  if (child.pid !== undefined) live.add(child);

  const kill = async (sig: NodeJS.Signals): Promise<ExitInfo> => {
    if (info) return info;
    try {
      child.kill(sig);
    } catch {
      /* ignore */
    }
    return exited;
  };

  return {
    name,
    pid: child.pid ?? -1,
    logFile,
    child,
    exited,
    exitInfo: () => info,
    get exitCode(): number | null {
      if (!info) return null;
      return info.code ?? -1;
    },
    running: () => info === null,
    async stop(graceMs = 10_000) {
      if (info) return info;
      child.kill('SIGTERM');
      const timer = setTimeout(() => {
        if (!info) child.kill('SIGKILL');
      }, graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
    kill: () => kill('SIGKILL'),
    tail: (bytes = 4000) => tailFile(logFile, bytes),
  };
}

// ------------------------------------------------------------------ ports ---
const handedOut = new Set<number>();

function probeFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen({ host: HOST, port: 0, exclusive: true }, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** A TCP port on 127.0.0.1 that was free just now and not handed out before by this process. */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = await probeFreePort();
    if (port > 0 && !handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('freePort: could not find a free port');
}

/** True if something accepts TCP connections on host:port right now. */
export function portOpen(port: number, host = HOST, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ host, port });
    const done = (ok: boolean): void => {
      sock.removeAllListeners();
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

export interface WaitOptions {
  host?: string;
  timeoutMs?: number;
  intervalMs?: number;
  /** Fail fast if this process exits while we wait. */
  proc?: ManagedProcess;
}

export async function waitForPort(port: number, opts: WaitOptions = {}): Promise<void> {
  await waitFor(`port ${opts.host ?? HOST}:${port}`, () => portOpen(port, opts.host ?? HOST), opts);
}

/** Polls `check` until it returns true; throws on timeout or if opts.proc dies. */
export async function waitFor(what: string, check: () => Promise<boolean> | boolean, opts: WaitOptions = {}): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const intervalMs = opts.intervalMs ?? 100;
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  for (;;) {
    const ex = opts.proc?.exitInfo();
    if (opts.proc && ex) {
      throw new Error(
        `${opts.proc.name} exited (code ${ex.code}, signal ${ex.signal}) while waiting for ${what}; log ${opts.proc.logFile}:\n${opts.proc.tail()}`,
      );
    }
    try {
      if (await check()) return;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() > deadline) {
      const extra = opts.proc ? `; log ${opts.proc.logFile}:\n${opts.proc.tail()}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastErr ? ` (last error: ${String(lastErr)})` : ''}${extra}`);
    }
    await sleep(intervalMs);
  }
}

// ------------------------------------------------------------ run to end ---
export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  durationMs: number;
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  input?: string | Buffer;
  /** Also save stdout/stderr under .cache/test-logs with this name. */
  logName?: string;
}

/** Runs a command to completion, capturing stdout/stderr; SIGKILL on timeout. */
export function runCommand(cmd: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  installExitHooks();
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd ?? REPO_ROOT,
      env: opts.env ?? process.env,
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (child.pid !== undefined) live.add(child);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (b: Buffer) => out.push(b));
    child.stderr?.on('data', (b: Buffer) => err.push(b));
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    let timedOut = false;
    const timer =
      opts.timeoutMs !== undefined
        ? setTimeout(() => {
            timedOut = true;
            child.kill('SIGKILL');
          }, opts.timeoutMs)
        : undefined;
    let spawnError: Error | undefined;
    child.once('error', (e) => {
      spawnError = e;
    });
    child.once('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      live.delete(child);
      const res: RunResult = {
        code: spawnError ? -1 : code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8') + (spawnError ? `\nspawn error: ${String(spawnError)}` : ''),
        timedOut,
        durationMs: Date.now() - started,
      };
      if (opts.logName) {
        try {
          const f = logFilePath(opts.logName);
          fs.writeFileSync(
            f,
            `# ${cmd} ${args.map((a) => JSON.stringify(a)).join(' ')}\n# code=${res.code} signal=${res.signal} timedOut=${timedOut} ms=${res.durationMs}\n` +
              `## stdout\n${res.stdout}\n## stderr\n${res.stderr}`,
          );
        } catch {
          /* ignore */
        }
      }
      resolve(res);
    });
  });
}
