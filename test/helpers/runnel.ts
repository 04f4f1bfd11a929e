// Starts the Runnel broker (built JS in dist/, `npm run build` first) as a child
// process and waits until it answers a Kafka ApiVersions request.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freePort, HOST, REPO_ROOT, spawnManaged, waitFor, waitForPort, type ExitInfo, type ManagedProcess } from './procs.js';
import { V8_STARTUP_FLAGS } from '../../cli/v8-flags.js';

export const RUNNEL_CLI = path.join(REPO_ROOT, 'dist', 'cli', 'runnel.js');

export interface StartRunnelOptions {
  redisUrl: string;
  port?: number;
  env?: Record<string, string>;
  /** Extra CLI args after the standard ones. */
  args?: string[];
  startTimeoutMs?: number;
}

export interface RunnelBroker {
  bootstrap: string;
  port: number;
  proc(): ManagedProcess;
  /** SIGTERM (graceful), SIGKILL after a grace period. Final. */
  stop(): Promise<void>;
  /** SIGKILL (crash). restart() brings it back. */
  kill(): Promise<void>;
  /** Graceful stop (if running) and start again on the same port. */
  restart(): Promise<void>;
}

/**
 * Sends ApiVersions v0 (api_key 18) and resolves with the response's error code
 * and the number of API ranges. Rejects on I/O errors, timeouts or a
 * correlation-id mismatch.
 */
export function apiVersionsProbe(port: number, host = HOST, timeoutMs = 3000): Promise<{ errorCode: number; apiCount: number }> {
  return new Promise((resolve, reject) => {
    const correlationId = 0x52554e4e; // 'RUNN'
    const clientId = Buffer.from('runnel-test-probe', 'utf8');
    const body = Buffer.alloc(2 + 2 + 4 + 2 + clientId.length);
    let o = 0;
    o = body.writeInt16BE(18, o); // api_key ApiVersions
    o = body.writeInt16BE(0, o); // api_version 0 (request header v1)
    o = body.writeInt32BE(correlationId, o);
    o = body.writeInt16BE(clientId.length, o);
    clientId.copy(body, o);
    const frame = Buffer.alloc(4 + body.length);
    frame.writeInt32BE(body.length, 0);
    body.copy(frame, 4);

    const sock = net.connect({ host, port });
    let buf = Buffer.alloc(0);
    const finish = (err: Error | null, v?: { errorCode: number; apiCount: number }): void => {
      sock.removeAllListeners();
      sock.destroy();
      if (err) reject(err);
      else resolve(v!);
    };
    sock.setTimeout(timeoutMs, () => finish(new Error('ApiVersions probe timed out')));
    sock.once('error', (e) => finish(e));
    sock.once('close', () => finish(new Error('connection closed before ApiVersions response')));
    sock.on('connect', () => sock.write(frame));
    sock.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length < 4) return;
      const size = buf.readInt32BE(0);
      if (buf.length < 4 + size) return;
      if (size < 10) return finish(new Error(`ApiVersions response too short (${size} bytes)`));
      const cid = buf.readInt32BE(4);
      if (cid !== correlationId) return finish(new Error(`ApiVersions correlation id ${cid} != ${correlationId}`));
      finish(null, { errorCode: buf.readInt16BE(8), apiCount: buf.readInt32BE(10) });
    });
  });
}

export async function startRunnel(opts: StartRunnelOptions): Promise<RunnelBroker> {
  if (!fs.existsSync(RUNNEL_CLI)) throw new Error(`${RUNNEL_CLI} not found: run \`npm run build\` first`);
  const port = opts.port ?? (await freePort());
  // The heap flags on node's command line, as ./runnel's re-exec would put them (cli/v8-setup.ts), without its extra start.
  const args = [...V8_STARTUP_FLAGS, RUNNEL_CLI, 'broker', '--host', HOST, '--port', String(port), '--redis', opts.redisUrl, ...(opts.args ?? [])];
  const env = { ...process.env, ...opts.env };
  const startTimeoutMs = opts.startTimeoutMs ?? 60_000;
  let proc: ManagedProcess;
  let stopped = false;

  const launch = async (): Promise<void> => {
    proc = spawnManaged(`runnel-${port}`, process.execPath, args, { env });
    await waitForPort(port, { proc, timeoutMs: startTimeoutMs });
    await waitFor(
      `ApiVersions on ${port}`,
      async () => {
        const r = await apiVersionsProbe(port);
        return r.errorCode === 0 && r.apiCount > 0;
      },
      { proc, timeoutMs: startTimeoutMs, intervalMs: 100 },
    );
  };
  await launch();

  return {
    bootstrap: `${HOST}:${port}`,
    port,
    proc: () => proc,
    async stop() {
      if (stopped) return;
      stopped = true;
      await proc.stop(15_000);
    },
    async kill() {
      await proc.kill();
    },
    async restart() {
      if (stopped) throw new Error('restart() after stop()');
      await proc.stop(15_000);
      await launch();
    },
  };
}

/**
 * Starts `runnel broker` on `redisUrl` (extra `--set key=value` settings) and
 * waits for it to exit by itself, as a broker that refuses its Redis must.
 * A broker still running after `timeoutMs` is stopped and the call throws.
 */
export async function brokerExit(redisUrl: string, sets: string[] = [], timeoutMs = 20_000): Promise<{ exit: ExitInfo; log: string }> {
  const port = await freePort();
  const args = [...V8_STARTUP_FLAGS, RUNNEL_CLI, 'broker', '--host', HOST, '--port', String(port), '--redis', redisUrl, ...sets.flatMap((s) => ['--set', s])];
  const proc = spawnManaged(`runnel-exit-${port}`, process.execPath, args);
  const exit = await Promise.race([proc.exited, new Promise<null>((r) => setTimeout(() => r(null), timeoutMs))]);
  if (!exit) {
    const tail = proc.tail();
    await proc.stop(3000);
    throw new Error(`broker still running after ${timeoutMs} ms; expected it to refuse to start. log:\n${tail}`);
  }
  return { exit, log: fs.readFileSync(proc.logFile, 'utf8') };
}
