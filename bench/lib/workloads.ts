// The workloads. Each one runs against one system and returns one row of
// metrics; run.ts repeats them and takes medians.
//
// Kafka and Runnel are driven by Kafka's own tools from the jars
// (ProducerPerformance, EndToEndLatency; ConsumerPerformance where the broker
// has consumer groups) plus bench/java/AssignConsumerPerf (group-free consumer,
// so the consumer numbers compare like with like). The raw-Redis ceiling is
// driven by raw.ts with the same batch bytes.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { buildBatch } from '../../test/helpers/batches.js';
import { consumerPerf, producerPerf, runJava, type ProducerPerfResult } from '../../test/helpers/java.js';
import { CACHE_DIR, REPO_ROOT, runCommand } from '../../test/helpers/procs.js';
import { cpuDelta, cpuMark, type CpuDelta } from './cpu.js';
import { rawAckLatencyAtRate, rawConsume, rawEndToEnd, rawProduce, type RawBatch } from './raw.js';
import { aofRewritesBetween, streamKey, type AofRewrites, type System, type SystemName } from './systems.js';

export interface Counts {
  /** a: records (1 KiB) */
  a: number;
  /** b: producer processes and records per producer */
  bProducers: number;
  bPerProducer: number;
  /** c: records (1 KiB, Java defaults) */
  c: number;
  /** d: records (100 B, each codec) */
  d: number;
  /** f: fixed rate (records/s) and records for the ack-latency run; records for EndToEndLatency */
  rate: number;
  rateRecords: number;
  /** f: seconds of warm-up at the rate, left out of the ack-latency percentiles */
  rateWarmupSec: number;
  e2e: number;
  /** unmeasured warm-up records per system (JIT) */
  warmup: number;
  archiver100: number;
  archiver1k: number;
  /** The raw driver keeps producing until at least this long has passed (or rawMaxMiB were written). */
  rawMinSeconds: number;
  rawMaxMiB: number;
  /** i: keyed records over compactKeys keys (100 B values), and how long to wait for the cleaner at most */
  compactRecords: number;
  compactKeys: number;
  compactWatchSec: number;
  /** j: transactional records (1 KiB, commit every 100 ms), and the read_committed latency run's rate and records */
  txnRecords: number;
  txnLatencyRate: number;
  txnLatencyRecords: number;
  /** k: 1 KiB records produced (acks=all) and consumed over each of PLAINTEXT, SSL and SASL_SSL */
  secure: number;
  /** l: 1 KiB records produced to a tiered topic (and to Kafka), then read from offset 0 */
  tiered: number;
  /** m: keyed 100 B records produced and consumed by runnel produce/consume and by kcat */
  cli: number;
  /** n: 1 KiB records produced at tailRate records/s while a consumer reads them at the tail */
  tail: number;
  tailRate: number;
  /** o: the publish rates (records/s) stepped through, and about how long each step produces */
  ombRates: number[];
  ombStepSec: number;
  /** p: 100 B records in 16 partitions read by a classic and a KIP-848 consumer; records through the share group */
  groups: number;
  share: number;
  /** p: also the classic protocol (quick mode: KIP-848 only) */
  groupsClassic: boolean;
}

export const FULL: Counts = {
  a: 400_000,
  bProducers: 8,
  bPerProducer: 40_000,
  c: 120_000,
  d: 600_000,
  rate: 2_000,
  rateWarmupSec: 3,
  rateRecords: 20_000,
  e2e: 5_000,
  warmup: 150_000,
  archiver100: 1_000_000,
  archiver1k: 300_000,
  rawMinSeconds: 1.5,
  rawMaxMiB: 512,
  compactRecords: 500_000,
  compactKeys: 10_000,
  compactWatchSec: 180,
  txnRecords: 300_000,
  txnLatencyRate: 1_000,
  txnLatencyRecords: 10_000,
  secure: 400_000,
  tiered: 200_000,
  cli: 1_000_000,
  tail: 400_000,
  tailRate: 20_000,
  ombRates: [5_000, 10_000, 20_000, 40_000, 80_000, 160_000],
  ombStepSec: 10,
  groups: 500_000,
  share: 50_000,
  groupsClassic: true,
};

// Quick mode is CI's smoke test (every workload must yield a number): each
// JVM start costs ~1 s of the 2 shared cores, so quick mode starts fewer.
export const QUICK: Counts = {
  a: 20_000,
  bProducers: 4,
  bPerProducer: 2_500,
  c: 5_000,
  d: 30_000,
  rate: 1_000,
  rateRecords: 1_000,
  rateWarmupSec: 1,
  e2e: 300,
  warmup: 0,
  archiver100: 20_000,
  archiver1k: 5_000,
  rawMinSeconds: 0.3,
  rawMaxMiB: 64,
  compactRecords: 20_000,
  compactKeys: 1_000,
  compactWatchSec: 60,
  txnRecords: 50_000,
  txnLatencyRate: 500,
  txnLatencyRecords: 1_000,
  secure: 10_000,
  tiered: 20_000,
  cli: 20_000,
  tail: 30_000,
  tailRate: 10_000,
  ombRates: [4_000, 32_000],
  ombStepSec: 2,
  groups: 50_000,
  share: 2_000,
  groupsClassic: false,
};

export type WorkloadId =
  | 'a-produce-1p'
  | 'e-consume-a'
  | 'b-produce-16p'
  | 'e-consume-b'
  | 'c-produce-defaults'
  | 'd-zstd-100B'
  | 'd-lz4-100B'
  | 'f-ack-latency'
  | 'f-e2e-latency'
  | 'i-compaction'
  | 'j-transactions'
  | 'k-plaintext'
  | 'k-ssl'
  | 'k-sasl-ssl'
  | 'l-tiered'
  | 'm-cli'
  | 'n-tail'
  | 'o-omb'
  | 'p-groups';

export interface WorkloadInfo {
  id: WorkloadId;
  title: string;
  kind: 'throughput' | 'latency' | 'compaction' | 'transactions' | 'secure' | 'tiered' | 'cli' | 'omb' | 'groups';
  /** The metric that must be a number for the workload to count as done. */
  primary: 'recordsPerSec' | 'p99' | 'compactionRecordsPerSec';
  /** Systems it runs on (default: all). */
  systems?: SystemName[];
}

export const WORKLOADS: WorkloadInfo[] = [
  { id: 'a-produce-1p', title: 'a) produce, 1 producer, 1 partition, 1 KiB, acks=1, batch 1 MiB, linger 0', kind: 'throughput', primary: 'recordsPerSec' },
  { id: 'e-consume-a', title: 'e) consume what (a) wrote (1 partition)', kind: 'throughput', primary: 'recordsPerSec' },
  { id: 'b-produce-16p', title: 'b) produce, N producers, 16 partitions, 1 KiB, acks=1', kind: 'throughput', primary: 'recordsPerSec' },
  { id: 'e-consume-b', title: 'e) consume what (b) wrote (16 partitions)', kind: 'throughput', primary: 'recordsPerSec' },
  { id: 'c-produce-defaults', title: 'c) produce, Java defaults (acks=all, idempotence, batch 16 KiB, linger 5 ms), 1 KiB', kind: 'throughput', primary: 'recordsPerSec' },
  { id: 'd-zstd-100B', title: 'd) produce 100 B records, zstd, acks=1, batch 1 MiB', kind: 'throughput', primary: 'recordsPerSec' },
  { id: 'd-lz4-100B', title: 'd) produce 100 B records, lz4, acks=1, batch 1 MiB', kind: 'throughput', primary: 'recordsPerSec' },
  { id: 'f-ack-latency', title: 'f) produce ack latency at a fixed rate, 1 KiB, acks=1, linger 0', kind: 'latency', primary: 'p99' },
  { id: 'f-e2e-latency', title: 'f) end-to-end latency (EndToEndLatency: produce -> consume, one in flight), 1 KiB, acks=1', kind: 'latency', primary: 'p99' },
  {
    id: 'i-compaction',
    title: 'i) compaction: keyed 100 B records, many updates per key, cleanup.policy=compact',
    kind: 'compaction',
    primary: 'compactionRecordsPerSec',
    systems: ['kafka', 'runnel'],
  },
  {
    id: 'j-transactions',
    title: 'j) transactions: transactional producer committing every 100 ms, 1 KiB; read_committed end-to-end latency',
    kind: 'transactions',
    primary: 'recordsPerSec',
    systems: ['kafka', 'runnel'],
  },
  // k: one row per security protocol with the produce (recordsPerSec) and consume (consumeRecordsPerSec) rates; see secure.ts.
  ...(
    [
      ['k-plaintext', 'PLAINTEXT'],
      ['k-ssl', 'SSL'],
      ['k-sasl-ssl', 'SASL_SSL (SCRAM-SHA-512)'],
    ] as const
  ).map(([id, p]): WorkloadInfo => ({
    id,
    title: `k) ${p}: produce 1 KiB, acks=all, batch 1 MiB, linger 0, then consume it`,
    kind: 'secure',
    primary: 'recordsPerSec',
    systems: ['kafka', 'runnel'],
  })),
  {
    id: 'l-tiered',
    title: 'l) tiered storage: catch-up read from offset 0 of 1 KiB records (Runnel: from the lake), Redis memory of the hot tail',
    kind: 'tiered',
    primary: 'recordsPerSec',
    systems: ['kafka', 'runnel'],
  },
  // m: one row per broker with the four commands' rates and CPU; recordsPerSec is runnel produce's (cli.ts).
  {
    id: 'm-cli',
    title: 'm) command-line clients: runnel produce/consume vs kcat -P/-C, keyed 100 B records, 4 partitions',
    kind: 'cli',
    primary: 'recordsPerSec',
    systems: ['kafka', 'runnel'],
  },
  // n: consumers at the tail (Runnel: answered from the tail cache, log.tail.cache.bytes); the CPU is of producing and consuming each record.
  {
    id: 'n-tail',
    title: 'n) produce and consume at once: 1 producer at a fixed rate, 1 consumer at the tail, 4 partitions, 1 KiB, acks=1, linger 1 ms',
    kind: 'throughput',
    primary: 'recordsPerSec',
    systems: ['kafka', 'runnel'],
  },
  // o: OMB's 1-topic-16-partitions-1kb at rising fixed publish rates (omb.ts); recordsPerSec is the highest rate held.
  {
    id: 'o-omb',
    title: 'o) OMB 1-topic-16-partitions-1kb: publish rate stepped up to saturation, 1 consumer at the tail, acks=all',
    kind: 'omb',
    primary: 'recordsPerSec',
    systems: ['kafka', 'runnel'],
  },
  // p: one row per broker; recordsPerSec is the KIP-848 consumer's (groups.ts).
  {
    id: 'p-groups',
    title: 'p) consumer groups: classic vs KIP-848 consume and rebalance (16 partitions), share-group queue (1 partition, 3 share consumers, per-record ACCEPT)',
    kind: 'groups',
    primary: 'recordsPerSec',
    systems: ['kafka', 'runnel'],
  },
];

export type Metrics = Record<string, number | null>;

export interface Row {
  workload: WorkloadId;
  system: SystemName;
  run: number;
  metrics: Metrics;
  notes?: string[];
  error?: string;
}

/** What Runnel stored in this run, handed to the raw driver so it writes the same bytes. */
export interface RawHint {
  recordsPerBatch: number;
  samples: RawBatch[];
}

export interface Ctx {
  counts: Counts;
  run: number;
  hints: Map<WorkloadId, RawHint>;
  log: (msg: string) => void;
}

// ------------------------------------------------------------------ helpers ---

const DEPTH = 5; // max.in.flight.requests.per.connection of the Java producer
export const BIG_BATCH = { acks: 1, 'batch.size': 1048576, 'linger.ms': 0 };

export const topicName = (w: string, run: number): string => `bench-${w}-r${run}-${randomBytes(3).toString('hex')}`;

const BENCH_JAVA = path.join(CACHE_DIR, 'bench-java');
/** The bench's own Java tools (bench/java), compiled into .cache/bench-java. */
const JAVA_TOOLS = ['AssignConsumerPerf', 'CompactionPerf', 'TxnPerf', 'GroupPerf'];
export const BENCH_JAVA_CP = BENCH_JAVA;

export async function ensureBenchJava(): Promise<void> {
  const srcs = JAVA_TOOLS.map((t) => path.join(REPO_ROOT, 'bench', 'java', `${t}.java`));
  const fresh = (t: string, src: string): boolean => {
    const cls = path.join(BENCH_JAVA, `${t}.class`);
    return fs.existsSync(cls) && fs.statSync(cls).mtimeMs >= fs.statSync(src).mtimeMs;
  };
  if (JAVA_TOOLS.every((t, i) => fresh(t, srcs[i]!))) return;
  fs.mkdirSync(BENCH_JAVA, { recursive: true });
  const r = await runCommand('javac', ['-nowarn', '-encoding', 'UTF-8', '-d', BENCH_JAVA, '-cp', path.join(CACHE_DIR, 'java', 'lib', '*'), ...srcs], {
    timeoutMs: 120_000,
  });
  if (r.code !== 0) throw new Error(`javac ${JAVA_TOOLS.join(', ')} failed:\n${r.stdout}\n${r.stderr}`);
}

function valueRecords(n: number, size: number): Array<{ key: null; value: Buffer }> {
  // ProducerPerformance's payload: random upper-case letters.
  const v = Buffer.alloc(size);
  for (let i = 0; i < size; i++) v[i] = 65 + Math.floor(Math.random() * 26);
  return Array.from({ length: n }, () => ({ key: null, value: v }));
}

export function perfMetrics(r: Omit<ProducerPerfResult, 'raw'>): Metrics {
  return {
    records: r.records,
    recordsPerSec: r.recordsPerSec,
    mbPerSec: r.mbPerSec,
    avgLatencyMs: r.avgLatencyMs,
    p50: r.p50,
    p99: r.p99,
    p999: r.p999,
  };
}

const PERF_LINE =
  /^(\d+) (steady state )?records sent, ([\d.]+) records\/sec \(([\d.]+) MB\/sec\), ([\d.]+) ms avg latency, ([\d.]+) ms max latency, (\d+) ms 50th, (\d+) ms 95th, (\d+) ms 99th, (\d+) ms 99\.9th\.$/;

type PerfLine = Omit<ProducerPerfResult, 'raw'>;

/**
 * ProducerPerformance with --warmup-records: the first `warmup` records are
 * left out of the steady-state summary (the producer JVM's own JIT and
 * connection set-up would otherwise dominate short runs and the tail latency).
 * Returns the steady-state line (all records when warmup is 0) and the overall one.
 */
export async function producerPerfSteady(o: {
  bootstrap: string;
  topic: string;
  numRecords: number;
  warmup: number;
  recordSize: number;
  throughput?: number;
  props: Record<string, string | number>;
  /** A client properties file (--command-config); `props` win over it. */
  configFile?: string;
}): Promise<{ steady: PerfLine; overall: PerfLine }> {
  const args = ['--topic', o.topic, '--num-records', String(o.numRecords), '--record-size', String(o.recordSize), '--throughput', String(o.throughput ?? -1)];
  if (o.warmup > 0) args.push('--warmup-records', String(o.warmup));
  if (o.configFile) args.push('--command-config', o.configFile);
  args.push('--command-property', `bootstrap.servers=${o.bootstrap}`, ...Object.entries(o.props).map(([k, v]) => `${k}=${v}`));
  const raw = await runJava('org.apache.kafka.tools.ProducerPerformance', args, { timeoutMs: 600_000, jvmArgs: ['-Xmx1g'] });
  let overall: PerfLine | null = null;
  let steady: PerfLine | null = null;
  for (const line of raw.stdout.split('\n')) {
    const m = PERF_LINE.exec(line.trim());
    if (!m) continue;
    const n = [m[1], ...m.slice(3)].map(Number);
    const v: PerfLine = { records: n[0]!, recordsPerSec: n[1]!, mbPerSec: n[2]!, avgLatencyMs: n[3]!, maxLatencyMs: n[4]!, p50: n[5]!, p95: n[6]!, p99: n[7]!, p999: n[8]! };
    if (m[2]) steady = v;
    else overall = v;
  }
  if (!overall || (o.warmup > 0 && !steady)) {
    throw new Error(`ProducerPerformance printed no summary (code ${raw.code}):\n${raw.stdout.slice(-2000)}\n${raw.stderr.slice(-4000)}`);
  }
  return { steady: steady ?? overall, overall };
}

/** Warm-up records for a throughput run: 10 % of it. */
export const warmupOf = (n: number): number => Math.floor(n / 10);

export interface ProduceSpec {
  partitions: number;
  producers: number;
  recordsPerProducer: number;
  recordSize: number;
  props: Record<string, string | number>;
  compressed: boolean;
}

function produceSpec(w: WorkloadId, c: Counts): ProduceSpec {
  switch (w) {
    case 'a-produce-1p':
      return { partitions: 1, producers: 1, recordsPerProducer: c.a, recordSize: 1024, props: BIG_BATCH, compressed: false };
    case 'b-produce-16p':
      return { partitions: 16, producers: c.bProducers, recordsPerProducer: c.bPerProducer, recordSize: 1024, props: BIG_BATCH, compressed: false };
    case 'c-produce-defaults':
      return { partitions: 1, producers: 1, recordsPerProducer: c.c, recordSize: 1024, props: {}, compressed: false };
    case 'd-zstd-100B':
      return { partitions: 1, producers: 1, recordsPerProducer: c.d, recordSize: 100, props: { ...BIG_BATCH, 'compression.type': 'zstd' }, compressed: true };
    case 'd-lz4-100B':
      return { partitions: 1, producers: 1, recordsPerProducer: c.d, recordSize: 100, props: { ...BIG_BATCH, 'compression.type': 'lz4' }, compressed: true };
    default:
      throw new Error(`${w} is not a produce workload`);
  }
}

// ------------------------------------------------------------ produce (a-d) ---

/**
 * Produces per the workload on `sys`, measures memory/storage per record and
 * (for a and b) the consumer reading it all back. Returns the produce row and
 * the consume row (if any). The topic is deleted afterwards.
 */
export async function runProduce(sys: System, w: WorkloadId, ctx: Ctx): Promise<Row[]> {
  const spec = produceSpec(w, ctx.counts);
  const total = spec.producers * spec.recordsPerProducer;
  const topic = topicName(w, ctx.run);
  const consumeId: WorkloadId | null = w === 'a-produce-1p' ? 'e-consume-a' : w === 'b-produce-16p' ? 'e-consume-b' : null;
  const rows: Row[] = [];
  const row: Row = { workload: w, system: sys.name, run: ctx.run, metrics: {}, notes: [] };
  rows.push(row);
  try {
    await sys.createTopic(topic, spec.partitions);
    const mem0 = await sys.usedMemory();
    const aof0 = await sys.aofRewrites().catch(() => null);
    const cpu0 = cpuMark(sys.pids() as Record<string, number>);
    if (sys.name === 'raw') {
      const batches = rawBatchesFor(w, spec, ctx, row);
      const r = await rawProduce({
        port: sys.redisPort,
        streams: Array.from({ length: spec.partitions }, (_, p) => streamKey(topic, p)),
        connections: spec.producers,
        depth: DEPTH,
        batches,
        totalRecords: total,
        recordSize: spec.recordSize,
        minSeconds: ctx.counts.rawMinSeconds,
        maxWireBytes: ctx.counts.rawMaxMiB * 1048576,
      });
      Object.assign(row.metrics, { records: r.records, recordsPerSec: r.recordsPerSec, mbPerSec: r.mbPerSec });
      if (r.records > total) row.notes!.push(`kept producing past the workload's record count until ${ctx.counts.rawMinSeconds} s had passed or ${ctx.counts.rawMaxMiB} MiB were written`);
    } else if (spec.producers === 1) {
      const r = await producerPerfSteady({ bootstrap: sys.bootstrap, topic, numRecords: total, warmup: warmupOf(total), recordSize: spec.recordSize, props: spec.props });
      Object.assign(row.metrics, perfMetrics(r.steady), { records: r.overall.records, overallRecordsPerSec: r.overall.recordsPerSec });
    } else {
      Object.assign(row.metrics, await parallelProducers(sys.bootstrap, topic, spec));
    }
    const records = row.metrics.records ?? total;
    Object.assign(row.metrics, cpuMetrics(cpuDelta(cpu0, cpuMark(sys.pids() as Record<string, number>)), records));
    noteAofRewrites(row, aof0, await sys.aofRewrites().catch(() => null));
    const mem1 = await sys.usedMemory();
    if (mem0 !== null && mem1 !== null) row.metrics.redisBytesPerRecord = (mem1 - mem0) / records;
    const streamBytes = await sys.streamBytes(topic, spec.partitions);
    if (streamBytes !== null) row.metrics.streamBytesPerRecord = streamBytes / records;
    const logBytes = await sys.logBytes(topic, spec.partitions);
    if (logBytes !== null) row.metrics.logBytesPerRecord = logBytes / records;
    const entries = await sys.entries(topic, spec.partitions);
    if (entries) row.metrics.recordsPerBatch = records / entries;
    row.metrics.payloadBytesPerRecord = spec.recordSize;
    if (sys.name === 'runnel' && entries) {
      ctx.hints.set(w, { recordsPerBatch: records / entries, samples: await sys.sampleBatches(topic, 0, 20) });
    }
    if (consumeId) rows.push(await runConsume(sys, consumeId, topic, spec, records, ctx));
  } catch (e) {
    row.error = errText(e);
  } finally {
    await sys.deleteTopic(topic, spec.partitions).catch(() => undefined);
  }
  return rows;
}

/**
 * CPU cost per record: microseconds of CPU of the broker process, of Redis,
 * and of the load generator (this process + the producer JVMs it ran, from
 * cutime/cstime) per record; "machine" is every process on the box (other
 * tenants included) and is kept in the JSON only.
 */
export function cpuMetrics(d: CpuDelta, records: number): Metrics {
  const us = (s: number | null | undefined): number | null => (s === null || s === undefined ? null : (s * 1e6) / records);
  const cores = (s: number | null | undefined): number | null => (s === null || s === undefined ? null : s / d.wallS);
  return {
    brokerCpuUsPerRecord: us(d.procs.broker),
    redisCpuUsPerRecord: us(d.procs.redis),
    clientCpuUsPerRecord: us(d.client),
    machineCpuUsPerRecord: us(d.machine),
    brokerCores: cores(d.procs.broker),
    redisCores: cores(d.procs.redis),
    clientCores: cores(d.client),
    machineCores: cores(d.machine),
  };
}

function rawBatchesFor(w: WorkloadId, spec: ProduceSpec, ctx: Ctx, row: Row): RawBatch[] {
  const hint = ctx.hints.get(w);
  if (spec.compressed) {
    if (!hint || hint.samples.length === 0) throw new Error('no compressed batches from the Runnel run of this workload to replay');
    row.notes!.push(`replays the ${hint.samples.length} newest compressed batches Runnel stored in the same run`);
    row.metrics.rawBatchRecords = hint.samples.reduce((a, b) => a + b.records, 0) / hint.samples.length;
    return hint.samples;
  }
  // Same batch sizes as Runnel stored (record counts of its newest batches),
  // built with buildBatch(): batch sizes matter, e.g. for jemalloc size classes.
  if (hint && hint.samples.length) {
    const built = new Map<number, Buffer>();
    const out = hint.samples.map((s) => {
      let bytes = built.get(s.records);
      if (!bytes) built.set(s.records, (bytes = buildBatch(valueRecords(s.records, spec.recordSize))));
      return { bytes, records: s.records };
    });
    row.notes!.push(`cycles through buildBatch() batches with the record counts of the ${out.length} newest batches Runnel stored in the same run`);
    row.metrics.rawBatchRecords = out.reduce((a, b) => a + b.records, 0) / out.length;
    return out;
  }
  // No Runnel run: what the Java producer's batch.size allows (~1034 bytes per 1 KiB record).
  const n = Math.max(1, Math.floor(Number(spec.props['batch.size'] ?? 16384) / (spec.recordSize + 10)));
  row.notes!.push(`batches of ${n} x ${spec.recordSize} B (batch.size fallback: no Runnel run)`);
  row.metrics.rawBatchRecords = n;
  return [{ bytes: buildBatch(valueRecords(n, spec.recordSize)), records: n }];
}

/**
 * `spec.producers` concurrent ProducerPerformance JVMs on one topic; the
 * aggregate rate is steady-state records over the union of their steady-state
 * send windows (see the README, workload b).
 */
export async function parallelProducers(bootstrap: string, topic: string, spec: Pick<ProduceSpec, 'producers' | 'recordsPerProducer' | 'recordSize' | 'props'>): Promise<Metrics> {
  const n = spec.recordsPerProducer;
  const done = await Promise.all(
    Array.from({ length: spec.producers }, async () => {
      const r = await producerPerfSteady({ bootstrap, topic, numRecords: n, warmup: warmupOf(n), recordSize: spec.recordSize, props: spec.props });
      return { r: r.steady, all: r.overall, end: Date.now() };
    }),
  );
  const results = done.map((d) => d.r);
  // Aggregate over the union of the producers' steady-state send windows: each
  // window ends when its process exits and lasts records/rate (JVM start-up and
  // warm-up records excluded).
  const windows = done.map(({ r, end }) => ({ start: end - (r.records / r.recordsPerSec) * 1000, end }));
  const span = (Math.max(...windows.map((x) => x.end)) - Math.min(...windows.map((x) => x.start))) / 1000;
  const records = results.reduce((a, r) => a + r.records, 0);
  const allRecords = done.reduce((a, d) => a + d.all.records, 0);
  const sorted = (k: 'p50' | 'p99' | 'p999') => results.map((r) => r[k]).sort((a, b) => a - b);
  return {
    records: allRecords,
    steadyRecords: records,
    recordsPerSec: records / span,
    mbPerSec: (records * spec.recordSize) / 1048576 / span,
    sumOfProducerRates: results.reduce((a, r) => a + r.recordsPerSec, 0),
    avgLatencyMs: results.reduce((a, r) => a + r.avgLatencyMs, 0) / results.length,
    p50: sorted('p50')[results.length >> 1]!,
    p99: Math.max(...sorted('p99')),
    p999: Math.max(...sorted('p999')),
  };
}

// ------------------------------------------------------------------ consume ---

/**
 * bench/java/AssignConsumerPerf: reads `records` records of `topic` from the
 * beginning (assign(), no group). `extra`: client settings as key=value, or
 * @<file> for a client properties file.
 */
export async function assignConsumerPerf(bootstrap: string, topic: string, records: number, extra: string[] = []): Promise<{ records: number; bytes: number; ms: number; e2e?: { p50: number; p99: number; p999: number } }> {
  const r = await runJava('AssignConsumerPerf', [bootstrap, topic, String(records), ...extra], {
    classpath: [BENCH_JAVA],
    jvmArgs: ['-Xmx1g'],
    timeoutMs: 300_000,
  });
  const m = /RESULT records=(\d+) bytes=(\d+) ms=([\d.]+)/.exec(r.stdout);
  if (!m) throw new Error(`AssignConsumerPerf printed no result (code ${r.code}):\n${r.stdout.slice(-1000)}\n${r.stderr.slice(-3000)}`);
  const e = /E2E p50=(-?\d+) p99=(-?\d+) p999=(-?\d+)/.exec(r.stdout);
  return { records: Number(m[1]), bytes: Number(m[2]), ms: Number(m[3]), ...(e ? { e2e: { p50: Number(e[1]), p99: Number(e[2]), p999: Number(e[3]) } } : {}) };
}

/** Records how many Redis AOF rewrites overlapped the run (metric aofRewrites), with a note when any did. */
function noteAofRewrites(row: Row, before: AofRewrites | null, after: AofRewrites | null): void {
  const n = aofRewritesBetween(before, after);
  if (n === null) return;
  row.metrics.aofRewrites = n;
  if (n > 0) row.notes!.push(`run ${row.run}: ${n} AOF rewrite(s) of this system's Redis (a forked child writing the whole dataset; its CPU is counted in Redis's) overlapped the run`);
}

async function runConsume(sys: System, w: WorkloadId, topic: string, spec: ProduceSpec, records: number, ctx: Ctx): Promise<Row> {
  const row: Row = { workload: w, system: sys.name, run: ctx.run, metrics: {}, notes: [] };
  const aof0 = await sys.aofRewrites().catch(() => null);
  try {
    if (sys.name === 'raw') {
      const r = await rawConsume({ port: sys.redisPort, streams: Array.from({ length: spec.partitions }, (_, p) => streamKey(topic, p)), recordSize: spec.recordSize });
      Object.assign(row.metrics, { records: r.records, recordsPerSec: r.recordsPerSec, mbPerSec: r.mbPerSec });
      row.notes!.push('XRANGE COUNT 8, one request in flight');
      noteAofRewrites(row, aof0, await sys.aofRewrites().catch(() => null));
      return row;
    }
    // CPU across the whole consumer run (JVM start-up and metadata included), like the produce rows.
    const cpu0 = cpuMark(sys.pids() as Record<string, number>);
    const { records: n, bytes, ms } = await assignConsumerPerf(sys.bootstrap, topic, records);
    const cpu = cpuMetrics(cpuDelta(cpu0, cpuMark(sys.pids() as Record<string, number>)), Math.max(1, n));
    if (n < records) row.notes!.push(`read ${n} of ${records} records`);
    Object.assign(row.metrics, { records: n, recordsPerSec: n / (ms / 1000), mbPerSec: bytes / 1048576 / (ms / 1000) }, cpu);
    noteAofRewrites(row, aof0, await sys.aofRewrites().catch(() => null));
    if (sys.groups) {
      try {
        const cp = await consumerPerf({ bootstrap: sys.bootstrap, topic, numRecords: records, group: `bench-${randomBytes(3).toString('hex')}`, timeoutMs: 300_000 });
        // Fetch time only: rebalance time (group join, initial rebalance delay) is reported apart.
        row.metrics.consumerPerfRecordsPerSec = cp.fetchMs > 0 ? cp.records / (cp.fetchMs / 1000) : null;
        row.metrics.consumerPerfMbPerSec = cp.fetchMs > 0 ? cp.mb / (cp.fetchMs / 1000) : null;
        row.metrics.consumerPerfRebalanceMs = cp.rebalanceMs;
      } catch (e) {
        row.notes!.push(`ConsumerPerformance failed: ${errText(e).slice(0, 200)}`);
      }
    } else {
      row.notes!.push('ConsumerPerformance skipped: no consumer-group APIs');
    }
  } catch (e) {
    row.error = errText(e);
  }
  return row;
}

// ------------------------------------------------------------- tail (n) ---

/**
 * Produce and consume at once: AssignConsumerPerf starts first and waits at
 * the (empty) tail; ProducerPerformance then writes `tail` 1 KiB records at
 * `tailRate` records/s, so the consumer reads each batch just after it is
 * acknowledged (Runnel: from the tail cache; Kafka: from the page cache). The
 * server CPU is over the whole window (each record produced once and consumed
 * once) per record; recordsPerSec is the consumer's rate, p50/p99/p99.9 the
 * producer's acknowledgement latency at that rate.
 */
export async function runTail(sys: System, ctx: Ctx): Promise<Row> {
  const w: WorkloadId = 'n-tail';
  const row: Row = { workload: w, system: sys.name, run: ctx.run, metrics: {}, notes: [] };
  const topic = topicName(w, ctx.run);
  const partitions = 4;
  const total = ctx.counts.tail;
  try {
    await sys.createTopic(topic, partitions);
    const consumer = assignConsumerPerf(sys.bootstrap, topic, total).then((c) => ({ ...c, at: Date.now() }));
    await new Promise((r) => setTimeout(r, 2500)); // the consumer JVM is up and polling the empty partitions
    // CPU from here: producing and consuming the records (the consumer's start-up and idle polls before are left out).
    const aof0 = await sys.aofRewrites().catch(() => null);
    const cpu0 = cpuMark(sys.pids() as Record<string, number>);
    const produced = producerPerfSteady({
      bootstrap: sys.bootstrap, topic, numRecords: total, warmup: warmupOf(total), recordSize: 1024, throughput: ctx.counts.tailRate,
      props: { acks: 1, 'linger.ms': 1, 'batch.size': 1048576 },
    }).then((p) => ({ ...p, at: Date.now() }));
    const [c, p] = await Promise.all([consumer, produced]);
    Object.assign(row.metrics, cpuMetrics(cpuDelta(cpu0, cpuMark(sys.pids() as Record<string, number>)), Math.max(1, c.records)));
    if (c.records < total) row.notes!.push(`read ${c.records} of ${total} records`);
    Object.assign(row.metrics, {
      // The rate both sides held: the producer's; the consumer kept up when it finished right after the producer.
      records: c.records, recordsPerSec: p.overall.recordsPerSec, mbPerSec: p.overall.mbPerSec, rate: ctx.counts.tailRate,
      consumerDoneAfterProducerMs: c.at - p.at, p50: p.steady.p50, p99: p.steady.p99, p999: p.steady.p999,
    });
    noteAofRewrites(row, aof0, await sys.aofRewrites().catch(() => null));
  } catch (e) {
    row.error = errText(e);
  } finally {
    await sys.deleteTopic(topic, partitions).catch(() => undefined);
  }
  return row;
}

// ------------------------------------------------------------------ latency ---

export async function runAckLatency(sys: System, ctx: Ctx): Promise<Row> {
  const w: WorkloadId = 'f-ack-latency';
  const row: Row = { workload: w, system: sys.name, run: ctx.run, metrics: {}, notes: [] };
  const topic = topicName(w, ctx.run);
  try {
    await sys.createTopic(topic, 1);
    if (sys.name === 'raw') {
      const r = await rawAckLatencyAtRate({ port: sys.redisPort, stream: streamKey(topic, 0), rate: ctx.counts.rate, count: ctx.counts.rateRecords, batch: buildBatch(valueRecords(1, 1024)) });
      Object.assign(row.metrics, { avgLatencyMs: r.avg, p50: r.p50, p99: r.p99, p999: r.p999, records: r.count });
      row.notes!.push('one 1-record batch per XADD, open loop at the fixed rate');
    } else {
      // Warm-up at the rate (3 s; 1 s in quick mode), left out of the percentiles.
      const warmup = ctx.counts.rate * ctx.counts.rateWarmupSec;
      const r = await producerPerfSteady({
        bootstrap: sys.bootstrap,
        topic,
        numRecords: ctx.counts.rateRecords + warmup,
        warmup,
        recordSize: 1024,
        throughput: ctx.counts.rate,
        props: { acks: 1, 'linger.ms': 0 },
      });
      Object.assign(row.metrics, perfMetrics(r.steady), { maxLatencyMs: r.steady.maxLatencyMs, overallP99: r.overall.p99, overallMaxLatencyMs: r.overall.maxLatencyMs });
      row.metrics.rate = ctx.counts.rate;
    }
  } catch (e) {
    row.error = errText(e);
  } finally {
    await sys.deleteTopic(topic, 1).catch(() => undefined);
  }
  return row;
}

/** Parses EndToEndLatency's `Avg latency: X ms` and `Percentiles: 50th = a, 99th = b, 99.9th = c`. */
export function parseEndToEnd(stdout: string): Metrics | null {
  const avg = /Avg latency: ([\d.]+) ms/.exec(stdout);
  const p = /Percentiles: 50th = ([\d.]+), 99th = ([\d.]+), 99\.9th = ([\d.]+)/.exec(stdout);
  if (!avg || !p) return null;
  return { avgLatencyMs: Number(avg[1]), p50: Number(p[1]), p99: Number(p[2]), p999: Number(p[3]) };
}

export async function runEndToEnd(sys: System, ctx: Ctx): Promise<Row> {
  const w: WorkloadId = 'f-e2e-latency';
  const row: Row = { workload: w, system: sys.name, run: ctx.run, metrics: {}, notes: [] };
  const topic = topicName(w, ctx.run);
  try {
    await sys.createTopic(topic, 1);
    if (sys.name === 'raw') {
      const r = await rawEndToEnd({ port: sys.redisPort, stream: streamKey(topic, 0), count: ctx.counts.e2e, batch: buildBatch(valueRecords(1, 1024)) });
      Object.assign(row.metrics, { avgLatencyMs: r.avg, p50: r.p50, p99: r.p99, p999: r.p999, records: r.count });
      row.notes!.push('XADD then a blocking XREAD on a second connection returns it; one in flight');
    } else {
      const r = await runJava(
        'org.apache.kafka.tools.EndToEndLatency',
        ['--bootstrap-server', sys.bootstrap, '--topic', topic, '--num-records', String(ctx.counts.e2e), '--producer-acks', '1', '--record-size', '1024'],
        { jvmArgs: ['-Xmx1g'], timeoutMs: 300_000 },
      );
      const m = parseEndToEnd(r.stdout);
      if (!m) throw new Error(`EndToEndLatency printed no summary (code ${r.code}):\n${r.stdout.slice(-1000)}\n${r.stderr.slice(-3000)}`);
      Object.assign(row.metrics, m, { records: ctx.counts.e2e });
      if (r.code !== 0) {
        const why = /UnsupportedVersionException: (.*)/.exec(r.stderr)?.[1] ?? `exit code ${r.code}`;
        row.notes!.push(`EndToEndLatency exited ${r.code} after printing its summary (${why})`);
      }
    }
  } catch (e) {
    row.error = errText(e);
  } finally {
    await sys.deleteTopic(topic, 1).catch(() => undefined);
  }
  return row;
}

// ------------------------------------------------------------------- warm-up ---

/** Unmeasured produce + consume so both JITs are warm before the first measured run. */
export async function warmUp(sys: System, records: number): Promise<void> {
  if (records <= 0) return;
  const topic = topicName('warmup', 0);
  try {
    await sys.createTopic(topic, 1);
    if (sys.name === 'raw') {
      await rawProduce({ port: sys.redisPort, streams: [streamKey(topic, 0)], connections: 1, depth: DEPTH, batches: [{ bytes: buildBatch(valueRecords(100, 1024)), records: 100 }], totalRecords: records, recordSize: 1024 });
    } else {
      await producerPerf({ bootstrap: sys.bootstrap, topic, numRecords: records, recordSize: 1024, props: BIG_BATCH });
      await producerPerf({ bootstrap: sys.bootstrap, topic, numRecords: Math.ceil(records / 4), recordSize: 1024 });
      await runJava('AssignConsumerPerf', [sys.bootstrap, topic, String(records)], { classpath: [BENCH_JAVA], jvmArgs: ['-Xmx1g'], timeoutMs: 120_000 });
    }
  } finally {
    await sys.deleteTopic(topic, 1).catch(() => undefined);
  }
}

export function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
