// README.md and the docs its quick start continues into, as a new user runs
// them: every fenced block of DOC_FILES is either run here (the blocks marked
// `<!-- test: quickstart/NAME -->`), run by another test (`secure-quickstart/N`:
// test/integration/security/secure-quickstart.test.ts), or listed in NOT_RUN
// with the reason; a new unmarked block fails the first test, which names it
// as file:line. The blocks run as written with bash in a fresh folder holding a
// `runnel` link to the checkout's wrapper; only fixed ports change (Kafka's
// 9092 -> a free one through RUNNEL_LISTENERS or in the text, 8080 and the
// cluster's 7001-7006 likewise) and HOME is a folder under .cache, so the
// README's venv (~/.venvs/runnel, from PyPI) is made once and reused. Also:
// the archiver's /ready is 503 while the lake or Redis cannot be reached.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, portOpen, runCommand, spawnManaged, waitFor, waitForPort, REPO_ROOT, type ManagedProcess } from '../helpers/procs.js';
import { apiVersionsProbe } from '../helpers/runnel.js';
import { readDelta, startRedis } from '../archiver/integration/helpers.js';

const cli = path.join(REPO_ROOT, 'dist', 'cli', 'runnel.js');
const dirs: string[] = [];
const procs: ManagedProcess[] = [];
/** HOME of the README's blocks: its ~/.venvs/runnel survives between runs (the first run installs from PyPI). */
const HOME = path.join(REPO_ROOT, '.cache', 'readme-home');

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

/** The files whose fenced blocks are checked (README.md and the docs that hold marked blocks), relative to the checkout. */
const DOC_FILES = [
  'README.md',
  'docs/configuration.md',
  'docs/durability.md',
  'docs/compatibility.md',
  'docs/security-quickstart.md',
  'docs/redis-cluster.md',
  'docs/operations.md',
  'docs/lake.md',
  'docs/development.md',
];

interface Block { file: string; line: number; lang: string; text: string; marker: string | null }

/** Every fenced block of `file` with the `<!-- test: NAME ... -->` marker on the line before it, if any. */
function fileBlocks(file: string): Block[] {
  const lines = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8').split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.indexOf('```', i + 1);
    if (end < 0) throw new Error(`${file}:${i + 1}: fenced block never closed`);
    const marker = /^<!-- test: (\S+)/.exec(lines[i - 1] ?? '')?.[1] ?? null;
    out.push({ file, line: i + 1, lang: open[1]!, text: lines.slice(i + 1, end).join('\n'), marker });
    i = end;
  }
  return out;
}

/** Every fenced block of DOC_FILES, in file order. */
function docBlocks(): Block[] {
  return DOC_FILES.flatMap(fileBlocks);
}

/** The block marked `quickstart/NAME`, in whichever of DOC_FILES holds it. */
function block(name: string): string {
  const found = docBlocks().filter((x) => x.marker === `quickstart/${name}`);
  if (found.length !== 1) throw new Error(`${found.length} blocks marked <!-- test: quickstart/${name} --> in ${DOC_FILES.join(', ')}${found.map((b) => ` ${b.file}:${b.line}`).join(',')}`);
  return found[0]!.text;
}

const first = (b: Block) => b.text.split('\n')[0]!;

/** Blocks no test runs, per file, by their first line, and why. */
const NOT_RUN: Record<string, Record<string, string>> = {
  'README.md': {
    '  Kafka clients, unchanged: Java, Kafka\'s tools, librdkafka (kcat), KafkaJS': 'a picture of the data path, not a command',
  },
  'docs/configuration.md': {
    './runnel broker --redis redis://10.0.0.5:6379     # or RUNNEL_REDIS_URL=...': 'the reader\'s own Redis (10.0.0.5, a TLS redis.internal with its certificates); --redis is run by every integration test, rediss:// by test/integration/security',
    './runnel broker --redis redis://10.0.0.5:6379 --node-id 1 --host 0.0.0.0 --advertised-host broker1 --port 9092': 'two machines (broker1, broker2) on the reader\'s Redis; several brokers on one Redis are run by status.test.ts and test/integration/cluster',
  },
  'docs/redis-cluster.md': {
    './runnel broker --redis redis://10.0.0.1:7000,10.0.0.2:7000,10.0.0.3:7000': 'placeholder seed addresses (and a TLS cluster with its CA); quickstart/cluster runs a local cluster, the broker and archiver on seed lists, rediss:// and runnel status/placement --redis are run by test/integration/redis-cluster, status.test.ts and test/integration/security',
  },
  'docs/lake.md': {
    './runnel archiver --redis redis://127.0.0.1:6379 --lake file:///var/lib/runnel/lake': 'the reader\'s Redis on 6379, /var/lib/runnel and an S3 endpoint at minio:9000; the archiver integration tests run --redis, --lake and --s3-endpoint against real servers',
    '# Spark over S3 (delta-spark; s3a with path-style access for MinIO-like servers)': 'needs Spark with delta-spark and an S3 bucket',
  },
  'docs/development.md': {
    'npm test': 'the whole test suite, this test included',
  },
};

/** Runs `script` with bash -euo pipefail in `cwd`, HOME as above. */
function sh(script: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 60_000, input?: string) {
  return runCommand('bash', ['-euo', 'pipefail', '-c', script], { cwd, env: { ...env, HOME }, timeoutMs, input });
}

/** A printed Polars frame as its header and data rows (cells between │ and ┆). */
function polarsTable(out: string): { header: string[]; rows: string[][] } {
  const lines = out.split('\n').map((l) => l.trim());
  const cells = (l: string) => l.slice(1, -1).split('┆').map((c) => c.trim());
  const top = lines.findIndex((l) => l.startsWith('┌'));
  const body = lines.findIndex((l) => l.startsWith('╞'));
  return { header: top < 0 ? [] : cells(lines[top + 1]!), rows: body < 0 ? [] : lines.slice(body + 1).filter((l) => l.startsWith('│')).map(cells) };
}

/** A printed DuckDB relation's data rows (cells between │). */
function duckdbRows(out: string): string[][] {
  const lines = out.split('\n').map((l) => l.trim());
  const body = lines.findIndex((l) => l.startsWith('├'));
  return body < 0 ? [] : lines.slice(body + 1).filter((l) => l.startsWith('│')).map((l) => l.slice(1, -1).split('│').map((c) => c.trim()));
}

/**
 * Runs a docs DuckDB block through the venv's duckdb. Its delta extension is a
 * download from extensions.duckdb.org; where that cannot be reached the same
 * query runs over the table's Parquet files (read_parquet, hive partitions: the
 * same rows while no file of the table has been removed, as here).
 */
async function duckdbQuery(sql: string, table: string, cwd: string, env: NodeJS.ProcessEnv) {
  const duck = "~/.venvs/runnel/bin/python -c 'import duckdb, sys; print(duckdb.sql(sys.stdin.read()))'";
  const d = await sh(duck, cwd, env, 120_000, sql);
  if (d.code === 0 || !/Could not establish connection|Failed to download|HTTP/i.test(d.stderr)) return d;
  console.warn(`DuckDB's delta extension could not be downloaded (${d.stderr.trim().split('\n').at(-1)}); running the docs' DuckDB query over read_parquet`);
  const parquet = sql.replace('INSTALL delta; LOAD delta;\n', '').replace(`delta_scan('data/lake/${table}')`, `read_parquet('data/lake/${table}/**/*.parquet', hive_partitioning = true)`);
  expect(parquet).not.toBe(sql);
  return sh(duck, cwd, env, 120_000, parquet);
}

async function readyStatus(port: number): Promise<number> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/ready`, { signal: AbortSignal.timeout(10_000) })).status;
  } catch {
    return 0;
  }
}

/**
 * A port p with p and its cluster bus port p + 10000 free (a Redis Cluster node
 * needs both). Both stay below 32768, the start of Linux's ephemeral range, so
 * an outgoing connection of a test running beside this one cannot take a bus
 * port between this check and the server's start.
 */
async function clusterPort(taken: Set<number>): Promise<number> {
  const free = (port: number) => new Promise<boolean>((res) => {
    const s = net.createServer();
    s.once('error', () => res(false));
    s.listen(port, '127.0.0.1', () => s.close(() => res(true)));
  });
  for (;;) {
    const p = 11_000 + Math.floor(Math.random() * 11_000);
    if (!taken.has(p) && await free(p) && await free(p + 10_000)) {
      taken.add(p);
      return p;
    }
  }
}

describe('README and docs blocks', () => {
  it('every fenced block is run by a test (a `<!-- test: ... -->` marker) or listed in NOT_RUN with its reason', () => {
    const blocks = docBlocks();
    const unlisted = blocks.filter((b) => !b.marker && !(first(b) in (NOT_RUN[b.file] ?? {}))).map((b) => `${b.file}:${b.line}: ${first(b)}`);
    expect(unlisted).toEqual([]);
    // every NOT_RUN entry still names an unmarked block of its file
    const stale = Object.entries(NOT_RUN).flatMap(([file, entries]) => Object.keys(entries)
      .filter((line) => !blocks.some((b) => b.file === file && !b.marker && first(b) === line)).map((line) => `${file}: ${line}`));
    expect(stale).toEqual([]);
    const markers = blocks.filter((b) => b.marker !== null);
    const runHere = fs.readFileSync(new URL(import.meta.url), 'utf8');
    for (const b of markers) {
      const m = b.marker!;
      if (m.startsWith('secure-quickstart/')) continue; // secure-quickstart.test.ts checks it reads all three
      expect(m, `${b.file}:${b.line}`).toMatch(/^quickstart\//);
      expect(runHere, `${b.file}:${b.line}: ${m}`).toContain(`block('${m.slice('quickstart/'.length)}')`);
    }
    // each quickstart/NAME marks exactly one block
    const names = markers.map((b) => b.marker!).filter((m) => m.startsWith('quickstart/'));
    expect(names.filter((m, i) => names.indexOf(m) !== i)).toEqual([]);
    // the secured quick start: its three blocks, in order, in the file secure-quickstart.test.ts reads
    expect(markers.filter((b) => b.marker!.startsWith('secure-quickstart/')).map((b) => `${b.file} ${b.marker}`))
      .toEqual([1, 2, 3].map((n) => `docs/security-quickstart.md secure-quickstart/${n}`));
  });

  it('no Markdown file outside DOC_FILES carries a `<!-- test: ... -->` marker (it would not be checked)', () => {
    const md = (dir: string): string[] => fs.readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((e) => {
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory()) return ['node_modules', 'dist', '.cache', '.git', 'data'].includes(e.name) ? [] : md(rel);
      return e.name.endsWith('.md') ? [rel] : [];
    });
    const others = md('').filter((f) => !DOC_FILES.includes(f) && /^<!-- test: /m.test(fs.readFileSync(path.join(REPO_ROOT, f), 'utf8')));
    expect(others).toEqual([]);
  });
});

describe('README quick start (and the blocks of the docs it continues into)', () => {
  it('runnel dev, runnel produce/consume, kcat and the Polars SQL query, then teardown, with status, redis-cli, delta-rs, DuckDB, the typed example, the day-2 round, the console and the broker and archiver run separately, block by block', async () => {
    const cwd = tmp('quickstart');
    fs.symlinkSync(path.join(REPO_ROOT, 'runnel'), path.join(cwd, 'runnel'));
    fs.mkdirSync(HOME, { recursive: true });
    const port = await freePort();
    const http = await freePort();
    const registry = `http://127.0.0.1:${await freePort()}`;
    // Fixed ports move through the variables runnel dev and the broker read (the blocks name none but kcat's).
    const env: NodeJS.ProcessEnv = {
      ...process.env, RUNNEL_LISTENERS: `PLAINTEXT://127.0.0.1:${port}`, RUNNEL_HTTP_PORT: String(http), RUNNEL_BOOTSTRAP_SERVER: `127.0.0.1:${port}`,
      RUNNEL_SCHEMA_REGISTRY_LISTENERS: registry, RUNNEL_SCHEMA_REGISTRY_URL: registry,
    };
    const kafka = (text: string) => text.replaceAll('127.0.0.1:9092', `127.0.0.1:${port}`);
    const start = (name: string, script: string) => {
      const p = spawnManaged(name, 'bash', ['-c', `exec ${script}`], { cwd, env: { ...env, HOME } });
      procs.push(p);
      return p;
    };

    // ./runnel dev: broker, embedded Redis, HTTP endpoint and archiver, and where each listens
    const devBlock = block('dev');
    const dev = start('quickstart-dev', devBlock);
    await waitForPort(port, { proc: dev, timeoutMs: 120_000 });
    await waitFor('ApiVersions', async () => (await apiVersionsProbe(port)).errorCode === 0, { proc: dev, timeoutMs: 30_000 });
    await waitFor('the banner', () => fs.readFileSync(dev.logFile, 'utf8').includes('Try, in another terminal:'), { proc: dev, timeoutMs: 30_000 });
    const redisUrl = fs.readFileSync(path.join(cwd, 'data', 'redis.url'), 'utf8');
    expect(redisUrl).toMatch(/^redis:\/\/127\.0\.0\.1:\d+\n$/);
    const banner = fs.readFileSync(dev.logFile, 'utf8');
    expect(banner).toContain(`  Kafka        127.0.0.1:${port}\n`);
    expect(banner).toContain(`  web console  http://127.0.0.1:${http}/console\n`);
    expect(banner).toContain(`  registry     ${registry}\n`);
    expect((await fetch(`${registry}/subjects`)).status).toBe(200);
    expect(banner).toContain(`  Redis        ${redisUrl.trim()}\n`);
    expect(banner).toContain(`  lake         file://${fs.realpathSync(cwd)}/data/lake\n`);
    // the prose's fixed ports are runnel dev's defaults
    const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('<http://127.0.0.1:8080/console>');
    expect(readme).toContain('<http://127.0.0.1:8081>');

    // runnel produce (the topic is created on first use) and consume
    const clients = await sh(block('clients'), cwd, env);
    expect(clients.code, clients.stderr).toBe(0);
    expect(clients.stdout).toBe('hello\n');
    // kcat: metadata, and the record runnel produced
    const kcat = await sh(kafka(block('kcat')), cwd, env);
    expect(kcat.code, kcat.stderr).toBe(0);
    expect(kcat.stdout).toContain(`1 brokers:\n  broker 1 at 127.0.0.1:${port}`);
    expect(kcat.stdout.trim().split('\n').at(-1)).toBe('hello');
    // 200 keyed records more (the test's own), so the archive checks below see a batch of many records
    const n = 200;
    const lines = Array.from({ length: n }, (_, i) => `k${i}:v${i}`).join('\n') + '\n';
    const produced = await runCommand('kcat', ['-b', `127.0.0.1:${port}`, '-P', '-t', 'demo', '-K:'], { input: lines, timeoutMs: 30_000 });
    expect(produced.code, produced.stderr).toBe(0);
    const total = n + 1;

    // ./runnel status / placement with no --redis: the embedded Redis through data/redis.url
    const status = await sh(block('status'), cwd, env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^brokers \(1 live\)/);
    expect(status.stdout).toMatch(new RegExp(`\\n\\s+demo\\s+0\\s+1\\s+\\d+\\s+0\\s+${total}\\s`));
    const [statusPart, placementPart] = status.stdout.split(/\n(?=primary\s+partitions)/);
    expect(statusPart).not.toContain('__consumer_offsets');
    // placement: one primary, the embedded Redis, with demo/0 and the 50 partitions of __consumer_offsets
    // (user topics are shown before the internal one)
    expect(placementPart).toMatch(new RegExp(`\\n${redisUrl.trim().replace('redis://', '').replace(/\./g, '\\.')}\\s+51\\s+100\\.0%\\s+\\S+ \\S+\\s+demo/0 __consumer_offsets/0 `));

    // redis-cli against the embedded Redis, as pasted (the block reads data/redis.url itself)
    const cliOut = await sh(block('redis-cli'), cwd, env);
    expect(cliOut.code, cliOut.stderr).toBe(0);
    const xlen = Number(cliOut.stdout.split('\n')[0]);
    expect(xlen).toBeGreaterThanOrEqual(2); // 'hello' and at least one batch of the 200
    expect(cliOut.stdout).toMatch(/\n\d+-1\nb\n/); // the newest batch's id <baseOffset>-1 and its field
    expect(cliOut.stdout.endsWith(`\n${total}\n`)).toBe(true); // HGET next: the log end offset

    // runnel dev's archiver: every record in the Delta table within 20 s
    const table = path.join(cwd, 'data', 'lake', 'demo');
    const archived = async (want: number): Promise<string[]> => {
      let rows: string[] = [];
      await waitFor(`${want} records in the Delta table`, async () => {
        if (!fs.existsSync(path.join(table, '_delta_log'))) return false;
        const read = await readDelta(table, { appIds: ['runnel/demo/0'] }).catch(() => null);
        rows = (read?.rows ?? []).map((row) => `${row[1]}:${Buffer.from(row[4] ?? '', 'base64').toString()}:${Buffer.from(row[5] ?? '', 'base64').toString()}`);
        return rows.length >= want;
      }, { timeoutMs: 20_000, intervalMs: 250 });
      return rows.sort((a, b) => Number(a.split(':')[0]) - Number(b.split(':')[0]));
    };
    expect(await archived(total)).toEqual(['0::hello', ...Array.from({ length: n }, (_, i) => `${i + 1}:k${i}:v${i}`)]);
    const log = fs.readFileSync(dev.logFile, 'utf8');
    expect(log).toMatch(/archiver \| \{"level":"info",.*"table":"file:\/\/[^"]*\/data\/lake\/demo".*"version":0,"files":1,"records":\d+,"msg":"committed"/);

    // python3 -m venv ~/.venvs/runnel && pip install 'deltalake[pyarrow]' polars duckdb (PyPI; once per HOME)
    const venv = await sh(block('venv'), cwd, env, 600_000);
    expect(venv.code, venv.stderr).toBe(0);

    // the delta-rs one-liner: every record as a dict
    const delta = await sh(block('delta-rs'), cwd, env);
    expect(delta.code, delta.stderr).toBe(0);
    expect(delta.stdout.match(/'offset': \d+/g)?.length).toBe(total);
    expect(delta.stdout).toContain("'offset': 0, ");
    expect(delta.stdout).toContain("'value': b'hello'");

    // the Polars SQL query: the record count and the last record
    const q = await sh(block('query'), cwd, env);
    expect(q.code, q.stderr).toBe(0);
    const result = polarsTable(q.stdout);
    expect(result.header, q.stdout).toEqual(['records', 'offset', 'key', 'value']);
    expect(result.rows, q.stdout).toEqual([[String(total), String(n), `k${n - 1}`, `v${n - 1}`]]);

    // the DuckDB SQL, through the venv's duckdb (duckdbQuery: read_parquet where the delta extension cannot be downloaded)
    const d = await duckdbQuery(block('duckdb'), 'demo', cwd, env);
    expect(d.code, d.stderr).toBe(0);
    expect(duckdbRows(d.stdout).map((r) => [r[0], r[1], r[3]])).toEqual([['0', '0', 'hello'], ...Array.from({ length: 9 }, (_, i) => ['0', String(i + 1), `v${i}`])]);

    // the delta-rs and Polars program: row count and the last archived offset of partition 0
    const py = await sh('~/.venvs/runnel/bin/python -', cwd, env, 60_000, block('python'));
    expect(py.code, py.stderr).toBe(0);
    expect(py.stdout.split('\n')[0]).toBe(`${total} ${n}`);
    expect(py.stdout).toContain(`shape: (${total}, 2)`);

    // docs/lake.md's typed example: Avro records through runnel dev's registry (confluent-kafka's AvroSerializer),
    // then delta-rs, Polars SQL and DuckDB select the fields by name
    const withRegistry = (text: string) => kafka(text).replaceAll('http://127.0.0.1:8081', registry);
    const typedProduce = await sh(withRegistry(block('typed-produce')), cwd, env, 600_000);
    expect(typedProduce.code, typedProduce.stderr).toBe(0);
    let typedQuery = await sh(withRegistry(block('typed-query')), cwd, env);
    await waitFor('the three purchases in the lake', async () => {
      typedQuery = await sh(withRegistry(block('typed-query')), cwd, env);
      return typedQuery.code === 0 && polarsTable(typedQuery.stdout).rows.length === 2;
    }, { timeoutMs: 30_000, intervalMs: 500 });
    expect(typedQuery.stdout.split('\n')[0]).toBe("[('id', 'PrimitiveType(\"long\")'), ('item', 'PrimitiveType(\"string\")'), ('price', 'PrimitiveType(\"decimal(10,2)\")')]");
    const purchases = polarsTable(typedQuery.stdout);
    expect(purchases.header).toEqual(['item', 'n', 'total']);
    expect(purchases.rows).toEqual([['apple', '2', '2.50'], ['pear', '1', '2.40']]); // decimal(10,2): exact sums
    const typedDuck = await duckdbQuery(block('typed-duckdb'), 'purchases', cwd, env);
    expect(typedDuck.code, typedDuck.stderr).toBe(0);
    expect(duckdbRows(typedDuck.stdout)).toEqual([['apple', '2', '2.50'], ['pear', '1', '2.40']]);

    // the day-2 round of docs/operations.md with runnel alone
    const day2 = await sh(block('day2'), cwd, env, 120_000);
    expect(day2.code, day2.stderr).toBe(0);
    const out = day2.stdout;
    expect(out).toMatch(/^Created topic orders\.\n/);
    expect(out.match(/^k\d\t\w+$/gm)?.sort()).toEqual(['k1\tfirst', 'k2\tsecond', 'k3\tthird']);
    expect(out).toMatch(/^group billing +state Empty .* lag 0$/m);
    for (const p of [0, 1, 2]) expect(out).toMatch(new RegExp(`^orders +${p} +1 +1 +0 `, 'm'));
    for (const p of [0, 1, 2]) expect(out).toMatch(new RegExp(`^billing +orders +${p} +0$`, 'm'));
    expect(out).toContain('Topic orders has 6 partitions.\n');
    expect(out).toMatch(/^topic orders +id \S+ +partitions 6$/m);
    expect(out).toMatch(/^retention\.ms +86400000 +DYNAMIC_TOPIC_CONFIG$/m);
    expect(out).toMatch(/^ +batch-loader +producer_byte_rate +1048576$/m);
    expect(out.endsWith('Deleted topic orders.\n')).toBe(true);

    // runnel dev's web console
    const page = await fetch(`http://127.0.0.1:${http}/console`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`127.0.0.1:${port}`);
    await waitFor('demo on the topics page with its log end', async () => {
      const topics = await (await fetch(`http://127.0.0.1:${http}/console/topics`)).text();
      return topics.includes('demo') && topics.includes(String(total));
    }, { proc: dev, timeoutMs: 15_000, intervalMs: 300 });

    // Ctrl-C: the archiver, then the broker and its embedded Redis stop, and runnel dev exits 0
    const devExit = dev.exited;
    process.kill(dev.pid, 'SIGINT');
    expect((await devExit).code).toBe(0);
    expect(fs.existsSync(path.join(cwd, 'data', 'redis.url'))).toBe(false);
    expect(await portOpen(port)).toBe(false);
    expect(await portOpen(Number(redisUrl.trim().split(':').at(-1)))).toBe(false);
    expect(fs.readFileSync(dev.logFile, 'utf8')).toMatch(/archiver \| .*"msg":"archiver stopped"[^]*broker +\| /);

    // the broker and the archiver as separate processes (docs/configuration.md), on the same data folder
    const broker = start('quickstart-broker', block('broker'));
    await waitForPort(port, { proc: broker, timeoutMs: 60_000 });
    await waitFor('ApiVersions', async () => (await apiVersionsProbe(port)).errorCode === 0, { proc: broker, timeoutMs: 30_000 });
    const again = await runCommand('kcat', ['-b', `127.0.0.1:${port}`, '-P', '-t', 'demo'], { input: 'again\n', timeoutMs: 30_000 });
    expect(again.code, again.stderr).toBe(0);
    const archiver = start('quickstart-archiver', block('archiver'));
    expect((await archived(total + 1)).at(-1)).toBe(`${total}::again`);
    expect(fs.readFileSync(archiver.logFile, 'utf8')).toMatch(/"redis":"redis:\/\/127\.0\.0\.1:\d+".*"msg":"using the embedded redis of the broker in the data folder"/);
    await archiver.stop(15_000);
    await broker.stop(15_000);
    expect(fs.existsSync(path.join(cwd, 'data', 'redis.url'))).toBe(false);

    // the console block: a broker by itself with http.port
    const consoleBlock = block('console');
    expect(consoleBlock).toContain('http.port=8080');
    const http2 = await freePort();
    const withConsole = start('quickstart-console', consoleBlock.replaceAll('8080', String(http2)));
    await waitForPort(http2, { proc: withConsole, timeoutMs: 60_000 });
    const prose = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'operations.md'), 'utf8');
    expect(prose).toContain('<http://127.0.0.1:8080/console>');
    expect((await fetch(`http://127.0.0.1:${http2}/console`)).status).toBe(200);
    await withConsole.stop(15_000);

    // teardown: with everything stopped, the data folder (embedded Redis files, lake) goes
    expect(fs.existsSync(path.join(cwd, 'data', 'redis.url'))).toBe(false);
    const down = await sh(block('teardown'), cwd, env);
    expect(down.code, down.stderr).toBe(0);
    expect(fs.existsSync(path.join(cwd, 'data'))).toBe(false);
    expect(fs.existsSync(path.join(cwd, 'runnel'))).toBe(true);
  }, 900_000);

  it('the local Redis Cluster recipe: six servers with rdbcompression no, a broker on them, and the stop block', async () => {
    const dir = tmp('readme-cluster');
    fs.symlinkSync(path.join(REPO_ROOT, 'runnel'), path.join(dir, 'runnel'));
    const taken = new Set<number>();
    const ports = new Map<string, number>();
    for (const p of ['7001', '7002', '7003', '7004', '7005', '7006']) ports.set(p, await clusterPort(taken));
    const rc = path.join(dir, 'rc');
    const subst = (text: string) => [...ports].reduce((t, [from, to]) => t.replaceAll(from, String(to)), text.replaceAll('/tmp/rc', rc));
    const recipe = block('cluster');
    const stop = block('cluster-stop');
    expect(recipe).toContain('--rdbcompression no');
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, HOME, RUNNEL_LISTENERS: `PLAINTEXT://127.0.0.1:${port}` };
    const run = spawnManaged('readme-cluster', 'bash', ['-euo', 'pipefail', '-c', subst(recipe).replace(/\.\/runnel broker/, 'exec ./runnel broker')], { cwd: dir, env });
    procs.push(run);
    try {
      await waitForPort(port, { proc: run, timeoutMs: 120_000 });
      await waitFor('ApiVersions', async () => (await apiVersionsProbe(port)).errorCode === 0, { proc: run, timeoutMs: 30_000 });
      const r = await runCommand('kcat', ['-b', `127.0.0.1:${port}`, '-P', '-t', 'on-cluster'], { input: 'a\nb\n', timeoutMs: 30_000 });
      expect(r.code, r.stderr).toBe(0);
      for (const p of ports.values()) {
        const cfg = await runCommand('redis-cli', ['-p', String(p), 'config', 'get', 'rdbcompression'], { timeoutMs: 10_000 });
        expect(cfg.stdout, String(p)).toBe('rdbcompression\nno\n');
        const rw = await runCommand('redis-cli', ['-p', String(p), 'config', 'get', 'auto-aof-rewrite-percentage'], { timeoutMs: 10_000 });
        expect(rw.stdout, String(p)).toBe('auto-aof-rewrite-percentage\n400\n');
      }
      const info = await runCommand('redis-cli', ['-p', String(ports.get('7001')), 'cluster', 'info'], { timeoutMs: 10_000 });
      expect(info.stdout).toMatch(/cluster_state:ok/);
      expect(info.stdout).toMatch(/cluster_known_nodes:6/);
    } finally {
      await run.stop(15_000);
      const s = await runCommand('bash', ['-euo', 'pipefail', '-c', subst(stop)], { cwd: dir, env, timeoutMs: 60_000 });
      expect(s.code, s.stderr).toBe(0);
    }
    // SHUTDOWN answers before the process has closed its listener: each port closes within seconds.
    for (const p of ports.values()) await waitFor(`port ${p} closed after the stop block`, async () => !(await portOpen(p)), { timeoutMs: 15_000, intervalMs: 200 });
    expect(fs.existsSync(rc)).toBe(false);
  }, 300_000);
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
