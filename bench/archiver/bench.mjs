#!/usr/bin/env node
// Archiver benchmark: Redis stream -> ZSTD Parquet -> Delta, to local disk and to an S3 server.
//
//   npm run build && bash test/setup/install-archiver.sh
//   node bench/archiver/bench.mjs [--records100 N] [--records1k N] [--targets local,s3] [--workers N] [--partitions N]
//                                 [--sizes 100,1024] [--repeat N] [--bin PATH] [--avro]
//
// --avro: instead of the sizes, ~100 B Avro records in the Confluent wire format
// (avro-orders.mjs) archived twice, untyped (target local-avro) and with typed
// columns (local-avro-typed: archive.value.schema=id, the schema in the registry's
// Redis keys; docs/lake.md "Typed columns"), and the ratio of their records/core-s.
//
// --partitions 1 is the single-partition case (one stream, one Delta txn per commit).
// --repeat N runs every case N times and reports the run with the median records/s
// (the machine may be shared: the 1-minute load average is reported with each run).
//
// For 100-byte and 1 KiB records it fills a fresh redis-server with Kafka RecordBatch v2
// entries (1000 records per batch, uncompressed, realistic half-random values), runs one
// archiver process (dist/archiver/src/bin.js) until the `archived` watermark reaches the end,
// and reports records/s and MB/s of wall time and per CPU core-second of the archiver
// process (user+sys of all its threads, from /proc), plus the Parquet compression ratio
// (record payload bytes / Parquet bytes). "sustained" is the rate between the first commit and the
// last full one (from the archiver's "committed" log lines): without process start and without the
// final partial file's wait for the 1 s max file age. The S3 server is moto (Python), which is much
// slower than real S3; its numbers bound the archiver by the server, not by the archiver.
import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { register } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { ORDER_SCHEMA, ORDER_SCHEMA_ID, orderValue } from './avro-orders.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// The batch encoder is a test helper (TypeScript, not built): loaded through the bench's ts hooks.
register('../lib/ts-hooks.mjs', import.meta.url);
const { encodeBatch } = await import(path.join(ROOT, 'test/helpers/encode-batch.ts'));
// The V8 flags `runnel archiver` runs with (cli/v8-setup.ts), given on the command line since bin.js is not the CLI.
const { V8_FLAGS, V8_STARTUP_FLAGS, V8_FLAGS_APPLY } = await import(path.join(ROOT, 'cli/v8-flags.ts'));
const CLI_V8_FLAGS = V8_FLAGS_APPLY ? [...V8_STARTUP_FLAGS, ...V8_FLAGS] : [];
const PY = path.join(ROOT, '.cache/venv/bin/python');
const HOST = '127.0.0.1';

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, arr) => (a.startsWith('--') ? [...acc, [a.slice(2), arr[i + 1]]] : acc), []),
);
const N100 = Number(args.records100 ?? 1_000_000);
const N1K = Number(args.records1k ?? 300_000);
const TARGETS = (args.targets ?? 'local,s3').split(',');
// unset: the archiver's own default (RUNNEL_ARCHIVER_WORKERS: the cores, at most 4)
const WORKERS = args.workers;
// --bin: another build's bin.js (A/B against a worktree's dist)
const BIN = path.resolve(args.bin ?? path.join(ROOT, 'dist/archiver/src/bin.js'));
const PER_BATCH = 1000;
const PARTITIONS = Number(args.partitions ?? 4);
const SIZES = (args.sizes ?? '100,1024').split(',').map(Number);
const REPEAT = Math.max(1, Number(args.repeat ?? 1));
const AVRO = 'avro' in args;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function freePort() {
  return new Promise((res) => {
    const s = net.createServer();
    s.listen(0, HOST, () => {
      const p = s.address().port;
      s.close(() => res(p));
    });
  });
}
const TICK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
function cpuSeconds(pid) {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) / TICK; // utime + stime (all threads)
}
function dirBytes(dir) {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) n += e.name === '_delta_log' ? 0 : dirBytes(p);
    else if (e.name.endsWith('.parquet')) n += fs.statSync(p).size;
  }
  return n;
}

async function startRedis() {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rn-bench-redis-'));
  const proc = spawn('redis-server', ['--port', String(port), '--bind', HOST, '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  const client = new Redis({ host: HOST, port, lazyConnect: true });
  client.on('error', () => {});
  for (let i = 0; i < 100; i++) {
    try {
      await client.connect();
      break;
    } catch {
      client.disconnect();
      await sleep(100);
    }
  }
  return { url: `redis://${HOST}:${port}`, client, stop: () => (client.disconnect(), proc.kill('SIGKILL'), fs.rmSync(dir, { recursive: true, force: true })) };
}

async function startS3() {
  const port = await freePort();
  const proc = spawn(PY, [path.join(ROOT, 'test/archiver/integration/s3_server.py'), String(port)], { stdio: 'ignore' });
  const { S3Client, CreateBucketCommand, ListObjectsV2Command } = await import('@aws-sdk/client-s3');
  const c = new S3Client({ endpoint: `http://${HOST}:${port}`, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' } });
  for (let i = 0; i < 200; i++) {
    try {
      await c.send(new CreateBucketCommand({ Bucket: 'bench' }));
      break;
    } catch {
      await sleep(150);
    }
  }
  const parquetBytes = async (prefix) => {
    let n = 0;
    let token;
    do {
      const r = await c.send(new ListObjectsV2Command({ Bucket: 'bench', Prefix: prefix, ContinuationToken: token }));
      for (const o of r.Contents ?? []) if (o.Key.endsWith('.parquet') && !o.Key.includes('_delta_log')) n += o.Size;
      token = r.IsTruncated ? r.NextContinuationToken : undefined;
    } while (token);
    return n;
  };
  return { endpoint: `http://${HOST}:${port}`, parquetBytes, stop: () => (c.destroy(), proc.kill('SIGKILL')) };
}

function makeValue(size, i) {
  // structured text + random base64 (about half of the bytes) + repetitive filler:
  // compresses roughly like real JSON events
  const head = `{"id":${i},"user":"u${i % 9973}","kind":"click","page":"/p/${i % 131}","r":"`;
  const rnd = randomBytes(Math.ceil((size * 3) / 8)).toString('base64');
  const filler = '","tags":["a","b","c"],"ok":true,"n":0}'.repeat(Math.ceil(size / 40));
  return Buffer.from(head + rnd + filler).subarray(0, size);
}

async function fill(redis, topic, partitions, records, size, avro) {
  await redis.hset('rn:topics', topic, JSON.stringify({ id: topic, partitions, configs: avro === 'typed' ? { 'archive.value.schema': 'id' } : {} }));
  // the registry's record of the schema the Avro values name (common/keys.ts schemaRecords, as the broker writes it)
  if (avro) await redis.hset('rn:r:{schemas}:ids', String(ORDER_SCHEMA_ID), JSON.stringify({ schemaType: 'AVRO', schema: JSON.stringify(ORDER_SCHEMA), references: [] }));
  const perPart = Math.ceil(records / partitions);
  let payload = 0;
  let stored = 0;
  const ts0 = Date.now() - 3_600_000;
  for (let p = 0; p < partitions; p++) {
    let pl = redis.pipeline();
    let inPl = 0;
    for (let base = 0; base < perPart; base += PER_BATCH) {
      const n = Math.min(PER_BATCH, perPart - base);
      const recs = [];
      for (let i = 0; i < n; i++) {
        const key = Buffer.from(`key-${(base + i) % 10007}`);
        const value = avro ? orderValue(base + i, ts0) : makeValue(size, base + i);
        payload += key.length + value.length;
        recs.push({ key, value, timestamp: ts0 + base + i });
      }
      const b = encodeBatch(recs, { baseOffset: base });
      stored += b.length;
      pl.xadd(`rn:p:{${topic}/${p}}:log`, `${base}-1`, 'b', b);
      if (++inPl >= 50) {
        await pl.exec();
        pl = redis.pipeline();
        inPl = 0;
      }
    }
    await pl.exec();
  }
  return { perPart, payload, stored };
}

async function run(target, size, records, avro = null) {
  const redis = await startRedis();
  const s3 = target === 's3' ? await startS3() : null;
  const lakeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rn-bench-lake-'));
  const topic = `bench${size}`;
  const partitions = PARTITIONS;
  const { perPart, payload, stored } = await fill(redis.client, topic, partitions, records, size, avro);
  const env = {
    ...process.env,
    RUNNEL_REDIS_URL: redis.url,
    RUNNEL_LAKE: s3 ? 's3://bench/lake' : `file://${lakeDir}`,
    ...(WORKERS ? { RUNNEL_ARCHIVER_WORKERS: WORKERS } : {}),
    RUNNEL_ARCHIVER_TARGET_FILE_BYTES: String(16 * 1024 * 1024),
    RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '1000',
    RUNNEL_ARCHIVER_OPTIMIZE_INTERVAL_MS: '0',
    RUNNEL_ARCHIVER_VACUUM_INTERVAL_MS: '0',
    // info: one "committed" line per commit (with encodeMs, uploadMs, commitMs), read for the sustained rate
    RUNNEL_LOG_LEVEL: 'info',
    ...(s3 ? { RUNNEL_S3_ENDPOINT: s3.endpoint, RUNNEL_S3_FORCE_PATH_STYLE: 'true', AWS_ACCESS_KEY_ID: 'bench', AWS_SECRET_ACCESS_KEY: 'bench', AWS_REGION: 'us-east-1' } : {}),
  };
  const t0 = process.hrtime.bigint();
  const child = spawn(process.execPath, [...CLI_V8_FLAGS, ...(process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : []), BIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const commits = watchCommits(child);
  let cpu = 0;
  for (;;) {
    await sleep(100);
    cpu = cpuSeconds(child.pid);
    const vals = await Promise.all(Array.from({ length: partitions }, (_, p) => redis.client.hget(`rn:p:{${topic}/${p}}:meta`, 'archived')));
    if (vals.every((v) => v !== null && Number(v) >= perPart - 1)) break;
  }
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  child.kill('SIGTERM');
  await new Promise((r) => child.on('exit', r));
  const parquet = s3 ? await s3.parquetBytes(`lake/${topic}/`) : dirBytes(path.join(lakeDir, topic));
  const n = perPart * partitions;
  const sustained = sustainedRate(commits);
  const load1 = +os.loadavg()[0].toFixed(1);
  redis.stop();
  s3?.stop();
  fs.rmSync(lakeDir, { recursive: true, force: true });
  return {
    target: avro ? `${target}-avro${avro === 'typed' ? '-typed' : ''}` : target,
    recordBytes: avro ? Math.round(payload / n) : size,
    partitions,
    load1,
    records: n,
    wallSeconds: +wall.toFixed(2),
    cpuSeconds: +cpu.toFixed(2),
    recordsPerSec: Math.round(n / wall),
    mbPerSec: +(payload / wall / 1e6).toFixed(1),
    sustainedRecordsPerSec: sustained === null ? null : Math.round(sustained),
    sustainedMbPerSec: sustained === null ? null : +((sustained * payload) / n / 1e6).toFixed(1),
    recordsPerCoreSec: Math.round(n / cpu),
    mbPerCoreSec: +(payload / cpu / 1e6).toFixed(1),
    payloadMB: +(payload / 1e6).toFixed(1),
    storedMB: +(stored / 1e6).toFixed(1),
    parquetMB: +(parquet / 1e6).toFixed(1),
    compressionRatio: +(payload / parquet).toFixed(2),
  };
}

/**
 * The archiver's log lines: "committed" ones are collected ({ t, records }); warnings and errors are
 * shown (every line with BENCH_LOG_LEVEL=info).
 */
function watchCommits(child) {
  const commits = [];
  const all = process.env.BENCH_LOG_LEVEL === 'info';
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.on('data', (d) => {
      const lines = (rest + d.toString()).split('\n');
      rest = lines.pop();
      for (const line of lines) {
        let o = null;
        try {
          o = JSON.parse(line);
        } catch {}
        if (o?.msg === 'committed') commits.push({ t: Date.parse(o.time), records: o.records });
        if (all || !o || o.level === 'warn' || o.level === 'error' || o.level === 'fatal') process.stderr.write(line + '\n');
      }
    });
  }
  return commits;
}

/**
 * Records/s between the first commit and the last full one: the records of the commits after the
 * first, up to and including the one before the final (partial, age-cut) file, over that time.
 * Leaves out process start and the final file's wait for the max file age. null under 3 commits.
 */
function sustainedRate(commits) {
  if (commits.length < 3) return null;
  const last = commits.length - 2;
  let recs = 0;
  for (let i = 1; i <= last; i++) recs += commits[i].records;
  const dt = (commits[last].t - commits[0].t) / 1000;
  return dt > 0 ? recs / dt : null;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1];
const results = [];
/** One case, REPEAT times: the run with the median records/s; cpu figures are the medians over the runs. */
async function repeated(target, size, n, avro) {
  const runs = [];
  for (let i = 0; i < REPEAT; i++) {
    const r = await run(target, size, n, avro);
    runs.push(r);
    console.error(JSON.stringify(r));
  }
  const mid = median(runs.map((r) => r.recordsPerSec));
  const r = { ...runs.find((x) => x.recordsPerSec === mid), runs: REPEAT };
  r.recordsPerCoreSec = median(runs.map((x) => x.recordsPerCoreSec));
  r.mbPerCoreSec = median(runs.map((x) => x.mbPerCoreSec));
  r.load1 = median(runs.map((x) => x.load1));
  const sus = runs.map((x) => x.sustainedRecordsPerSec).filter((x) => x !== null);
  if (sus.length) {
    r.sustainedRecordsPerSec = median(sus);
    r.sustainedMbPerSec = +((r.sustainedRecordsPerSec * r.payloadMB) / r.records).toFixed(1);
  }
  return r;
}
for (const target of TARGETS) {
  if (AVRO) {
    const untyped = await repeated(target, 100, N100, 'untyped');
    const typed = await repeated(target, 100, N100, 'typed');
    typed.typedRatio = +(typed.recordsPerCoreSec / untyped.recordsPerCoreSec).toFixed(2);
    results.push(untyped, typed);
    continue;
  }
  for (const size of SIZES) results.push(await repeated(target, size, size === 100 ? N100 : N1K, null));
}
console.log(`\nArchiver benchmark (${os.availableParallelism()} cores, workers=${WORKERS ?? "default"}, node ${process.version})\n`);
console.log('| target | partitions | record | records | load 1m | wall s | cpu s | records/s | MB/s | sustained records/s | sustained MB/s | records/core-s | MB/core-s | payload MB | parquet MB | ratio |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of results) {
  if (r.typedRatio !== undefined) console.error(JSON.stringify({ typedRatio: r.typedRatio }));
  console.log(
    `| ${r.target} | ${r.partitions} | ${r.recordBytes} B | ${r.records} | ${r.load1} | ${r.wallSeconds} | ${r.cpuSeconds} | ${r.recordsPerSec} | ${r.mbPerSec} | ${r.sustainedRecordsPerSec ?? '-'} | ${r.sustainedMbPerSec ?? '-'} | ${r.recordsPerCoreSec} | ${r.mbPerCoreSec} | ${r.payloadMB} | ${r.parquetMB} | ${r.compressionRatio} |`,
  );
}
for (const r of results) if (r.typedRatio !== undefined) console.log(`\ntyped / untyped records per core-second (${r.target}): ${r.typedRatio}x`);
// merge into results.json (one entry per target and record size)
const file = path.join(ROOT, 'bench/archiver/results.json');
let prev = [];
try {
  prev = JSON.parse(fs.readFileSync(file, 'utf8')).results ?? [];
} catch {}
const merged = [...prev.filter((p) => !results.some((r) => r.target === p.target && r.recordBytes === p.recordBytes && r.partitions === (p.partitions ?? 4))), ...results];
fs.writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), cores: os.availableParallelism(), workers: WORKERS ?? "default", node: process.version, results: merged }, null, 2) + '\n');
