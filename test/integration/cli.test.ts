// The one-command path: `runnel broker` with its embedded redis-server (AOF
// under the data folder) keeps data across a restart, and `runnel archiver`
// drains the topic into a Delta table that delta-rs reads.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, runCommand, spawnManaged, waitFor, waitForPort, REPO_ROOT, type ManagedProcess } from '../helpers/procs.js';
import { apiVersionsProbe } from '../helpers/runnel.js';
import { readTopic } from './support.js';
import { DescribeConfigs } from '../../broker/src/protocol/messages/describe-configs.js';
import { WireClient } from '../helpers/wire.js';
import { V8_STARTUP_FLAGS } from '../../cli/v8-flags.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-cli-'));
const cli = path.join(REPO_ROOT, 'dist', 'cli', 'runnel.js');
const procs: ManagedProcess[] = [];

afterAll(async () => {
  for (const p of procs) await p.stop(10_000).catch(() => undefined);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** node's own flags of a running process: the /proc cmdline words between the node binary and the script. */
function nodeFlagsOf(pid: number): string[] {
  const words = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  const script = words.findIndex((w) => w.endsWith('runnel.js'));
  return words.slice(1, script);
}

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
    // started without node flags, the broker re-executed itself (same pid) with the heap flags (cli/v8-setup.ts)
    expect(nodeFlagsOf(broker.pid)).toEqual([...V8_STARTUP_FLAGS]);
    const send = async (lines: string) => {
      const r = await runCommand('kcat', ['-b', bootstrap, '-P', '-t', 'cli', '-K:'], { input: lines, timeoutMs: 30_000 });
      expect(r.code).toBe(0);
    };
    await send('a:1\nb:2\n');
    await broker.stop(15_000);
    expect(fs.existsSync(path.join(dataDir, 'redis'))).toBe(true);
    // the embedded server's own output is in its own file, not in the broker's JSON log
    expect(fs.readFileSync(path.join(dataDir, 'redis', 'redis-server.log'), 'utf8')).toMatch(/Ready to accept connections/);
    const brokerHttp = await freePort();
    broker = await startEmbedded(port, ['--set', `http.port=${brokerHttp}`]);
    await send('c:3\n');
    const log = await readTopic(bootstrap, 'cli');
    expect(log.map((r) => `${r.offset}:${r.value}`)).toEqual(['0:1', '1:2', '2:3']);

    // the embedded server runs with the "Redis settings" of docs/durability.md
    const persistence = fs.readFileSync(broker.logFile, 'utf8').split('\n').find((l) => l.includes('"msg":"redis persistence"')) ?? '';
    expect(persistence).toContain('"streamNodeMaxBytes":1048576');
    expect(persistence).toContain('"rdbCompression":"no"');
    expect(persistence).toContain('"aofRewritePercentage":400');
    const redisPort = /"port":(\d+)[^\n]*"msg":"embedded redis started"/.exec(fs.readFileSync(broker.logFile, 'utf8'))?.[1];
    expect(redisPort).toBeDefined();
    const lake = path.join(dataDir, 'lake');
    const archiverHttp = await freePort();
    const archiver = spawnManaged('runnel-archiver-cli', process.execPath, [cli, 'archiver', '--redis', `redis://127.0.0.1:${redisPort}`, '--lake', `file://${lake}`], {
      env: { ...process.env, RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '300', RUNNEL_ARCHIVER_HTTP_PORT: String(archiverHttp) },
    });
    procs.push(archiver);
    await waitFor('archiver re-executed', async () => nodeFlagsOf(archiver.pid).length > 0, { proc: archiver, timeoutMs: 15_000, intervalMs: 50 });
    expect(nodeFlagsOf(archiver.pid)).toEqual([...V8_STARTUP_FLAGS]);
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

describe('runnel CLI: arguments, Kafka configuration, errors', () => {
  const run = (args: string[], env: NodeJS.ProcessEnv = process.env, timeoutMs = 20_000) => runCommand(process.execPath, [cli, ...args], { env, timeoutMs });

  it('--help and --version exit 0; every command lists its flags; unknown flags exit 2 with the usage', async () => {
    const version = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).version as string;
    expect(await run(['--version'])).toMatchObject({ code: 0, stdout: `runnel ${version}\n` });
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    for (const c of ['broker', 'archiver', 'apis', 'placement']) expect(help.stdout).toContain(c);
    expect((await run([])).code).toBe(0);
    const broker = await run(['broker', '--help']);
    expect(broker.code).toBe(0);
    for (const f of ['--config', '--set', '--redis', '--port', '--host', '--data-dir', '--node-id', '--advertised-host', '--advertised-port']) expect(broker.stdout).toContain(f);
    const archiver = await run(['archiver', '--help']);
    expect(archiver.code).toBe(0);
    for (const f of ['--lake', '--redis', '--s3-endpoint', '--s3-force-path-style', '--s3-region', '--key-prefix', '--redis-tls-ca-location', '--redis-tls-insecure-skip-verify', '--max-file-age-ms', '--topics', '--http-port']) expect(archiver.stdout).toContain(f);
    expect((await run(['apis', '--help'])).code).toBe(0);
    expect((await run(['placement', '--help'])).stdout).toContain('--json');
    for (const args of [['broker', '--bogus'], ['archiver', '--bogus', 'x'], ['nope'], ['apis', '--x']]) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain('usage: runnel');
    }
  });

  // The distribution's Node (Debian's nodejs, here /usr/bin/node v20) running the CLI directly, as the old systemd units did:
  // before the entry module checked the version, `broker` died with "does not provide an export named 'zstdDecompressSync'".
  const oldNode = '/usr/bin/node';
  const oldMajor = fs.existsSync(oldNode) ? Number((spawnSync(oldNode, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).stdout || '0').trim()) : 0;
  it.skipIf(!(oldMajor > 0 && oldMajor < 26))('on Node < 26 (/usr/bin/node) every command exits 1 with RN3005 naming Node 26 and ./runnel, before any module needing Node 26 loads', async () => {
    for (const args of [['broker', '--port', '0', '--data-dir', dataDir], ['archiver'], ['status'], ['--version']]) {
      const r = await runCommand(oldNode, [cli, ...args], { timeoutMs: 20_000 });
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toMatch(new RegExp(`^RN3005 Node\\.js is too old: runnel needs Node\\.js 26 or newer; this is v${oldMajor}\\.[0-9.]+ \\(/usr/bin/node\\)\n`));
      expect(r.stderr).toContain('./runnel');
      expect(r.stderr).toContain('.cache/node');
      expect(r.stderr).not.toContain('zstdDecompressSync');
    }
  });

  it('a taken Kafka port or http.port is RN3004 naming the address and the setting to change; the embedded Redis is stopped', async () => {
    const taken = net.createServer();
    await new Promise<void>((res) => taken.listen(0, '127.0.0.1', res));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-port-'));
      const kafka = await run(['broker', '--port', String(port), '--data-dir', dir], process.env, 60_000);
      expect(kafka.code, kafka.stderr).toBe(1);
      expect(kafka.stderr).toContain(`RN3004 port already in use: 127.0.0.1:${port} is already taken by another process; stop it or choose another port with --port (or listeners)`);
      const free = await freePort();
      const http = await run(['broker', '--port', String(free), '--data-dir', dir, '--set', `http.port=${port}`], process.env, 60_000);
      expect(http.code, http.stderr).toBe(1);
      expect(http.stderr).toContain(`RN3004 port already in use: 127.0.0.1:${port} is already taken by another process; stop it or choose another port with http.port`);
      // The embedded Redis was stopped on the way out (its URL file removed).
      expect(fs.existsSync(path.join(dir, 'redis.url'))).toBe(false);
      fs.rmSync(dir, { recursive: true, force: true });
    } finally {
      taken.close();
    }
  });

  it('an unknown setting is refused with RN3001 and the closest key', async () => {
    const r = await run(['broker', '--set', 'log.retention.hour=1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/RN3001.*unknown setting log\.retention\.hour.*did you mean log\.retention\.hours\?/);
    const e = await run(['broker'], { ...process.env, RUNNEL_NUM_PARTITION: '2' });
    expect(e.stderr).toMatch(/did you mean RUNNEL_NUM_PARTITIONS\?/);
    const tls = await run(['broker', '--set', 'listeners=SSL://:9093']);
    expect(tls.code).toBe(1);
    expect(tls.stderr).toMatch(/RN3001.*listener SSL uses TLS but has no server certificate: set ssl\.keystore\.location/);
  });

  it('a refused Redis URL is named (password redacted) with "connection refused", after redis.connection.timeout.ms', async () => {
    const dead = await freePort();
    const url = `redis://:Sekr3t-991@127.0.0.1:${dead}`;
    const t0 = Date.now();
    const b = await run(['broker', '--redis', url, '--port', '0', '--set', 'redis.connection.timeout.ms=1500'], process.env, 40_000);
    const took = Date.now() - t0;
    expect(b.code).toBe(1);
    expect(b.stderr).toContain(`cannot connect to redis at redis://***@127.0.0.1:${dead}: connection refused`);
    expect(b.stderr).toMatch(/gave up after \d+ attempts in 1500 ms, redis\.connection\.timeout\.ms/);
    expect(b.stderr.match(/waiting for redis/g)?.length).toBe(1);
    // it retried for the configured 1.5 s, not the default 10 s
    expect(took).toBeGreaterThanOrEqual(1300);
    expect(took).toBeLessThan(8000);
    expect(b.stderr).not.toContain('Sekr3t');
    // the archiver waits the same way (its flag of RUNNEL_REDIS_CONNECTION_TIMEOUT_MS)
    const a = await run(['archiver', '--redis', url, '--lake', `file://${path.join(dataDir, 'nolake')}`, '--redis-connection-timeout-ms', '1500'], process.env, 40_000);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain(`cannot connect to redis at redis://***@127.0.0.1:${dead}: connection refused`);
    expect(a.stderr).toMatch(/gave up after \d+ attempts in 1500 ms, RUNNEL_REDIS_CONNECTION_TIMEOUT_MS/);
    expect(a.stderr).not.toContain('Sekr3t');
  });

  it("Kafka's server.properties: the broker listens on `listeners`, advertises `advertised.listeners`, uses log.retention.hours", async () => {
    const port = await freePort();
    const dir = fs.mkdtempSync(path.join(dataDir, 'kafka-props-'));
    const file = path.join(dir, 'server.properties');
    fs.writeFileSync(file, [
      'process.roles=broker,controller',
      'node.id=1',
      'controller.quorum.bootstrap.servers=localhost:9093',
      `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://:9093`,
      'inter.broker.listener.name=PLAINTEXT',
      `advertised.listeners=PLAINTEXT://runnel-adv.example:${port + 1},CONTROLLER://localhost:9093`,
      'controller.listener.names=CONTROLLER',
      'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL',
      'num.network.threads=3',
      'log.dirs=/tmp/kraft-combined-logs',
      'num.partitions=3',
      'transaction.state.log.replication.factor=1',
      'log.retention.hours=5',
      `data.dir=${dir}`,
      '',
    ].join('\n'));
    const p = spawnManaged(`runnel-kafka-props-${port}`, process.execPath, [cli, 'broker', '--config', file]);
    procs.push(p);
    await waitForPort(port, { proc: p, timeoutMs: 30_000 });
    await waitFor('ApiVersions', async () => (await apiVersionsProbe(port)).errorCode === 0, { proc: p, timeoutMs: 30_000 });
    const md = await runCommand('kcat', ['-L', '-b', `127.0.0.1:${port}`, '-m', '10'], { timeoutMs: 30_000 });
    expect(md.stdout).toMatch(new RegExp(`broker 1 at runnel-adv\\.example:${port + 1}`));
    const c = await WireClient.connect(port);
    try {
      const r = await c.request(DescribeConfigs, 4, { resources: [{ resourceType: 4, resourceName: '1', configurationKeys: ['log.retention.ms', 'num.partitions'] }], includeSynonyms: false, includeDocumentation: false });
      const got = Object.fromEntries(r.results[0].configs.map((x: { name: string; value: string }) => [x.name, x.value]));
      expect(got).toEqual({ 'log.retention.ms': String(5 * 3_600_000), 'num.partitions': '3' });
    } finally {
      c.close();
    }
    const warnings = fs.readFileSync(p.logFile, 'utf8').split('\n').filter((l) => l.includes('ignored Kafka settings'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('log.dirs');
    await p.stop(10_000);
  });
});
