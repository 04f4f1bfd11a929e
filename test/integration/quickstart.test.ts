// The README quick start as a user runs it, in a fresh folder: `runnel broker`
// (embedded Redis under ./data), produce with kcat, `runnel archiver` with no
// Redis and no lake given (it finds ./data/redis.url and writes ./data/lake),
// then delta-rs reads every record within seconds, and the README's Polars SQL
// query (the block marked `<!-- test: quickstart/query -->`, read from README.md
// and run as written with the test venv's python3) reports them. Also: the
// archiver's /ready is 503 while the lake or Redis cannot be reached.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, runCommand, spawnManaged, waitFor, waitForPort, REPO_ROOT, type ManagedProcess } from '../helpers/procs.js';
import { apiVersionsProbe } from '../helpers/runnel.js';
import { readDelta, startRedis } from '../archiver/integration/helpers.js';

const cli = path.join(REPO_ROOT, 'dist', 'cli', 'runnel.js');
const dirs: string[] = [];
const procs: ManagedProcess[] = [];

afterAll(async () => {
  for (const p of procs) await p.stop(10_000).catch(() => undefined);
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function tmp(tag: string): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `runnel-${tag}-`));
  dirs.push(d);
  return d;
}

function spawnCli(name: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): ManagedProcess {
  const p = spawnManaged(name, process.execPath, [cli, ...args], { cwd, env });
  procs.push(p);
  return p;
}

/** The README's query of the archived topic, exactly as README.md shows it. */
function readmeQuery(): string {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const m = /<!-- test: quickstart\/query[^>]*-->\n```sh\n([\s\S]*?)\n```/.exec(readme);
  if (!m) throw new Error('README.md has no block marked <!-- test: quickstart/query -->');
  return m[1]!;
}

/** A printed Polars frame as its header and data rows (cells between │ and ┆). */
function polarsTable(out: string): { header: string[]; rows: string[][] } {
  const lines = out.split('\n').map((l) => l.trim());
  const cells = (l: string) => l.slice(1, -1).split('┆').map((c) => c.trim());
  const top = lines.findIndex((l) => l.startsWith('┌'));
  const body = lines.findIndex((l) => l.startsWith('╞'));
  return { header: top < 0 ? [] : cells(lines[top + 1]!), rows: body < 0 ? [] : lines.slice(body + 1).filter((l) => l.startsWith('│')).map(cells) };
}

async function readyStatus(port: number): Promise<number> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/ready`, { signal: AbortSignal.timeout(10_000) })).status;
  } catch {
    return 0;
  }
}

describe('README quick start', () => {
  it('runnel broker, kcat, runnel archiver: every record is in the Delta table within 20 s', async () => {
    const cwd = tmp('quickstart');
    const port = await freePort();
    const broker = spawnCli('quickstart-broker', ['broker', '--port', String(port)], cwd);
    await waitForPort(port, { proc: broker, timeoutMs: 30_000 });
    await waitFor('ApiVersions', async () => (await apiVersionsProbe(port)).errorCode === 0, { proc: broker, timeoutMs: 30_000 });
    expect(fs.readFileSync(path.join(cwd, 'data', 'redis.url'), 'utf8')).toMatch(/^redis:\/\/127\.0\.0\.1:\d+\n$/);

    const n = 200;
    const lines = Array.from({ length: n }, (_, i) => `k${i}:v${i}`).join('\n') + '\n';
    const r = await runCommand('kcat', ['-b', `127.0.0.1:${port}`, '-P', '-t', 'demo', '-K:'], { input: lines, timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);

    const started = Date.now();
    const archiver = spawnCli('quickstart-archiver', ['archiver'], cwd);
    const table = path.join(cwd, 'data', 'lake', 'demo');
    let rows: string[] = [];
    await waitFor('all records in the Delta table', async () => {
      if (!fs.existsSync(path.join(table, '_delta_log'))) return false;
      const read = await readDelta(table, { appIds: ['runnel/demo/0'] }).catch(() => null);
      rows = (read?.rows ?? []).map((row) => `${row[1]}:${Buffer.from(row[4] ?? '', 'base64').toString()}:${Buffer.from(row[5] ?? '', 'base64').toString()}`);
      return rows.length >= n;
    }, { proc: archiver, timeoutMs: 20_000, intervalMs: 250 });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(rows.sort((a, b) => Number(a.split(':')[0]) - Number(b.split(':')[0]))).toEqual(Array.from({ length: n }, (_, i) => `${i}:k${i}:v${i}`));
    const log = fs.readFileSync(archiver.logFile, 'utf8');
    expect(log).toMatch(/"redis":"redis:\/\/127\.0\.0\.1:\d+".*"msg":"using the embedded redis of the broker in the data folder"/);
    expect(log).toMatch(/"level":"info",.*"table":"file:\/\/[^"]*\/data\/lake\/demo".*"version":0,"files":1,"records":\d+,"msg":"committed"/);

    // The README's SQL query of the archived topic: the record count and the last record.
    const env = { ...process.env, PATH: `${path.join(REPO_ROOT, '.cache', 'venv', 'bin')}:${process.env.PATH}` };
    const q = await runCommand('bash', ['-euo', 'pipefail', '-c', readmeQuery()], { cwd, env, timeoutMs: 60_000 });
    expect(q.code, q.stderr).toBe(0);
    const result = polarsTable(q.stdout);
    expect(result.header, q.stdout).toEqual(['records', 'offset', 'key', 'value']);
    expect(result.rows, q.stdout).toEqual([[String(n), String(n - 1), `k${n - 1}`, `v${n - 1}`]]);

    await archiver.stop(15_000);
    await broker.stop(15_000);
    expect(fs.existsSync(path.join(cwd, 'data', 'redis.url'))).toBe(false);
  });
});

describe('archiver /ready', () => {
  it('is 503 while the lake (an S3 endpoint) cannot be reached', async () => {
    const redis = await startRedis();
    try {
      const dead = await freePort();
      const http = await freePort();
      const a = spawnCli('ready-no-lake', ['archiver', '--redis', redis.url, '--lake', 's3://lake/t', '--s3-endpoint', `http://127.0.0.1:${dead}`, '--http-port', String(http)], tmp('ready'), {
        ...process.env, AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'y', AWS_REGION: 'us-east-1',
      });
      await waitForPort(http, { proc: a, timeoutMs: 20_000 });
      expect((await fetch(`http://127.0.0.1:${http}/health`)).status).toBe(200);
      expect(await readyStatus(http)).toBe(503);
    } finally {
      await redis.stop();
    }
  });

  it('is 200 with Redis and the lake reachable, 503 once Redis is gone', async () => {
    const redis = await startRedis();
    const http = await freePort();
    const cwd = tmp('ready');
    const a = spawnCli('ready-redis', ['archiver', '--redis', redis.url, '--lake', `file://${path.join(cwd, 'lake')}`, '--http-port', String(http)], cwd);
    await waitForPort(http, { proc: a, timeoutMs: 20_000 });
    await waitFor('ready', async () => (await readyStatus(http)) === 200, { proc: a, timeoutMs: 10_000 });
    await redis.stop();
    await waitFor('not ready', async () => (await readyStatus(http)) === 503, { timeoutMs: 15_000 });
  });
});
