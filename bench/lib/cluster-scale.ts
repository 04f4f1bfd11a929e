// Cluster scale: Runnel on a Redis Cluster of 1, 2 and 3 primaries, 8
// producer processes on one 16-partition topic, 1 KiB records, acks=1 and
// acks=all (issue 9, item 7). Per run: records/s, CPU per record of the broker
// and of the Redis primaries (summed), and per primary the partitions and
// bytes it holds (`runnel placement --json`), its XADD/EXEC calls (`INFO
// commandstats`, reset before the run), its CPU and the connections that
// carried appends (`CLIENT LIST`). Optionally acks=all with one replica per
// primary and min.insync.replicas=2 (WAIT 1 on the owning primary).
//
// The clusters come from ./redis-cluster.ts (any number of primaries, which
// `redis-cli --cluster create` refuses below 3).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import kafkajs from 'kafkajs';
import { RUNNEL_CLI, startRunnel, type RunnelBroker } from '../../test/helpers/runnel.js';
import { runCommand } from '../../test/helpers/procs.js';
import { producerPerf } from '../../test/helpers/java.js';
import { cpuDelta, cpuMark } from './cpu.js';
import { summarise, type ProfileSummary } from './cpuprofile.js';
import { startBenchCluster, type BenchCluster, type BenchClusterNode } from './redis-cluster.js';
import { median } from './stats.js';
import { startRunnelWithNodeArgs } from './systems.js';
import { BIG_BATCH, errText, parallelProducers, type Metrics } from './workloads.js';

export type Acks = '1' | 'all';

export interface ClusterConfig {
  /** e.g. "3p acks=all" or "3p+3r acks=all minISR=2" */
  id: string;
  primaries: number;
  replicasPerPrimary: number;
  acks: Acks;
  minIsr: number;
}

export interface ClusterCounts {
  producers: number;
  perProducer: number;
  partitions: number;
  recordSize: number;
  /** Unmeasured records per broker (one producer, 16 partitions; a quarter again with acks=all). */
  warmup: number;
}

export const CLUSTER_FULL: ClusterCounts = { producers: 8, perProducer: 40_000, partitions: 16, recordSize: 1024, warmup: 100_000 };
export const CLUSTER_QUICK: ClusterCounts = { producers: 4, perProducer: 2_500, partitions: 16, recordSize: 1024, warmup: 0 };

/** Per primary, one run. */
export interface ShardStats {
  node: string;
  partitions: number;
  bytes: number | null;
  usedMemoryDelta: number | null;
  xadd: number;
  exec: number;
  evalsha: number;
  wait: number;
  /** INFO calls (the broker asks `INFO replication` before acks=all appends with min.insync.replicas > 1). */
  info: number;
  /** Every other command (leases, metadata, slot-map refreshes...). */
  otherCalls: number;
  /** usec of all commands as Redis counts them (commandstats). */
  commandUsec: number;
  cpuUsPerRecord: number | null;
  cores: number | null;
  /** Connections whose last command was an append step (EXEC, XADD, MULTI) or WAIT(AOF): the append connections (the fence EVALSHA runs inside MULTI; lease scripts run on the ioredis connection). */
  appendConnections: number;
  clients: number;
}

export interface ClusterRow {
  config: string;
  primaries: number;
  replicasPerPrimary: number;
  acks: Acks;
  minIsr: number;
  run: number;
  metrics: Metrics;
  shards: ShardStats[];
  notes: string[];
  error?: string;
}

export interface ClusterScaleResult {
  counts: ClusterCounts;
  runs: number;
  configs: ClusterConfig[];
  rows: ClusterRow[];
  /** Per config: median of every metric over its runs without an error. */
  medians: Record<string, Metrics>;
  /** Per config: per primary (same nodes in every run), median of each field. */
  shardMedians: Record<string, ShardStats[]>;
  settings: Record<string, string>;
  durationSec: number;
  /** `node --cpu-prof` of the broker during one extra acks=1 run on the largest cluster. */
  profile?: ClusterProfile;
}

export interface ClusterProfile {
  primaries: number;
  file: string;
  recordsPerSec: number | null;
  summary: ProfileSummary | null;
  error?: string;
}

export interface ClusterScaleOptions {
  quick: boolean;
  runs: number;
  primaries: number[];
  acks: Acks[];
  /** Also acks=all with 1 replica per primary and min.insync.replicas=2. */
  replicas: boolean;
  /** Profile the broker (one extra run on the largest cluster, acks=1) into this directory. */
  profileDir?: string;
  log: (msg: string) => void;
}

export function clusterConfigs(o: Pick<ClusterScaleOptions, 'primaries' | 'acks' | 'replicas'>): ClusterConfig[] {
  const out: ClusterConfig[] = [];
  for (const p of o.primaries) for (const a of o.acks) out.push({ id: `${p}p acks=${a}`, primaries: p, replicasPerPrimary: 0, acks: a, minIsr: 1 });
  if (o.replicas) for (const p of o.primaries) out.push({ id: `${p}p+${p}r acks=all minISR=2`, primaries: p, replicasPerPrimary: 1, acks: 'all', minIsr: 2 });
  return out;
}

interface Deployment {
  primaries: number;
  replicasPerPrimary: number;
  cluster: BenchCluster;
  broker: RunnelBroker;
  admin: kafkajs.Admin;
}

const text = (r: unknown): string => (Buffer.isBuffer(r) ? r.toString('utf8') : String(r));

async function deploy(primaries: number, replicasPerPrimary: number, nodeArgs: string[] = []): Promise<Deployment> {
  const cluster = await startBenchCluster({ primaries, replicasPerPrimary });
  try {
    const env = { RUNNEL_LOG_LEVEL: 'warn' };
    const broker = nodeArgs.length ? await startRunnelWithNodeArgs(cluster.seeds, nodeArgs, env) : await startRunnel({ redisUrl: cluster.seeds, env });
    const admin = new kafkajs.Kafka({ clientId: 'runnel-bench-cluster', brokers: [broker.bootstrap], logLevel: kafkajs.logLevel.NOTHING }).admin();
    await admin.connect();
    return { primaries, replicasPerPrimary, cluster, broker, admin };
  } catch (e) {
    await cluster.stop();
    throw e;
  }
}

async function undeploy(d: Deployment): Promise<void> {
  await d.admin.disconnect().catch(() => undefined);
  await d.broker.stop().catch(() => undefined);
  await d.cluster.stop();
}

async function createTopic(d: Deployment, topic: string, partitions: number, minIsr: number): Promise<void> {
  const configEntries = minIsr > 1 ? [{ name: 'min.insync.replicas', value: String(minIsr) }] : [];
  const ok = await d.admin.createTopics({ topics: [{ topic, numPartitions: partitions, replicationFactor: 1, configEntries }], waitForLeaders: true, timeout: 30_000 });
  if (!ok) throw new Error(`createTopics ${topic}: topic already existed`);
}

function producerProps(acks: Acks): Record<string, string | number> {
  // Same producer as workload b; acks=all turns on idempotence (the Java default).
  return { ...BIG_BATCH, acks: acks === 'all' ? 'all' : 1 };
}

/** `INFO commandstats` -> { xadd: {calls, usec}, ... } */
function commandStats(info: string): Map<string, { calls: number; usec: number }> {
  const out = new Map<string, { calls: number; usec: number }>();
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) out.set(m[1]!.toLowerCase(), { calls: Number(m[2]), usec: Number(m[3]) });
  return out;
}

const usedMemory = async (c: BenchCluster, n: BenchClusterNode): Promise<number | null> => {
  const m = /used_memory:(\d+)/.exec(text(await c.command(n, ['INFO', 'memory'])));
  return m ? Number(m[1]) : null;
};

interface Placement {
  node: string;
  partitions: string[];
  bytes: number;
}

async function placement(seeds: string): Promise<Placement[]> {
  const r = await runCommand(process.execPath, [RUNNEL_CLI, 'placement', '--redis', seeds, '--json'], { timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`runnel placement failed (code ${r.code}): ${r.stderr.slice(-500)}`);
  return (JSON.parse(r.stdout) as { primaries: Placement[] }).primaries;
}

async function warmUp(d: Deployment, counts: ClusterCounts, log: (m: string) => void): Promise<void> {
  if (counts.warmup <= 0) return;
  const topic = `bench-cluster-warmup-${randomBytes(3).toString('hex')}`;
  try {
    await createTopic(d, topic, counts.partitions, 1);
    await producerPerf({ bootstrap: d.broker.bootstrap, topic, numRecords: counts.warmup, recordSize: counts.recordSize, props: producerProps('1') });
    await producerPerf({ bootstrap: d.broker.bootstrap, topic, numRecords: Math.ceil(counts.warmup / 4), recordSize: counts.recordSize, props: producerProps('all') });
  } catch (e) {
    log(`warm-up of ${d.primaries}p+${d.primaries * d.replicasPerPrimary}r failed: ${errText(e)}`);
  } finally {
    await d.admin.deleteTopics({ topics: [topic], timeout: 30_000 }).catch(() => undefined);
  }
}

async function runOne(d: Deployment, cfg: ClusterConfig, run: number, counts: ClusterCounts): Promise<ClusterRow> {
  const row: ClusterRow = { config: cfg.id, primaries: cfg.primaries, replicasPerPrimary: cfg.replicasPerPrimary, acks: cfg.acks, minIsr: cfg.minIsr, run, metrics: {}, shards: [], notes: [] };
  const topic = `bench-cluster-${cfg.primaries}p${cfg.replicasPerPrimary ? `${cfg.replicasPerPrimary}r` : ''}-acks${cfg.acks}-r${run}-${randomBytes(3).toString('hex')}`;
  const { cluster } = d;
  const prim = cluster.primaries;
  try {
    await createTopic(d, topic, counts.partitions, cfg.minIsr);
    for (const n of [...prim, ...cluster.replicas]) await cluster.command(n, ['CONFIG', 'RESETSTAT']);
    const mem0 = await Promise.all(prim.map((n) => usedMemory(cluster, n)));
    const pids: Record<string, number> = { broker: d.broker.proc().pid };
    prim.forEach((n, i) => (pids[`p${i}`] = n.proc.pid));
    cluster.replicas.forEach((n, i) => (pids[`r${i}`] = n.proc.pid));
    const c0 = cpuMark(pids);
    const m = await parallelProducers(d.broker.bootstrap, topic, {
      producers: counts.producers,
      recordsPerProducer: counts.perProducer,
      recordSize: counts.recordSize,
      props: producerProps(cfg.acks),
    });
    const cpu = cpuDelta(c0, cpuMark(pids));
    Object.assign(row.metrics, m);
    const records = m.records ?? counts.producers * counts.perProducer;
    const us = (s: number | null | undefined): number | null => (s === null || s === undefined ? null : (s * 1e6) / records);
    const sum = (keys: string[]): number | null => (keys.some((k) => cpu.procs[k] == null) ? null : keys.reduce((a, k) => a + cpu.procs[k]!, 0));
    const pKeys = prim.map((_, i) => `p${i}`);
    const rKeys = cluster.replicas.map((_, i) => `r${i}`);
    const redisS = sum(pKeys);
    const replicaS = rKeys.length ? sum(rKeys) : null;
    Object.assign(row.metrics, {
      wallS: cpu.wallS,
      brokerCpuUsPerRecord: us(cpu.procs.broker),
      redisCpuUsPerRecord: us(redisS),
      replicaCpuUsPerRecord: us(replicaS),
      clientCpuUsPerRecord: us(cpu.client),
      machineCpuUsPerRecord: us(cpu.machine),
      brokerCores: cpu.procs.broker == null ? null : cpu.procs.broker / cpu.wallS,
      redisCores: redisS === null ? null : redisS / cpu.wallS,
      replicaCores: replicaS === null ? null : replicaS / cpu.wallS,
      clientCores: cpu.client === null ? null : cpu.client / cpu.wallS,
      machineCores: cpu.machine === null ? null : cpu.machine / cpu.wallS,
    });

    // Redis's own counters first (the placement report below sends commands of its own).
    const seen: Array<{ stats: Map<string, { calls: number; usec: number }>; clientList: string[]; mem1: number | null }> = [];
    for (const n of prim) {
      const stats = commandStats(text(await cluster.command(n, ['INFO', 'commandstats'])));
      const clientList = text(await cluster.command(n, ['CLIENT', 'LIST'])).trim().split('\n');
      seen.push({ stats, clientList, mem1: await usedMemory(cluster, n) });
    }
    const place = await placement(cluster.seeds);
    const foreign = place.flatMap((p) => p.partitions).filter((x) => !x.startsWith(`${topic}/`));
    if (foreign.length) row.notes.push(`placement also listed ${foreign.length} partitions of other topics (their bytes are included)`);
    for (const [i, n] of prim.entries()) {
      const { stats, clientList, mem1 } = seen[i]!;
      const get = (k: string): number => stats.get(k)?.calls ?? 0;
      let all = 0;
      let usec = 0;
      for (const v of stats.values()) (all += v.calls), (usec += v.usec);
      const node = `127.0.0.1:${n.port}`;
      const pl = place.find((p) => p.node === node || p.node === `localhost:${n.port}`);
      const mine = get('info') ? 1 : 0; // this bench's INFO memory right after CONFIG RESETSTAT
      row.shards.push({
        node,
        partitions: pl ? pl.partitions.filter((x) => x.startsWith(`${topic}/`)).length : 0,
        bytes: pl ? pl.bytes : null,
        usedMemoryDelta: mem0[i] != null && mem1 != null ? mem1 - mem0[i]! : null,
        xadd: get('xadd'),
        exec: get('exec'),
        evalsha: get('evalsha') + get('eval') + get('fcall'),
        wait: get('wait') + get('waitaof'),
        info: get('info') - mine,
        otherCalls:
          all - get('xadd') - get('exec') - get('multi') - get('evalsha') - get('eval') - get('fcall') - get('wait') - get('waitaof') - get('info') - get('config|resetstat'),
        commandUsec: usec,
        cpuUsPerRecord: us(cpu.procs[`p${i}`]),
        cores: cpu.procs[`p${i}`] == null ? null : cpu.procs[`p${i}`]! / cpu.wallS,
        appendConnections: clientList.filter((l) => / cmd=(exec|xadd|multi|wait|waitaof) /.test(` ${l} `.replace(/\s+/g, ' '))).length,
        clients: clientList.length - 1, // minus this CLIENT LIST's own connection
      });
    }
    const xadds = row.shards.reduce((a, s) => a + s.xadd, 0);
    row.metrics.batches = xadds;
    row.metrics.recordsPerBatch = xadds ? records / xadds : null;
    // Per stored batch, the broker's CPU does not depend on the record count much (zero-copy append): the fair comparison across runs whose batch sizes differ.
    row.metrics.brokerCpuUsPerBatch = xadds && cpu.procs.broker != null ? (cpu.procs.broker * 1e6) / xadds : null;
    row.metrics.redisCpuUsPerBatch = xadds && redisS !== null ? (redisS * 1e6) / xadds : null;
    row.metrics.redisCommandUsecPerBatch = xadds ? row.shards.reduce((a, s) => a + s.commandUsec, 0) / xadds : null;
    const spread = (xs: Array<number | null>): number | null => {
      const v = xs.filter((x): x is number => x !== null);
      return v.length === xs.length && Math.min(...v) > 0 ? Math.max(...v) / Math.min(...v) : null;
    };
    row.metrics.xaddMaxOverMin = spread(row.shards.map((s) => s.xadd));
    row.metrics.bytesMaxOverMin = spread(row.shards.map((s) => s.bytes));
    row.metrics.partitionsMaxOverMin = spread(row.shards.map((s) => s.partitions));
    row.metrics.totalBytes = row.shards.every((s) => s.bytes !== null) ? row.shards.reduce((a, s) => a + s.bytes!, 0) : null;
    row.metrics.storedBytesPerRecord = row.metrics.totalBytes !== null ? row.metrics.totalBytes / records : null;
    row.metrics.appendConnectionsMax = Math.max(...row.shards.map((s) => s.appendConnections));
  } catch (e) {
    row.error = errText(e);
  } finally {
    await d.admin.deleteTopics({ topics: [topic], timeout: 30_000 }).catch(() => undefined);
  }
  return row;
}

function shardMedians(rows: ClusterRow[]): ShardStats[] {
  const n = Math.max(0, ...rows.map((r) => r.shards.length));
  const out: ShardStats[] = [];
  for (let i = 0; i < n; i++) {
    const xs = rows.map((r) => r.shards[i]).filter((s): s is ShardStats => !!s);
    const med = (k: keyof ShardStats): number | null => median(xs.map((s) => s[k]).filter((v): v is number => typeof v === 'number'));
    out.push({
      node: xs[0]!.node,
      partitions: med('partitions') ?? 0,
      bytes: med('bytes'),
      usedMemoryDelta: med('usedMemoryDelta'),
      xadd: med('xadd') ?? 0,
      exec: med('exec') ?? 0,
      evalsha: med('evalsha') ?? 0,
      wait: med('wait') ?? 0,
      info: med('info') ?? 0,
      otherCalls: med('otherCalls') ?? 0,
      commandUsec: med('commandUsec') ?? 0,
      cpuUsPerRecord: med('cpuUsPerRecord'),
      cores: med('cores'),
      appendConnections: med('appendConnections') ?? 0,
      clients: med('clients') ?? 0,
    });
  }
  return out;
}

export function clusterMedians(rows: ClusterRow[], configs: ClusterConfig[]): Pick<ClusterScaleResult, 'medians' | 'shardMedians'> {
  const medians: Record<string, Metrics> = {};
  const shards: Record<string, ShardStats[]> = {};
  for (const c of configs) {
    const rs = rows.filter((r) => r.config === c.id && !r.error);
    if (!rs.length) continue;
    const m: Metrics = {};
    for (const k of new Set(rs.flatMap((r) => Object.keys(r.metrics)))) m[k] = median(rs.map((r) => r.metrics[k]).filter((x): x is number => typeof x === 'number'));
    medians[c.id] = m;
    shards[c.id] = shardMedians(rs);
  }
  return { medians, shardMedians: shards };
}

/**
 * Runs the cluster-scale family. Deployments (cluster + broker) of one family
 * (no replicas / one replica per primary) are up together; every round runs
 * each config once, the order of the primary counts alternating between rounds.
 */
export async function runClusterScale(o: ClusterScaleOptions): Promise<ClusterScaleResult> {
  const t0 = Date.now();
  const counts = o.quick ? CLUSTER_QUICK : CLUSTER_FULL;
  const configs = clusterConfigs(o);
  const rows: ClusterRow[] = [];
  const families = [...new Set(configs.map((c) => c.replicasPerPrimary))];
  const settings: Record<string, string> = {
    redis: 'redis-server, cluster-enabled, appendonly yes, appendfsync everysec, no RDB snapshots, cluster-node-timeout 5000 ms',
    broker: 'one `runnel broker` process (RUNNEL_LOG_LEVEL=warn), defaults (min.insync.replicas=1)',
    producers: `${counts.producers} ProducerPerformance JVMs, ${counts.perProducer} records of ${counts.recordSize} B each, batch.size=1048576, linger.ms=0; acks=all also enables idempotence (Java default)`,
  };
  for (const reps of families) {
    const famConfigs = configs.filter((c) => c.replicasPerPrimary === reps);
    const sizes = [...new Set(famConfigs.map((c) => c.primaries))];
    const deps = new Map<number, Deployment>();
    try {
      for (const p of sizes) {
        o.log(`cluster: starting ${p} primar${p === 1 ? 'y' : 'ies'}${reps ? ` + ${p * reps} replica(s)` : ''} and a broker`);
        const d = await deploy(p, reps);
        deps.set(p, d);
        o.log(`cluster: ${d.cluster.seeds} -> broker ${d.broker.bootstrap}`);
        if (counts.warmup) {
          o.log(`cluster: warm-up ${p}p (${counts.warmup} records, not measured)`);
          await warmUp(d, counts, o.log);
        }
      }
      for (let run = 1; run <= o.runs; run++) {
        const order = run % 2 ? sizes : [...sizes].reverse();
        for (const p of order) {
          for (const cfg of famConfigs.filter((c) => c.primaries === p)) {
            const r = await runOne(deps.get(p)!, cfg, run, counts);
            rows.push(r);
            o.log(`cluster run ${run} ${cfg.id.padEnd(24)} ${summary(r)}`);
          }
        }
      }
    } finally {
      for (const d of deps.values()) await undeploy(d).catch((e) => o.log(`cluster stop: ${errText(e)}`));
    }
  }
  let profile: ClusterProfile | undefined;
  if (o.profileDir && o.primaries.length) {
    const p = Math.max(...o.primaries);
    o.log(`cluster: profiling the broker on ${p} primaries, acks=1 (node --cpu-prof)`);
    profile = await profileClusterBroker(p, counts, o.profileDir).catch((e): ClusterProfile => ({ primaries: p, file: '', recordsPerSec: null, summary: null, error: errText(e) }));
    o.log(`cluster profile: ${profile.summary ? `${profile.file}, GC ${profile.summary.gcPct.toFixed(1)}%` : profile.error}`);
  }
  return { counts, runs: o.runs, configs, rows, ...clusterMedians(rows, configs), settings, durationSec: (Date.now() - t0) / 1000, profile };
}

/**
 * One extra acks=1 run on a fresh cluster of `primaries` with the broker under
 * `node --cpu-prof` (stopped with SIGTERM so the profile is written).
 */
export async function profileClusterBroker(primaries: number, counts: ClusterCounts, dir: string): Promise<ClusterProfile> {
  fs.mkdirSync(dir, { recursive: true });
  const name = `runnel-cluster-${primaries}p.cpuprofile`;
  const file = path.join(dir, name);
  fs.rmSync(file, { force: true });
  const d = await deploy(primaries, 0, ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}`]);
  let rate: number | null = null;
  let error: string | undefined;
  try {
    const topic = `bench-cluster-profile-${randomBytes(3).toString('hex')}`;
    await createTopic(d, topic, counts.partitions, 1);
    const m = await parallelProducers(d.broker.bootstrap, topic, { producers: counts.producers, recordsPerProducer: counts.perProducer, recordSize: counts.recordSize, props: producerProps('1') });
    rate = m.recordsPerSec ?? null;
  } catch (e) {
    error = errText(e);
  } finally {
    await undeploy(d);
  }
  if (!fs.existsSync(file)) return { primaries, file, recordsPerSec: rate, summary: null, error: error ?? 'no .cpuprofile written (did the broker exit gracefully?)' };
  return { primaries, file, recordsPerSec: rate, summary: summarise(file, 15), error };
}

function summary(r: ClusterRow): string {
  if (r.error) return `ERROR ${r.error.split('\n')[0]!.slice(0, 200)}`;
  const m = r.metrics;
  const f = (x: number | null | undefined, d = 0): string => (x == null ? '—' : x.toFixed(d));
  const per = r.shards.map((s) => `${s.partitions}p/${(s.bytes ?? 0) / 1048576 > 0 ? ((s.bytes ?? 0) / 1048576).toFixed(0) : '0'}MiB/${s.xadd}xadd/${s.appendConnections}conn`).join(' ');
  return `${f(m.recordsPerSec)} records/s, broker ${f(m.brokerCpuUsPerRecord, 1)} us/rec, redis ${f(m.redisCpuUsPerRecord, 1)} us/rec; per primary ${per}`;
}
