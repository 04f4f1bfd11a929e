// Workload l: tiered storage (issue 29, KIP-405): a catch-up read from offset 0
// of a topic whose older records live only in the lake, against Kafka reading
// the same records from its own log; and what Redis keeps of a tiered topic.
//
// Runnel runs on a stack of its own (the bench's shared broker has no lake and
// a 5-minute retention pass), started by its first round and kept for the next
// ones (as Kafka's JVM is: later rounds run on a warm JIT), replaced after a
// failed round, stopped by stopTiered(): a redis-server with the bench's
// settings, a broker with lake=file://<tmp> and
// log.retention.check.interval.ms=500, and `runnel archiver` on the same lake
// (RUNNEL_ARCHIVER_MAX_FILE_AGE_MS=1000, the rest its defaults). One partition,
// remote.storage.enable=true, local.retention.ms=1000, retention.ms=-1:
//   1. ProducerPerformance sends counts.tiered 1 KiB records with workload a's
//      settings (acks=1, batch 1 MiB, linger 0; 10 % warm-up);
//   2. wait until the meta `archived` watermark reaches the log end (the
//      archiver committed everything), then until the retention pass trimmed
//      Redis: meta logStartOffset (= ListOffsets EARLIEST_LOCAL) past
//      TRIMMED_SHARE of the log end, with remoteLogStart (the Kafka log start) at 0;
//   3. Redis memory of the hot tail: MEMORY USAGE of the partition stream (and of
//      all the partition's keys, and the INFO used_memory delta since before the
//      topic existed) against the payload of the records still in it (x 1 KiB);
//   4. bench/java/AssignConsumerPerf reads all records from offset 0 (the
//      client of the e rows), twice: the first read rebuilds batches from the
//      Parquet files, the second may hit the broker's lake reader cache
//      (remote.log.reader.cache.size.bytes, 256 MiB by default);
//   5. Redis memory again on a second topic with local.retention.bytes = 10 % of
//      the payload instead (many stream nodes kept, the trim point inside one).
// Kafka: the same records produced to a 1-partition topic and read back the same
// way, twice, from its own log (in the page cache). CPU per record: the broker
// process (Kafka JVM / Runnel node), Runnel's Redis, and the archiver apart (it
// is not on the read path).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import kafkajs from 'kafkajs';
import { META_FIELD } from '../../common/keys.js';
import { startRedis, type RedisServer } from '../../test/helpers/redis.js';
import { RUNNEL_CLI, startRunnel, type RunnelBroker } from '../../test/helpers/runnel.js';
import { freePort, HOST, spawnManaged, waitFor, type ManagedProcess } from '../../test/helpers/procs.js';
import { V8_STARTUP_FLAGS } from '../../cli/v8-flags.js';
import { cpuDelta, cpuMark, type CpuMark } from './cpu.js';
import { RespConnection } from './resp.js';
import { fmt } from './stats.js';
import { EXTRA_REDIS_ARGS, streamKey, SYSTEM_LABEL, type System, type SystemName } from './systems.js';
import { assignConsumerPerf, BIG_BATCH, cpuMetrics, errText, producerPerfSteady, topicName, warmupOf, type Counts, type Ctx, type Metrics, type Row } from './workloads.js';

const RECORD_SIZE = 1024;
export const TIERED_CONFIGS: Record<string, string> = { 'remote.storage.enable': 'true', 'local.retention.ms': '1000', 'retention.ms': '-1' };
export const BROKER_SETTINGS = { 'log.retention.check.interval.ms': '500' };
export const ARCHIVER_MAX_FILE_AGE_MS = 1000;
/** Redis counts as trimmed once its log start is past this share of the log end. */
const TRIMMED_SHARE = 0.9;
/** The local.retention.bytes topic keeps this share of the payload in Redis. */
const BYTES_TAIL_SHARE = 0.1;

interface Meta {
  next: number;
  logStart: number;
  archived: number | null;
  remoteLogStart: number | null;
}

interface TieredStack {
  bootstrap: string;
  /** The broker's /metrics (http.port). */
  metricsUrl: string;
  redisPort: number;
  lake: string;
  admin: kafkajs.Admin;
  archiver: ManagedProcess;
  pids(): Record<string, number>;
  stop(): Promise<void>;
}

async function startTieredStack(): Promise<TieredStack> {
  const lake = fs.mkdtempSync(path.join(os.tmpdir(), 'rn-bench-lake-'));
  const parts: { redis?: RedisServer; broker?: RunnelBroker; archiver?: ManagedProcess; admin?: kafkajs.Admin } = {};
  let httpPort = 0;
  const stop = async (): Promise<void> => {
    await parts.admin?.disconnect().catch(() => undefined);
    await parts.archiver?.stop(15_000);
    await parts.broker?.stop().catch(() => undefined);
    await parts.redis?.stop().catch(() => undefined);
    fs.rmSync(lake, { recursive: true, force: true });
  };
  try {
    parts.redis = await startRedis({ flavor: 'redis', appendonly: true, appendfsync: 'everysec', args: EXTRA_REDIS_ARGS });
    const lakeUrl = `file://${lake}`;
    httpPort = await freePort();
    parts.broker = await startRunnel({
      redisUrl: parts.redis.url,
      env: { RUNNEL_LOG_LEVEL: 'warn', RUNNEL_LAKE: lakeUrl },
      args: Object.entries({ ...BROKER_SETTINGS, 'http.port': String(httpPort) }).flatMap(([k, v]) => ['--set', `${k}=${v}`]),
    });
    parts.archiver = spawnManaged('bench-tiered-archiver', process.execPath, [...V8_STARTUP_FLAGS, RUNNEL_CLI, 'archiver'], {
      env: { ...process.env, RUNNEL_REDIS_URL: parts.redis.url, RUNNEL_LAKE: lakeUrl, RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: String(ARCHIVER_MAX_FILE_AGE_MS), RUNNEL_LOG_LEVEL: 'warn' },
    });
    parts.admin = new kafkajs.Kafka({ clientId: 'runnel-bench-tiered', brokers: [parts.broker.bootstrap], logLevel: kafkajs.logLevel.NOTHING }).admin();
    await parts.admin.connect();
  } catch (e) {
    await stop();
    throw e;
  }
  const { redis, broker, archiver, admin } = parts as Required<typeof parts>;
  return {
    bootstrap: broker.bootstrap,
    metricsUrl: `http://${HOST}:${httpPort}/metrics`,
    redisPort: redis.port,
    lake,
    admin,
    archiver,
    pids: () => ({ broker: broker.proc().pid, redis: redis.proc().pid, archiver: archiver.pid }),
    stop,
  };
}

async function withRedis<T>(port: number, fn: (c: RespConnection) => Promise<T>): Promise<T> {
  const c = await RespConnection.connect(port);
  try {
    return await fn(c);
  } finally {
    c.close();
  }
}

const metaKey = (topic: string): string => `rn:p:{${topic}/0}:meta`;

async function readMeta(port: number, topic: string): Promise<Meta> {
  const f = [META_FIELD.next, META_FIELD.logStartOffset, META_FIELD.archived, META_FIELD.remoteLogStart];
  const v = (await withRedis(port, (c) => c.call(['HMGET', metaKey(topic), ...f]))) as Array<Buffer | null>;
  const n = (x: Buffer | null | undefined): number | null => (x === null || x === undefined ? null : Number(x.toString()));
  return { next: n(v[0]) ?? 0, logStart: n(v[1]) ?? 0, archived: n(v[2]), remoteLogStart: n(v[3]) };
}

async function usedMemory(port: number): Promise<number> {
  const info = String(await withRedis(port, (c) => c.call(['INFO', 'memory'])));
  const m = /used_memory:(\d+)/.exec(info);
  if (!m) throw new Error('INFO memory: no used_memory');
  return Number(m[1]);
}

/** What Redis holds of partition 0: MEMORY USAGE of its stream and of all its keys, and the records in the stream (from the batch headers). */
async function hotTail(port: number, topic: string): Promise<{ streamBytes: number; keysBytes: number; keys: number; entries: number; records: number }> {
  return withRedis(port, async (c) => {
    const streamBytes = Number((await c.call(['MEMORY', 'USAGE', streamKey(topic, 0), 'SAMPLES', 0])) ?? 0);
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = (await c.call(['SCAN', cursor, 'MATCH', `rn:p:{${topic}/0}*`, 'COUNT', 1000])) as [Buffer, Buffer[]];
      cursor = next.toString();
      keys.push(...batch.map((k) => k.toString()));
    } while (cursor !== '0');
    let keysBytes = 0;
    for (const k of keys) keysBytes += Number((await c.call(['MEMORY', 'USAGE', k, 'SAMPLES', 0])) ?? 0);
    const entries = (await c.call(['XRANGE', streamKey(topic, 0), '-', '+'])) as Array<[Buffer, Buffer[]]>;
    // RecordBatch v2: the record count is the int32 at byte 57.
    const records = entries.reduce((n, [, f]) => n + Buffer.from(f[1]!).readInt32BE(57), 0);
    return { streamBytes, keysBytes, keys: keys.length, entries: entries.length, records };
  });
}

/** Data files of the topic's Delta table and their bytes. */
function lakeFiles(lake: string, topic: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  const walk = (d: string): void => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== '_delta_log') walk(p);
      } else if (e.name.endsWith('.parquet')) {
        files++;
        bytes += fs.statSync(p).size;
      }
    }
  };
  walk(path.join(lake, topic));
  return { files, bytes };
}

const prefixed = (prefix: string, x: Metrics): Metrics => Object.fromEntries(Object.entries(x).map(([k, v]) => [`${prefix}${k[0]!.toUpperCase()}${k.slice(1)}`, v]));

/** One AssignConsumerPerf read of all `n` records from offset 0, with the CPU of `pids` over it; fewer records is an error. */
async function catchUpRead(bootstrap: string, topic: string, n: number, pids: Record<string, number>): Promise<Metrics> {
  const c0 = cpuMark(pids);
  const r = await assignConsumerPerf(bootstrap, topic, n);
  const c1 = cpuMark(pids);
  if (r.records < n) throw new Error(`AssignConsumerPerf read ${r.records} of ${n} records from offset 0`);
  return { records: r.records, recordsPerSec: r.records / (r.ms / 1000), mbPerSec: r.bytes / 1048576 / (r.ms / 1000), readMs: r.ms, ...cpuMetrics(cpuDelta(c0, c1), r.records), ...archiverCpu(c0, c1, r.records) };
}

function archiverCpu(a: CpuMark, b: CpuMark, records: number): Metrics {
  const x = a.procs.archiver;
  const y = b.procs.archiver;
  return x === null || x === undefined || y === null || y === undefined ? {} : { archiverCpuUsPerRecord: ((y - x) * 1e6) / records };
}

/** The broker's lake counters (lake-metrics.ts): decodes and their seconds, Fetch reads of the lake and cache lookups. */
async function lakeCounters(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(url)).text();
  const v = (re: RegExp): number => Number(re.exec(text)?.[1] ?? 0);
  return {
    decodes: v(/^runnel_lake_operation_seconds_count\{op="decode"\} (\S+)$/m),
    decodeSec: v(/^runnel_lake_operation_seconds_sum\{op="decode"\} (\S+)$/m),
    lakeReads: v(/^runnel_lake_operation_seconds_count\{op="read"\} (\S+)$/m),
    lakeReadSec: v(/^runnel_lake_operation_seconds_sum\{op="read"\} (\S+)$/m),
    lakeReadErrors: v(/^runnel_lake_operations_total\{op="read",result="error"\} (\S+)$/m),
    cacheHits: v(/^runnel_lake_cache_lookups_total\{result="hit"\} (\S+)$/m),
  };
}

/** catchUpRead with the broker's lake counters over it, and the decode time as a share of the read's wall time. */
async function lakeRead(stack: TieredStack, topic: string, n: number): Promise<Metrics> {
  const before = await lakeCounters(stack.metricsUrl);
  const r = await catchUpRead(stack.bootstrap, topic, n, stack.pids());
  const after = await lakeCounters(stack.metricsUrl);
  const d = Object.fromEntries(Object.keys(after).map((k) => [k, after[k]! - before[k]!]));
  return { ...r, ...d, decodeShare: r.readMs ? (d.decodeSec! * 1000) / r.readMs : null };
}

async function produce(bootstrap: string, topic: string, n: number): Promise<Metrics> {
  const r = await producerPerfSteady({ bootstrap, topic, numRecords: n, warmup: warmupOf(n), recordSize: RECORD_SIZE, props: BIG_BATCH });
  if (r.overall.records < n) throw new Error(`ProducerPerformance sent ${r.overall.records} of ${n} records`);
  return { produceRecordsPerSec: r.steady.recordsPerSec, produceMbPerSec: r.steady.mbPerSec };
}

export async function runTiered(sys: System, ctx: Ctx): Promise<Row> {
  const row: Row = { workload: 'l-tiered', system: sys.name, run: ctx.run, metrics: {}, notes: [] };
  try {
    if (sys.name === 'kafka') await kafkaRound(sys, ctx, row);
    else if (sys.name === 'runnel') await runnelRound(ctx, row);
    else throw new Error('workload l runs on Kafka and Runnel only');
  } catch (e) {
    row.error = errText(e);
  }
  return row;
}

async function kafkaRound(sys: System, ctx: Ctx, row: Row): Promise<void> {
  const n = ctx.counts.tiered;
  const topic = topicName('l-tiered', ctx.run);
  try {
    await sys.createTopic(topic, 1);
    Object.assign(row.metrics, await produce(sys.bootstrap, topic, n));
    const pids = sys.pids() as Record<string, number>;
    Object.assign(row.metrics, await catchUpRead(sys.bootstrap, topic, n, pids));
    Object.assign(row.metrics, prefixed('second', await catchUpRead(sys.bootstrap, topic, n, pids)));
    row.metrics.logBytes = await sys.logBytes(topic, 1);
  } finally {
    await sys.deleteTopic(topic, 1).catch(() => undefined);
  }
}

let stackInUse: TieredStack | null = null;

/** Stops Runnel's tiered stack, if a round started one. */
export async function stopTiered(): Promise<void> {
  const s = stackInUse;
  stackInUse = null;
  await s?.stop();
}

async function runnelRound(ctx: Ctx, row: Row): Promise<void> {
  const n = ctx.counts.tiered;
  const m = row.metrics;
  const topic = topicName('l-tiered', ctx.run);
  const stack = (stackInUse ??= await startTieredStack());
  let ok = false;
  try {
    const mem0 = await usedMemory(stack.redisPort);
    const created = await stack.admin.createTopics({
      topics: [{ topic, numPartitions: 1, replicationFactor: 1, configEntries: Object.entries(TIERED_CONFIGS).map(([name, value]) => ({ name, value })) }],
      waitForLeaders: true,
      timeout: 30_000,
    });
    if (!created) throw new Error(`createTopics ${topic}: topic already existed`);
    const pids = stack.pids();
    const a0 = cpuMark(pids);
    Object.assign(m, await produce(stack.bootstrap, topic, n));
    const produced = Date.now();
    m.peakUsedMemoryDelta = (await usedMemory(stack.redisPort)) - mem0;
    const end = (await readMeta(stack.redisPort, topic)).next;
    if (end < n) throw new Error(`log end ${end} after producing ${n} records`);
    let meta: Meta | null = null;
    const state = (): string => (meta ? `log end ${meta.next}, logStartOffset ${meta.logStart}, archived ${meta.archived}, remoteLogStart ${meta.remoteLogStart}` : 'no meta');
    const poll = async (ok: (x: Meta) => boolean): Promise<boolean> => ok((meta = await readMeta(stack.redisPort, topic)));
    await waitFor('the archiver to commit the log end', () => poll((x) => x.archived !== null && x.archived >= end - 1), { timeoutMs: 60_000 + n, intervalMs: 100, proc: stack.archiver }).catch((e: unknown) => {
      throw new Error(`${errText(e)} (${state()})`);
    });
    const archived = Date.now();
    m.archiveLagSec = (archived - produced) / 1000;
    const a1 = cpuMark(pids);
    const ac = archiverCpu(a0, a1, n).archiverCpuUsPerRecord;
    if (ac !== undefined) m.archivingArchiverCpuUsPerRecord = ac;
    await waitFor('the retention pass to trim Redis', () => poll((x) => x.logStart > TRIMMED_SHARE * end), { timeoutMs: 60_000, intervalMs: 100 }).catch((e: unknown) => {
      throw new Error(`${errText(e)} (${state()})`);
    });
    m.trimLagSec = (Date.now() - archived) / 1000;
    const lowHigh = (await stack.admin.fetchTopicOffsets(topic)).find((p) => p.partition === 0);
    const earliest = Number(lowHigh?.low ?? NaN);
    if (meta!.remoteLogStart !== 0 || earliest !== 0) throw new Error(`the Kafka log start is not 0 after local retention (EARLIEST ${earliest}; ${state()})`);
    const tail = await hotTail(stack.redisPort, topic);
    const mem1 = await usedMemory(stack.redisPort);
    const payload = tail.records * RECORD_SIZE;
    Object.assign(m, {
      logEnd: end,
      localLogStart: meta!.logStart,
      hotTailRecords: tail.records,
      hotTailEntries: tail.entries,
      hotTailPayloadBytes: payload,
      streamBytes: tail.streamBytes,
      partitionKeysBytes: tail.keysBytes,
      partitionKeys: tail.keys,
      usedMemoryDelta: mem1 - mem0,
      streamVsPayload: payload > 0 ? tail.streamBytes / payload : null,
      keysVsPayload: payload > 0 ? tail.keysBytes / payload : null,
      usedMemoryVsPayload: payload > 0 ? (mem1 - mem0) / payload : null,
    });
    const lf = lakeFiles(stack.lake, topic);
    Object.assign(m, { lakeFiles: lf.files, lakeBytes: lf.bytes });
    Object.assign(m, await lakeRead(stack, topic, n));
    Object.assign(m, prefixed('second', await lakeRead(stack, topic, n)));
    const after = await readMeta(stack.redisPort, topic);
    if (after.logStart <= TRIMMED_SHARE * end) row.notes!.push(`run ${ctx.run}: Redis log start ${after.logStart} after the reads (log end ${end})`);
    await stack.admin.deleteTopics({ topics: [topic], timeout: 30_000 }).catch(() => undefined);
    Object.assign(m, prefixed('bytesTail', await bytesTail(stack, ctx)));
    ok = true;
  } finally {
    if (!ok) await stopTiered();
  }
}

/**
 * The hot tail of a topic whose local retention is in bytes: local.retention.bytes
 * = BYTES_TAIL_SHARE of the payload, so Redis keeps many stream nodes and its
 * trim point falls inside one. Redis memory only (no reads).
 */
async function bytesTail(stack: TieredStack, ctx: Ctx): Promise<Metrics> {
  const n = ctx.counts.tiered;
  const topic = topicName('l-bytes', ctx.run);
  const configs = { 'remote.storage.enable': 'true', 'local.retention.bytes': String(Math.round(n * RECORD_SIZE * BYTES_TAIL_SHARE)), 'retention.ms': '-1' };
  try {
    const created = await stack.admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1, configEntries: Object.entries(configs).map(([name, value]) => ({ name, value })) }], waitForLeaders: true, timeout: 30_000 });
    if (!created) throw new Error(`createTopics ${topic}: topic already existed`);
    await produce(stack.bootstrap, topic, n);
    const end = (await readMeta(stack.redisPort, topic)).next;
    let meta: Meta | null = null;
    const state = (): string => (meta ? `log end ${meta.next}, logStartOffset ${meta.logStart}, archived ${meta.archived}` : 'no meta');
    await waitFor('the archiver to commit the log end', async () => ((meta = await readMeta(stack.redisPort, topic)).archived ?? -1) >= end - 1, { timeoutMs: 60_000 + n, intervalMs: 100, proc: stack.archiver }).catch((e: unknown) => {
      throw new Error(`local.retention.bytes topic: ${errText(e)} (${state()})`);
    });
    // Trimmed and settled: the log start moved and stayed put over three retention passes.
    let last = -1;
    let since = Date.now();
    await waitFor('the retention pass to trim Redis to local.retention.bytes', async () => {
      meta = await readMeta(stack.redisPort, topic);
      if (meta.logStart !== last) (last = meta.logStart), (since = Date.now());
      return last > 0 && Date.now() - since >= 1500;
    }, { timeoutMs: 60_000, intervalMs: 100 }).catch((e: unknown) => {
      throw new Error(`local.retention.bytes topic: ${errText(e)} (${state()})`);
    });
    const tail = await hotTail(stack.redisPort, topic);
    const payload = tail.records * RECORD_SIZE;
    return { limit: Number(configs['local.retention.bytes']), records: tail.records, entries: tail.entries, payloadBytes: payload, streamBytes: tail.streamBytes, streamVsPayload: payload > 0 ? tail.streamBytes / payload : null };
  } finally {
    await stack.admin.deleteTopics({ topics: [topic], timeout: 30_000 }).catch(() => undefined);
  }
}

export function tieredSummary(m: Metrics): string {
  const mem = m.streamVsPayload != null ? `; hot tail ${fmt(m.hotTailRecords, 0)} records, stream ${fmt(m.streamBytes, 0)} B = ${fmt(m.streamVsPayload, 2)}x payload` : '';
  return `catch-up read ${fmt(m.recordsPerSec, 0)} records/s (second ${fmt(m.secondRecordsPerSec, 0)}), broker ${fmt(m.brokerCpuUsPerRecord, 2)} µs/record${mem}`;
}

/** The tiered-storage section of the results Markdown ('' when workload l did not run). */
export function tieredMarkdown(medians: Partial<Record<SystemName, Metrics>> | undefined, counts: Counts): string {
  if (!medians || !Object.keys(medians).length) return '';
  const cols: SystemName[] = ['kafka', 'runnel'];
  const g = (s: SystemName, k: string): number | null => medians[s]?.[k] ?? null;
  const ratio = (k: string): string => {
    const [a, b] = [g('runnel', k), g('kafka', k)];
    return a !== null && b !== null && a > 0 && b > 0 ? `${(a / b).toFixed(2)}×` : '—';
  };
  const rate = (p: string) => (s: SystemName): string => {
    const k = p ? `${p}RecordsPerSec` : 'recordsPerSec';
    const mb = p ? `${p}MbPerSec` : 'mbPerSec';
    return g(s, k) === null ? 'n/a' : `${fmt(g(s, k), 0)}<br>${fmt(g(s, mb), 1)} MiB/s`;
  };
  const pct = (v: number | null): number | null => (v === null ? null : v * 100);
  const us = (k: string) => (s: SystemName): string => fmt(g(s, k), 2);
  const runnelOnly = (f: (s: SystemName) => string) => (s: SystemName): string => (s === 'runnel' ? f(s) : '—');
  const B = (v: number | null): string => (v === null ? 'n/a' : v >= 1048576 ? `${fmt(v / 1048576, 1)} MiB` : v >= 1024 ? `${fmt(v / 1024, 1)} KiB` : `${fmt(v, 0)} B`);
  const x = (k: string): string => (g('runnel', k) === null ? 'n/a' : `${fmt(g('runnel', k), 2)}×`);
  const rows: Array<[string, (s: SystemName) => string, string]> = [
    ['**catch-up read from offset 0** (first read; Runnel: from the lake)', rate(''), ratio('recordsPerSec')],
    ['second read (Runnel: lake reader cache)', rate('second'), ratio('secondRecordsPerSec')],
    ['broker CPU µs/record, first read (Kafka JVM / Runnel node)', us('brokerCpuUsPerRecord'), ratio('brokerCpuUsPerRecord')],
    ['broker CPU µs/record, second read', us('secondBrokerCpuUsPerRecord'), ratio('secondBrokerCpuUsPerRecord')],
    [
      'Runnel lake reader, first / second read: data files decoded, their decode time (s, and as a share of the read), Fetch reads of the lake (errors), cache hits',
      runnelOnly((s) => `${fmt(g(s, 'decodes'), 0)} / ${fmt(g(s, 'secondDecodes'), 0)} files; ${fmt(g(s, 'decodeSec'), 2)} s (${fmt(pct(g(s, 'decodeShare')), 0)} %) / ${fmt(g(s, 'secondDecodeSec'), 2)} s; ${fmt(g(s, 'lakeReads'), 0)} (${fmt(g(s, 'lakeReadErrors'), 0)}) / ${fmt(g(s, 'secondLakeReads'), 0)} (${fmt(g(s, 'secondLakeReadErrors'), 0)}); ${fmt(g(s, 'cacheHits'), 0)} / ${fmt(g(s, 'secondCacheHits'), 0)}`),
      '—',
    ],
    ["Runnel's Redis CPU µs/record, first / second read", runnelOnly((s) => `${fmt(g(s, 'redisCpuUsPerRecord'), 2)} / ${fmt(g(s, 'secondRedisCpuUsPerRecord'), 2)}`), '—'],
    ['archiver CPU µs/record during the first / second read (not on the read path)', runnelOnly((s) => `${fmt(g(s, 'archiverCpuUsPerRecord'), 2)} / ${fmt(g(s, 'secondArchiverCpuUsPerRecord'), 2)}`), '—'],
    ['archiver CPU µs/record, produce start → everything committed', runnelOnly(us('archivingArchiverCpuUsPerRecord')), '—'],
    ['produce (ProducerPerformance, steady state)', (s) => `${fmt(g(s, 'produceRecordsPerSec'), 0)}<br>${fmt(g(s, 'produceMbPerSec'), 1)} MiB/s`, ratio('produceRecordsPerSec')],
    ['produce end → archiver committed the log end / → Redis trimmed (s)', runnelOnly((s) => `${fmt(g(s, 'archiveLagSec'), 2)} / ${fmt(g(s, 'trimLagSec'), 2)}`), '—'],
    ['log end / Redis log start (EARLIEST_LOCAL) / records still in Redis', runnelOnly((s) => `${fmt(g(s, 'logEnd'), 0)} / ${fmt(g(s, 'localLogStart'), 0)} / ${fmt(g(s, 'hotTailRecords'), 0)} (${fmt(g(s, 'hotTailEntries'), 0)} batches)`), '—'],
    ['**Redis MEMORY USAGE of the partition stream** / hot-tail payload (records in Redis × 1 KiB)', runnelOnly((s) => `${B(g(s, 'streamBytes'))} / ${B(g(s, 'hotTailPayloadBytes'))} = **${x('streamVsPayload')}**`), '—'],
    [`local.retention.bytes=${fmt(counts.tiered * RECORD_SIZE * BYTES_TAIL_SHARE, 0)} (${BYTES_TAIL_SHARE * 100} % of the payload; a second topic): MEMORY USAGE of the stream / payload of its records`, runnelOnly((s) => `${B(g(s, 'bytesTailStreamBytes'))} / ${B(g(s, 'bytesTailPayloadBytes'))} (${fmt(g(s, 'bytesTailRecords'), 0)} records, ${fmt(g(s, 'bytesTailEntries'), 0)} batches) = **${x('bytesTailStreamVsPayload')}**`), '—'],
    ['MEMORY USAGE of all the partition keys / payload', runnelOnly((s) => `${B(g(s, 'partitionKeysBytes'))} (${fmt(g(s, 'partitionKeys'), 0)} keys) = ${x('keysVsPayload')}`), '—'],
    ['Redis used_memory delta (after trimming vs before the topic) / payload; peak after produce', runnelOnly((s) => `${B(g(s, 'usedMemoryDelta'))} = ${x('usedMemoryVsPayload')}; peak ${B(g(s, 'peakUsedMemoryDelta'))}`), '—'],
    ['lake: data files / Parquet bytes (Kafka: .log bytes)', (s) => (s === 'runnel' ? `${fmt(g(s, 'lakeFiles'), 0)} / ${B(g(s, 'lakeBytes'))}` : B(g(s, 'logBytes'))), '—'],
  ];
  const L = [
    `**Tiered storage** (l): ${fmt(counts.tiered, 0)} records of ${RECORD_SIZE} B to a 1-partition topic (ProducerPerformance, acks=1, batch 1 MiB, linger 0), then bench/java/AssignConsumerPerf reads them all from offset 0, twice. ` +
      `Runnel: a stack of its own (redis-server, broker with lake=file://<tmp> and ${Object.entries(BROKER_SETTINGS).map(([k, v]) => `${k}=${v}`).join(', ')}, \`runnel archiver\` with RUNNEL_ARCHIVER_MAX_FILE_AGE_MS=${ARCHIVER_MAX_FILE_AGE_MS}), ` +
      `topic ${Object.entries(TIERED_CONFIGS).map(([k, v]) => `${k}=${v}`).join(', ')}; the reads start once the archiver committed everything and Redis kept only the hot tail (Redis log start > ${TRIMMED_SHARE * 100} % of the log end, the Kafka log start 0), so Runnel serves all but the tail from the Parquet files. ` +
      'Kafka reads from its own log (page cache). Targets: read ≥ 0.5× Kafka, Redis stream ≤ 1.1× the hot-tail payload. See bench/README.md, Tiered storage (l).',
    '',
    `| metric | ${cols.map((s) => SYSTEM_LABEL[s]).join(' | ')} | Runnel / Kafka |`,
    '|---|---:|---:|---:|',
    ...rows.map(([label, cell, rt]) => `| ${label} | ${cols.map((s) => (medians[s] ? cell(s) : 'n/a')).join(' | ')} | ${rt} |`),
  ];
  return L.join('\n');
}
