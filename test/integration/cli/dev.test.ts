// `runnel dev` when a part fails: a broker that cannot listen makes it exit 1
// naming why, and a broker SIGKILLed under it stops the archiver and exits 1
// (the README's quick start, test/integration/quickstart.test.ts, runs the
// good path: banner, produce/consume, archive, console, Ctrl-C).
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, runCommand, spawnManaged, waitFor, type ManagedProcess } from '../../helpers/procs.js';
import { RUNNEL_CLI } from '../../helpers/runnel.js';

const dirs: string[] = [];
const procs: ManagedProcess[] = [];
afterAll(async () => {
  for (const p of procs) await p.stop(10_000).catch(() => undefined);
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-dev-'));
  dirs.push(d);
  return d;
}

/** The pids and command lines of `pid`'s children. */
async function children(pid: number): Promise<Array<{ pid: number; args: string }>> {
  const r = await runCommand('ps', ['--ppid', String(pid), '-o', 'pid=,args='], { timeoutMs: 10_000 });
  return r.stdout.split('\n').filter((l) => l.trim()).map((l) => {
    const m = /^\s*(\d+)\s+(.*)$/.exec(l)!;
    return { pid: Number(m[1]), args: m[2]! };
  });
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('runnel dev', () => {
  it('exits 1 naming the taken port when another process holds the Kafka port or the HTTP port', async () => {
    const taken = net.createServer();
    await new Promise<void>((res) => taken.listen(0, '127.0.0.1', res));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const r = await runCommand(process.execPath, [RUNNEL_CLI, 'dev', '--data-dir', path.join(tmp(), 'data')], {
        env: { ...process.env, RUNNEL_LISTENERS: `PLAINTEXT://127.0.0.1:${port}`, RUNNEL_HTTP_PORT: String(await freePort()), RUNNEL_SCHEMA_REGISTRY_LISTENERS: `http://127.0.0.1:${await freePort()}` }, timeoutMs: 120_000,
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`runnel dev: RN3004 port already in use: 127.0.0.1:${port} is already taken by another process`);
      expect(r.stdout).not.toContain('runnel dev is up');
      // the HTTP port likewise
      const h = await runCommand(process.execPath, [RUNNEL_CLI, 'dev', '--data-dir', path.join(tmp(), 'data')], {
        env: { ...process.env, RUNNEL_LISTENERS: `PLAINTEXT://127.0.0.1:${await freePort()}`, RUNNEL_HTTP_PORT: String(port), RUNNEL_SCHEMA_REGISTRY_LISTENERS: `http://127.0.0.1:${await freePort()}` }, timeoutMs: 120_000,
      });
      expect(h.code).toBe(1);
      expect(h.stderr).toContain(`runnel dev: RN3004 port already in use: 127.0.0.1:${port} is already taken by another process; stop it or choose another port with http.port`);
      expect(h.stdout).not.toContain('runnel dev is up');
    } finally {
      taken.close();
    }
  }, 150_000);

  it('stops the archiver and exits 1 when the broker is SIGKILLed', async () => {
    const port = await freePort();
    const dir = tmp();
    const dev = spawnManaged('dev-kill', process.execPath, [RUNNEL_CLI, 'dev', '--data-dir', path.join(dir, 'data')], {
      cwd: dir, env: { ...process.env, RUNNEL_LISTENERS: `PLAINTEXT://127.0.0.1:${port}`, RUNNEL_HTTP_PORT: String(await freePort()), RUNNEL_SCHEMA_REGISTRY_LISTENERS: `http://127.0.0.1:${await freePort()}` },
    });
    procs.push(dev);
    await waitFor('the banner', () => fs.readFileSync(dev.logFile, 'utf8').includes('runnel dev is up'), { proc: dev, timeoutMs: 120_000 });
    let kids: Array<{ pid: number; args: string }> = [];
    await waitFor('broker and archiver children', async () => (kids = await children(dev.pid)).length === 2, { proc: dev, timeoutMs: 20_000 });
    const broker = kids.find((k) => / broker( |$)/.test(k.args))!;
    const archiver = kids.find((k) => / archiver( |$)/.test(k.args))!;
    expect(broker && archiver, JSON.stringify(kids)).toBeTruthy();
    // the broker's embedded redis-server, which outlives a SIGKILLed broker: stopped by this test
    const redisPort = Number(fs.readFileSync(path.join(dir, 'data', 'redis.url'), 'utf8').trim().split(':').at(-1));
    process.kill(broker.pid, 'SIGKILL');
    const exit = await dev.exited;
    expect(exit.code).toBe(1);
    expect(dev.tail(4000)).toMatch(/runnel dev: the broker exited \(code SIGKILL\); stopping the rest/);
    expect(alive(archiver.pid)).toBe(false);
    await runCommand('redis-cli', ['-p', String(redisPort), 'shutdown', 'nosave'], { timeoutMs: 10_000 });
  }, 180_000);
});
