// Helpers for the archiver integration tests: real redis-server (or a real Redis
// Cluster when RUNNEL_TEST_BACKEND ends in `-cluster`), real S3 server (moto,
// enforcing If-None-Match), a fault-injecting S3 proxy, child archiver
// processes, and a delta-rs (python `deltalake`) reader.
//
// Partition keys: topics registered with createTopic() may carry placement
// salts (on a cluster they always do, spreading partitions over the
// primaries), so tests name a partition's keys with redisKey() / metaKey(),
// never by hand.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { Cluster, Redis } from 'ioredis';
import type { RedisClient } from '../../../common/redis/connect.js';
import { partitionTag } from '../../../common/keys.js';
import { startRedisCluster, type RedisCluster } from '../../helpers/redis-cluster.js';
import { afterAll, beforeAll, expect } from 'vitest';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { Codec } from '../../../common/record-batch/layout.js';
import { encodeBatch, type EncodeRecord } from '../../helpers/encode-batch.js';

const execFileP = promisify(execFile);
// cluster-key-slot (an ioredis dependency, CommonJS): the CRC16 slot of a key, hash tags honoured.
const calculateSlot = createRequire(import.meta.url)('cluster-key-slot') as (key: string) => number;
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const PY = path.join(ROOT, '.cache/venv/bin/python');
export const HOST = '127.0.0.1';
export const S3_KEY = 'runnel-test';
export const S3_SECRET = 'runnel-test-secret';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, HOST, () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitFor<T>(fn: () => Promise<T | undefined | false>, timeoutMs: number, what: string): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

export function tmpDir(tag: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `rn-arch-${tag}-`));
}

/**
 * The per-file fixture of the archiver's integration tests: one Redis started
 * before the file's tests (after the build check) and stopped after them, and
 * temporary lake folders that are removed at the end.
 */
export function redisForFile(): { readonly redis: RedisHandle; dir(tag: string): string } {
  let redis: RedisHandle | undefined;
  const dirs: string[] = [];
  beforeAll(async () => {
    await ensureBuilt();
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });
  return {
    get redis(): RedisHandle {
      if (!redis) throw new Error('redisForFile: Redis is not started yet (use it inside a test)');
      return redis;
    },
    dir(tag: string): string {
      const d = tmpDir(tag);
      dirs.push(d);
      return d;
    },
  };
}

/**
 * The built archiver (dist/, what `runnel archiver` runs) for tests that run it
 * in this process, typed as its sources.
 */
export async function builtArchiver() {
  const [archiver, main, local] = await Promise.all([
    import(path.join(ROOT, 'dist/archiver/src/archiver.js')) as Promise<typeof import('../../../archiver/src/archiver.js')>,
    import(path.join(ROOT, 'dist/archiver/src/main.js')) as Promise<typeof import('../../../archiver/src/main.js')>,
    import(path.join(ROOT, 'dist/common/lake/local.js')) as Promise<typeof import('../../../common/lake/local.js')>,
  ]);
  return { Archiver: archiver.Archiver, LocalStore: local.LocalStore, loadConfig: main.loadConfig, runArchiver: main.runArchiver };
}

// ------------------------------------------------------------------ redis

export interface RedisHandle {
  /** One URL, or the seed list of a cluster. */
  url: string;
  port: number;
  /** A plain client, or an ioredis Cluster client on a cluster backend. */
  client: RedisClient;
  /** The cluster, on a cluster backend. */
  cluster?: RedisCluster;
  stop(): Promise<void>;
}

/** RUNNEL_TEST_BACKEND: redis | valkey | redis-cluster | valkey-cluster. */
export function testBackend(): { flavor: 'redis' | 'valkey'; cluster: boolean } {
  const v = (process.env.RUNNEL_TEST_BACKEND ?? 'redis').trim().toLowerCase();
  return { flavor: v.startsWith('valkey') ? 'valkey' : 'redis', cluster: v.endsWith('-cluster') };
}

/** A redis-server (valkey-server), or a 3-primary/3-replica cluster when the backend is a cluster one. */
export async function startRedis(): Promise<RedisHandle> {
  const backend = testBackend();
  if (backend.cluster) return startClusterRedis({ flavor: backend.flavor });
  const port = await freePort();
  const dir = tmpDir('redis');
  // the suite's valkey pass (RUNNEL_TEST_BACKEND=valkey) runs the archiver against valkey-server
  const bin = backend.flavor === 'valkey' ? 'valkey-server' : 'redis-server';
  const proc = spawn(bin, ['--port', String(port), '--bind', HOST, '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: 'ignore',
  });
  const client = new Redis(`redis://${HOST}:${port}`, { lazyConnect: true, maxRetriesPerRequest: 2 });
  client.on('error', () => {});
  await waitFor(async () => {
    try {
      await client.connect();
    } catch {
      client.disconnect();
      return false;
    }
    return (await client.ping()) === 'PONG';
  }, 10_000, 'redis-server');
  return {
    url: `redis://${HOST}:${port}`,
    port,
    client,
    async stop() {
      client.disconnect();
      proc.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A Redis Cluster (test/helpers/redis-cluster.ts) with an ioredis Cluster client for the test's own reads and writes. */
export async function startClusterRedis(opts: { flavor?: 'redis' | 'valkey'; primaries?: number; replicasPerPrimary?: number } = {}): Promise<RedisHandle> {
  const start = () =>
    startRedisCluster({
      flavor: opts.flavor ?? testBackend().flavor,
      primaries: opts.primaries,
      replicasPerPrimary: opts.replicasPerPrimary,
      appendonly: false,
    });
  let cluster: RedisCluster;
  try {
    cluster = await start();
  } catch (e) {
    // The harness sometimes counts replicas as primaries right after `--cluster create`
    // (a node's CLUSTER NODES view before gossip told it the roles; its primaries()
    // keeps slot-less masters). Start once more rather than fail the suite on it.
    if (!/primaries after create/.test(String(e))) throw e;
    cluster = await start();
  }
  const seeds = cluster.seeds.split(',').map((u) => new URL(u));
  const client = new Cluster(seeds.map((u) => ({ host: u.hostname, port: Number(u.port) })), {
    lazyConnect: true,
    slotsRefreshInterval: 1000,
    redisOptions: { maxRetriesPerRequest: 2 },
  });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (e) {
    client.disconnect();
    await cluster.stop();
    throw e;
  }
  return {
    url: cluster.url,
    port: Number(seeds[0]!.port),
    client,
    cluster,
    async stop() {
      client.disconnect();
      await cluster.stop();
    },
  };
}

/** Primary ("host:port") serving each slot, from CLUSTER SLOTS; null on a single node. */
export async function slotOwners(redis: RedisClient): Promise<((slot: number) => string) | null> {
  if (!(redis instanceof Cluster)) return null;
  const ranges = (await redis.cluster('SLOTS')) as unknown as [number, number, [string, number, ...unknown[]], ...unknown[]][];
  const owner = new Array<string>(16384);
  for (const [a, b, [host, port]] of ranges) for (let s = a; s <= b; s++) owner[s] = `${host}:${port}`;
  return (slot) => owner[slot]!;
}

// ------------------------------------------------------------------ S3 (moto) + fault proxy

export interface S3Handle {
  endpoint: string;
  port: number;
  bucket: string;
  stop(): Promise<void>;
}

export async function startS3(bucket = 'lake'): Promise<S3Handle> {
  const port = await freePort();
  const proc = spawn(PY, [path.join(ROOT, 'test/archiver/integration/s3_server.py'), String(port)], { stdio: 'ignore' });
  const endpoint = `http://${HOST}:${port}`;
  const client = new S3Client({
    endpoint,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: S3_KEY, secretAccessKey: S3_SECRET },
  });
  await waitFor(async () => {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    return true;
  }, 30_000, 'S3 server');
  client.destroy();
  return {
    endpoint,
    port,
    bucket,
    async stop() {
      proc.kill('SIGKILL');
    },
  };
}

export interface FaultPlan {
  /** probability of answering 500 without forwarding */
  p500Before?: number;
  /** probability of forwarding, then answering 500 anyway (the write happened) */
  p500After?: number;
  /** probability of answering 409 ConditionalRequestConflict to a conditional PUT without forwarding */
  p409?: number;
  /** probability of forwarding a commit PUT and then dropping the connection without a response */
  pDropCommitResponse?: number;
}

export interface FaultProxy {
  endpoint: string;
  counts: Record<string, number>;
  plan: FaultPlan;
  stop(): Promise<void>;
}

export async function startFaultProxy(targetPort: number, plan: FaultPlan): Promise<FaultProxy> {
  const counts: Record<string, number> = { forwarded: 0, e500b: 0, e500a: 0, e409: 0, dropped: 0 };
  const errXml = (code: string, msg: string) =>
    `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${msg}</Message></Error>`;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const conditional = req.method === 'PUT' && req.headers['if-none-match'] === '*';
      const isCommit = conditional && /_delta_log\/\d{20}\.json/.test(req.url ?? '');
      const r = Math.random();
      const p = proxy.plan;
      if (req.method !== 'GET' && r < (p.p500Before ?? 0)) {
        counts.e500b!++;
        res.writeHead(500, { 'content-type': 'application/xml' }).end(errXml('InternalError', 'injected'));
        return;
      }
      if (conditional && Math.random() < (p.p409 ?? 0)) {
        counts.e409!++;
        res.writeHead(409, { 'content-type': 'application/xml' }).end(errXml('ConditionalRequestConflict', 'injected'));
        return;
      }
      const after500 = req.method !== 'GET' && Math.random() < (p.p500After ?? 0);
      const drop = isCommit && Math.random() < (p.pDropCommitResponse ?? 0);
      const up = http.request(
        { host: HOST, port: targetPort, method: req.method, path: req.url, headers: req.headers },
        (ur) => {
          const uc: Buffer[] = [];
          ur.on('data', (c: Buffer) => uc.push(c));
          ur.on('end', () => {
            counts.forwarded!++;
            if (drop && ur.statusCode === 200) {
              counts.dropped!++;
              req.socket.destroy();
              return;
            }
            if (after500 && (ur.statusCode ?? 0) < 300) {
              counts.e500a!++;
              res.writeHead(500, { 'content-type': 'application/xml' }).end(errXml('InternalError', 'injected after write'));
              return;
            }
            res.writeHead(ur.statusCode ?? 502, ur.headers);
            res.end(Buffer.concat(uc));
          });
        },
      );
      up.on('error', () => {
        res.writeHead(502).end();
      });
      up.end(body);
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, HOST, r));
  const proxy: FaultProxy = {
    endpoint: `http://${HOST}:${port}`,
    counts,
    plan,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  return proxy;
}

// ------------------------------------------------------------------ topics & records

export const CODECS: { codec: number; xerial?: boolean }[] = [
  { codec: Codec.NONE },
  { codec: Codec.GZIP },
  { codec: Codec.SNAPPY },
  { codec: Codec.SNAPPY, xerial: true },
  { codec: Codec.LZ4 },
  { codec: Codec.ZSTD },
];

export interface ExpectedRow {
  partition: number;
  offset: number;
  tsMs: number;
  key: string | null; // base64
  value: string | null;
  headers: [string, string | null][];
}

const b64 = (b: Uint8Array | null | undefined) => (b == null ? null : Buffer.from(b).toString('base64'));

/** Placement salts of the topics registered by createTopic() (index = partition; absent or shorter = salt 0). */
const placements = new Map<string, number[]>();

/**
 * Salts that put partition p of `topic` on primary `targets[p % n]`: the
 * smallest salt whose tag hashes to a slot of that primary (like the broker's
 * even placement, without its tie rules).
 */
export function spreadPlacement(topic: string, partitions: number, ownerOf: (slot: number) => string, targets: string[]): number[] {
  const salts: number[] = [];
  for (let p = 0; p < partitions; p++) {
    const want = targets[p % targets.length]!;
    let salt = 0;
    while (ownerOf(calculateSlot(partitionTag(topic, p, salt))) !== want) salt++;
    salts.push(salt);
  }
  return salts;
}

/**
 * Register a topic in `rn:topics` the way the broker does. On a cluster the
 * record carries placement salts that spread the partitions over the
 * primaries (`opts.placement` overrides; `null` = no placement field).
 */
export async function createTopic(redis: RedisClient, topic: string, partitions: number, opts: { placement?: number[] | null } = {}) {
  let placement = opts.placement;
  if (placement === undefined) {
    const ownerOf = await slotOwners(redis);
    if (ownerOf) {
      const primaries = [...new Set(Array.from({ length: 16384 }, (_, s) => ownerOf(s)))].sort();
      placement = spreadPlacement(topic, partitions, ownerOf, primaries);
    } else {
      placement = null;
    }
  }
  if (placement) placements.set(topic, placement);
  else placements.delete(topic);
  await redis.hset(
    'rn:topics',
    topic,
    JSON.stringify({ id: randomUUIDish(), partitions, configs: {}, created: Date.now(), ...(placement ? { placement } : {}) }),
  );
}

/** Hash tag of a partition as the broker names it: `{topic/p}` or `{topic/p/salt}`. */
export function tagOf(topic: string, p: number): string {
  return partitionTag(topic, p, placements.get(topic)?.[p] ?? 0);
}

function randomUUIDish() {
  const h = randomBytes(16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export interface Producer {
  next: Map<number, number>;
  expected: ExpectedRow[];
}

export function newProducer(): Producer {
  return { next: new Map(), expected: [] };
}

/**
 * Append `batches` batches of `perBatch` records to a partition via XADD <base>-1 b <bytes>,
 * cycling codecs, with timestamps spanning several UTC dates. Adds a control batch now and then.
 */
export async function produce(
  redis: RedisClient,
  prod: Producer,
  topic: string,
  partition: number,
  batches: number,
  perBatch: number,
  opts: { valueBytes?: number; startTs?: number; control?: boolean } = {},
): Promise<void> {
  const pl = redis.pipeline();
  let next = prod.next.get(partition) ?? 0;
  const startTs = opts.startTs ?? Date.UTC(2024, 4, 30, 22, 0, 0);
  for (let b = 0; b < batches; b++) {
    const c = CODECS[(next + b) % CODECS.length]!;
    if (opts.control !== false && b % 17 === 16) {
      // transaction marker: skipped by the archiver, but it consumes an offset
      const ctrl = encodeBatch([{ key: Buffer.from([0, 0, 0, 1]), value: Buffer.from([0, 0, 0, 0, 0, 0]) }], {
        baseOffset: next,
        control: true,
        transactional: true,
        producerId: 7n,
      });
      pl.xadd(redisKey(topic, partition), `${next}-1`, 'b', ctrl);
      next += 1;
      continue;
    }
    const recs: EncodeRecord[] = [];
    for (let i = 0; i < perBatch; i++) {
      const off = next + i;
      const ts = startTs + off * 37_000 + (i % 3) * 11; // crosses midnight UTC
      const value = opts.valueBytes
        ? Buffer.concat([Buffer.from(`${topic}:${partition}:${off}:`), randomBytes(Math.max(0, opts.valueBytes - 24))]).subarray(0, opts.valueBytes)
        : off % 11 === 5
          ? null
          : Buffer.from(`value ${topic}/${partition}/${off} ${'x'.repeat(off % 50)}`);
      const key = off % 4 === 0 ? null : Buffer.from(`k${off % 97}`);
      const headers =
        off % 3 === 0
          ? [
              { key: 'trace', value: Buffer.from(createHash('md5').update(String(off)).digest('hex')) },
              { key: 'trace', value: null },
            ]
          : [];
      recs.push({ key, value, headers, timestamp: ts });
      prod.expected.push({
        partition,
        offset: off,
        tsMs: ts,
        key: b64(key),
        value: b64(value),
        headers: headers.map((h) => [h.key, b64(h.value)]),
      });
    }
    const batch = encodeBatch(recs, { baseOffset: next, codec: c.codec, xerial: c.xerial });
    pl.xadd(redisKey(topic, partition), `${next}-1`, 'b', batch);
    next += perBatch;
  }
  prod.next.set(partition, next);
  const res = await pl.exec();
  for (const [err] of res ?? []) if (err) throw err;
}

/** The log stream of a partition (placement-aware). */
export function redisKey(topic: string, p: number) {
  return `rn:p:${tagOf(topic, p)}:log`;
}

/** The meta hash of a partition (field `archived`: the archiver's watermark). */
export function metaKey(topic: string, p: number) {
  return `rn:p:${tagOf(topic, p)}:meta`;
}

/** The archiver lease key of a partition. */
export function leaseKey(topic: string, p: number) {
  return `rn:p:${tagOf(topic, p)}:archiver-lease`;
}

// ------------------------------------------------------------------ archiver processes

export const BIN = path.join(ROOT, 'dist/archiver/src/bin.js');

export async function ensureBuilt() {
  // tests run against the compiled entry point; build once if missing or stale
  const srcs = [path.join(ROOT, 'archiver/src'), path.join(ROOT, 'common')]; // the archiver compiles common/ in
  const newest = (dir: string): number =>
    fs.readdirSync(dir, { withFileTypes: true }).reduce((m, e) => {
      const p = path.join(dir, e.name);
      return Math.max(m, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
    }, 0);
  if (fs.existsSync(BIN) && fs.statSync(BIN).mtimeMs >= Math.max(...srcs.map(newest))) return;
  // compile only the archiver (archiver/tsconfig.json), so unrelated folders cannot break it
  await execFileP(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', path.join(ROOT, 'archiver/tsconfig.json')], { cwd: ROOT });
}

export interface ArchiverProc {
  proc: ChildProcess;
  log: string[];
  exited: Promise<number | null>;
  kill(sig?: NodeJS.Signals): Promise<number | null>;
}

export function archiverEnv(o: {
  redisUrl: string;
  lake: string;
  s3Endpoint?: string;
  /** false: leave RUNNEL_S3_FORCE_PATH_STYLE unset (an endpoint alone must imply path style). */
  pathStyle?: boolean;
  extra?: Record<string, string>;
}): Record<string, string> {
  return {
    ...process.env,
    RUNNEL_REDIS_URL: o.redisUrl,
    RUNNEL_LAKE: o.lake,
    ...(o.s3Endpoint
      ? {
          RUNNEL_S3_ENDPOINT: o.s3Endpoint,
          ...(o.pathStyle === false ? {} : { RUNNEL_S3_FORCE_PATH_STYLE: 'true' }),
          AWS_ACCESS_KEY_ID: S3_KEY,
          AWS_SECRET_ACCESS_KEY: S3_SECRET,
          AWS_REGION: 'us-east-1',
        }
      : {}),
    RUNNEL_ARCHIVER_WORKERS: '1',
    RUNNEL_ARCHIVER_POLL_INTERVAL_MS: '50',
    RUNNEL_ARCHIVER_LEASE_TTL_MS: '1500',
    RUNNEL_ARCHIVER_TOPIC_REFRESH_MS: '300',
    RUNNEL_LOG_LEVEL: 'info',
    ...o.extra,
  } as Record<string, string>;
}

export function spawnArchiver(env: Record<string, string>): ArchiverProc {
  const proc = spawn(process.execPath, [BIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const log: string[] = [];
  const push = (d: Buffer) => {
    for (const l of d.toString().split('\n')) if (l) log.push(l);
    if (log.length > 2000) log.splice(0, log.length - 2000);
  };
  proc.stdout!.on('data', push);
  proc.stderr!.on('data', push);
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  return {
    proc,
    log,
    exited,
    async kill(sig: NodeJS.Signals = 'SIGKILL') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(sig);
      return exited;
    },
  };
}

/** Wait until `rn:p:{t/p[/salt]}:meta archived` reaches the last offset of every partition. */
export async function waitArchived(redis: RedisClient, topic: string, prod: Producer, timeoutMs: number) {
  await waitFor(async () => {
    for (const [p, next] of prod.next) {
      const v = await redis.hget(metaKey(topic, p), 'archived');
      if (v === null || Number(v) < next - 1) return false;
    }
    return true;
  }, timeoutMs, `archived watermark of ${topic}`);
}

// ------------------------------------------------------------------ delta-rs reader

export interface DeltaRead {
  version: number;
  rows: [number, number, number, string, string | null, string | null, [string, string | null][], string][];
  schema: Record<string, string>;
  txn: Record<string, number | null>;
  files: {
    path: string;
    size: number;
    num_records: number;
    partition_values: Record<string, string> | null;
    codecs: string[];
    ts_type: string;
    columns: string[];
    rows: number;
    min: Record<string, unknown> | null;
    max: Record<string, unknown> | null;
    null_count: Record<string, unknown> | null;
    real_size: number;
    /** delta-rs does not report add.tags (null); read them from the log (partition-tags.ts) */
    tags: Record<string, string> | null;
    actual: {
      rows: number;
      min_offset: number;
      max_offset: number;
      min_partition: number;
      max_partition: number;
      min_ts: number;
      max_ts: number;
      key_nulls: number;
      value_nulls: number;
      /** per Kafka partition in the file: [partition, min offset, max offset, rows, min ts us, max ts us] */
      partitions: [number, number, number, number, number, number][];
    };
  }[];
  protocol: [number, number];
  partition_columns: string[];
}

export async function readDelta(uri: string, opts: { s3?: S3Handle | { endpoint: string }; appIds?: string[] } = {}): Promise<DeltaRead> {
  const storage = opts.s3
    ? {
        AWS_ENDPOINT_URL: opts.s3.endpoint,
        AWS_ACCESS_KEY_ID: S3_KEY,
        AWS_SECRET_ACCESS_KEY: S3_SECRET,
        AWS_REGION: 'us-east-1',
        AWS_ALLOW_HTTP: 'true',
        AWS_S3_ALLOW_UNSAFE_RENAME: 'true',
      }
    : null;
  const s3 = opts.s3 ? { endpoint: opts.s3.endpoint.replace(/^http:\/\//, ''), key: S3_KEY, secret: S3_SECRET } : null;
  const { stdout } = await execFileP(
    PY,
    [path.join(ROOT, 'test/archiver/integration/read_delta.py'), uri, JSON.stringify({ storage, app_ids: opts.appIds ?? [], s3 })],
    { maxBuffer: 1024 * 1024 * 1024 },
  );
  return JSON.parse(stdout) as DeltaRead;
}

/** Compare the lake with what was produced: each record exactly once, all fields equal. */
export function diffRows(read: DeltaRead, expected: ExpectedRow[]): string[] {
  const problems: string[] = [];
  const seen = new Map<string, DeltaRead['rows'][number]>();
  for (const r of read.rows) {
    const k = `${r[0]}/${r[1]}`;
    if (seen.has(k)) problems.push(`duplicate ${k}`);
    seen.set(k, r);
  }
  for (const e of expected) {
    const k = `${e.partition}/${e.offset}`;
    const r = seen.get(k);
    if (!r) {
      problems.push(`missing ${k}`);
      continue;
    }
    seen.delete(k);
    if (r[2] !== e.tsMs * 1000) problems.push(`${k} timestamp ${r[2]} != ${e.tsMs * 1000}`);
    if (r[3] !== 'CreateTime') problems.push(`${k} timestamp_type ${r[3]}`);
    if (r[4] !== e.key) problems.push(`${k} key`);
    if (r[5] !== e.value) problems.push(`${k} value`);
    if (JSON.stringify(r[6]) !== JSON.stringify(e.headers)) problems.push(`${k} headers ${JSON.stringify(r[6])}`);
    if (r[7] !== new Date(e.tsMs).toISOString().slice(0, 10)) problems.push(`${k} date ${r[7]}`);
  }
  for (const k of seen.keys()) problems.push(`unexpected ${k}`);
  return problems;
}

/** Full content + metadata check of a table read by delta-rs. */
export function checkTable(read: DeltaRead, topic: string, parts: number, prod: ReturnType<typeof newProducer>) {
  expect(diffRows(read, prod.expected).slice(0, 20)).toEqual([]);
  expect(read.rows.length).toBe(prod.expected.length);
  expect(read.protocol).toEqual([1, 2]);
  expect(read.partition_columns).toEqual(['date']);
  expect(read.schema.timestamp).toBe('timestamp[us, tz=UTC]');
  for (let p = 0; p < parts; p++) expect(read.txn[`runnel/${topic}/${p}`]).toBe(prod.next.get(p)! - 1);
  for (const f of read.files) {
    expect(f.codecs).toEqual(['ZSTD']);
    expect(f.ts_type).toBe('timestamp[us, tz=UTC]');
    expect(f.columns).toEqual(['partition', 'offset', 'timestamp', 'timestamp_type', 'key', 'value', 'headers']);
    expect(f.size).toBe(f.real_size);
    expect(f.num_records).toBe(f.actual.rows);
    expect(f.rows).toBe(f.actual.rows);
    const min = f.min as Record<string, unknown>;
    const max = f.max as Record<string, unknown>;
    expect(min.offset).toBe(f.actual.min_offset);
    expect(max.offset).toBe(f.actual.max_offset);
    expect(min.partition).toBe(f.actual.min_partition);
    expect(max.partition).toBe(f.actual.max_partition);
    expect(Date.parse(String(min.timestamp).replace(' ', 'T').replace(/\+00:00$/, 'Z'))).toBe(f.actual.min_ts / 1000);
    expect(Date.parse(String(max.timestamp).replace(' ', 'T').replace(/\+00:00$/, 'Z'))).toBe(f.actual.max_ts / 1000);
    const nc = f.null_count as Record<string, unknown>;
    expect(nc.key).toBe(f.actual.key_nulls);
    expect(nc.value).toBe(f.actual.value_nulls);
  }
}


// ------------------------------------------------------------------ in-process archiver logs

/** A logger that keeps every line in memory (for an archiver run in this process). */
export function memoryLogger(): import('../../../common/logger/logger.js').Logger & { lines: { level: string; msg: string; fields?: Record<string, unknown> }[] } {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push({ level, msg, fields });
  return { lines, error: at('error'), warn: at('warn'), info: at('info'), debug: () => {} };
}

/** The built archiver's metrics module (dist/), typed as its source. */
export async function builtMetrics() {
  return import(path.join(ROOT, 'dist/archiver/src/metrics.js')) as Promise<typeof import('../../../archiver/src/metrics.js')>;
}
