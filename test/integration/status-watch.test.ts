// `runnel status --watch --interval 1` against redis-server and a live broker,
// its stdout a pipe: for about 3 s it prints one report after another (each
// under its `--- runnel status at` line, each naming the live broker), and
// SIGINT (Ctrl-C) or SIGTERM ends it with exit code 0; a misused --interval
// exits 2 with the usage.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { RUNNEL_CLI, startRunnel, type RunnelBroker } from '../helpers/runnel.js';
import { REPO_ROOT, runCommand, sleep } from '../helpers/procs.js';

let redis: RedisServer;
let broker: RunnelBroker;

beforeAll(async () => {
  redis = await startRedis();
  broker = await startRunnel({ redisUrl: redis.url, args: ['--set', 'leadership.tick.ms=200'] });
}, 120_000);

afterAll(async () => {
  await broker?.stop().catch(() => undefined);
  await redis?.stop();
});

describe('runnel status --watch', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('prints successive reports every interval until %s, then exits 0', async (sig) => {
    const child = spawn(process.execPath, [RUNNEL_CLI, 'status', '--watch', '--interval', '1', '--redis', redis.url], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    try {
      await sleep(3_200);
      expect(child.exitCode, stderr).toBeNull(); // still watching
      const reports = stdout.split(/^--- runnel status at /m).slice(1);
      expect(reports.length, stdout).toBeGreaterThanOrEqual(2);
      expect(reports.length, stdout).toBeLessThanOrEqual(5); // about one a second, not a busy loop
      for (const r of reports) {
        expect(r).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z, every 1s \(Ctrl-C to stop\)\n/);
        expect(r).toContain('brokers (1 live)');
        expect(r).toContain(`${broker.bootstrap}`);
      }
      expect(stdout).not.toContain('\u001b['); // a pipe: appended, not redrawn
      child.kill(sig);
      const exit = await Promise.race([exited, sleep(10_000).then(() => null)]);
      expect(exit, `status --watch did not exit within 10 s of ${sig}`).not.toBeNull();
      expect(exit).toEqual({ code: 0, signal: null });
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 60_000);

  it('refuses --interval without --watch, or not seconds > 0, with the usage (exit 2)', async () => {
    for (const args of [['--interval', '1'], ['--watch', '--interval', '0'], ['--watch', '--interval', 'x']]) {
      const r = await runCommand(process.execPath, [RUNNEL_CLI, 'status', ...args, '--redis', redis.url], { timeoutMs: 30_000 });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^runnel: --interval/);
      expect(r.stderr).toContain('usage: runnel status');
    }
  });
});
