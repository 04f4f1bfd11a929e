// The one-command path: `runnel broker` with its embedded redis-server (AOF
// under the data folder) keeps data across a restart, and `runnel archiver`
// drains the topic into a Delta table that delta-rs reads.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, runCommand, spawnManaged, waitFor, waitForPort, REPO_ROOT, type ManagedProcess } from '../helpers/procs.js';
import { apiVersionsProbe } from '../helpers/runnel.js';
import { readTopic } from './support.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-cli-'));
const cli = path.join(REPO_ROOT, 'dist', 'cli', 'runnel.js');
const procs: ManagedProcess[] = [];

afterAll(async () => {
  for (const p of procs) await p.stop(10_000).catch(() => undefined);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function startEmbedded(port: number, extra: string[] = []): Promise<ManagedProcess> {
  const p = spawnManaged(`runnel-embedded-${port}`, process.execPath, [cli, 'broker', '--port', String(port), '--data-dir', dataDir, ...extra]);
  procs.push(p);
  await waitForPort(port, { proc: p, timeoutMs: 30_000 });
  await waitFor('ApiVersions', async () => (await apiVersionsProbe(port)).errorCode === 0, { proc: p, timeoutMs: 30_000 });
  return p;
}

describe('runnel CLI', () => {
  it('embedded redis persists across a broker restart; the archiver writes a Delta table', async () => {
    const port = await freePort();
    const bootstrap = `127.0.0.1:${port}`;
    let broker = await startEmbedded(port);
    const send = async (lines: string) => {
      const r = await runCommand('kcat', ['-b', bootstrap, '-P', '-t', 'cli', '-K:'], { input: lines, timeoutMs: 30_000 });
      expect(r.code).toBe(0);
    };
    await send('a:1\nb:2\n');
    await broker.stop(15_000);
    expect(fs.existsSync(path.join(dataDir, 'redis'))).toBe(true);
    const brokerHttp = await freePort();
    broker = await startEmbedded(port, ['--set', `http.port=${brokerHttp}`]);
    await send('c:3\n');
    const log = await readTopic(bootstrap, 'cli');
    expect(log.map((r) => `${r.offset}:${r.value}`)).toEqual(['0:1', '1:2', '2:3']);

    const redisPort = /"embedded redis started".*?"port":(\d+)/.exec(fs.readFileSync(broker.logFile, 'utf8'))?.[1];
    expect(redisPort).toBeDefined();
    const lake = path.join(dataDir, 'lake');
    const archiverHttp = await freePort();
    const archiver = spawnManaged('runnel-archiver-cli', process.execPath, [cli, 'archiver', '--redis', `redis://127.0.0.1:${redisPort}`, '--lake', `file://${lake}`], {
      env: { ...process.env, RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '300', RUNNEL_ARCHIVER_HTTP_PORT: String(archiverHttp) },
    });
    procs.push(archiver);
    const py = path.join(REPO_ROOT, '.cache', 'venv', 'bin', 'python');
    const read = `from deltalake import DeltaTable\nt = DeltaTable(${JSON.stringify(path.join(lake, 'cli'))})\nprint(t.to_pyarrow_table().num_rows, t.transaction_version('runnel/cli/0'))`;
    await waitFor('archived', async () => {
      const r = await runCommand(py, ['-c', read], { timeoutMs: 30_000 });
      return r.code === 0 && r.stdout.trim() === '3 2';
    }, { timeoutMs: 30_000, intervalMs: 500 });

    // HTTP: health, readiness and Prometheus metrics of both processes
    expect((await fetch(`http://127.0.0.1:${brokerHttp}/health`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${brokerHttp}/ready`)).status).toBe(200);
    const brokerMetrics = await (await fetch(`http://127.0.0.1:${brokerHttp}/metrics`)).text();
    expect(brokerMetrics).toMatch(/runnel_partition_high_watermark\{topic="cli",partition="0"\} 3/);
    await waitFor('lag 0', async () => /runnel_archiver_lag_records\{topic="cli",partition="0"\} 0/.test(await (await fetch(`http://127.0.0.1:${archiverHttp}/metrics`)).text()), { timeoutMs: 15_000 });
  });
});
