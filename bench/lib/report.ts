// Turns a finished run into JSON, Markdown, SVG charts and the README section.
import fs from 'node:fs';
import path from 'node:path';
import { compactionMarkdown } from './compaction.js';
import { transactionsMarkdown } from './transactions.js';
import { secureMarkdown } from './secure.js';
import { tieredMarkdown } from './tiered.js';
import { cliMarkdown } from './cli.js';
import { groupsMarkdown } from './groups.js';
import { CLUSTER_END, CLUSTER_START, clusterMarkdown } from './cluster-report.js';
import type { ClusterScaleResult } from './cluster-scale.js';
import { summaryMarkdown } from './cpuprofile.js';
import type { MachineInfo, SoftwareInfo } from './machine.js';
import type { ProfileResult } from './profile.js';
import { fmt, median } from './stats.js';
import { svgDocument, type BarChart } from './svg.js';
import { SYSTEM_LABEL, type SystemName } from './systems.js';
import { WORKLOADS, type Counts, type Metrics, type Row, type WorkloadId } from './workloads.js';

export interface ArchiverResult {
  available: boolean;
  note: string;
  results?: Array<Record<string, unknown>>;
  error?: string;
}

export interface BenchResult {
  timestamp: string;
  mode: 'full' | 'quick';
  runs: number;
  durationSec: number;
  counts: Counts;
  machine: MachineInfo;
  software: SoftwareInfo;
  settings: Record<string, Record<string, string>>;
  systems: SystemName[];
  rows: Row[];
  medians: Partial<Record<WorkloadId, Partial<Record<SystemName, Metrics>>>>;
  profiles: ProfileResult[];
  archiver: ArchiverResult;
  failures: string[];
  /** The cluster-scale family (`--only cluster`; part of full and quick runs), when it ran. */
  cluster?: ClusterScaleResult;
  /** The cluster family ran with its default configurations in full mode: it may replace the README's cluster section. */
  clusterDefault?: boolean;
}

export const SYSTEM_ORDER: SystemName[] = ['kafka', 'runnel', 'raw'];
const COLORS: Record<SystemName, string> = { kafka: '#4e79a7', runnel: '#e15759', raw: '#59a14f' };

/** Median of every metric over the runs without an error. */
export function computeMedians(rows: Row[]): BenchResult['medians'] {
  const out: BenchResult['medians'] = {};
  for (const w of WORKLOADS) {
    for (const s of SYSTEM_ORDER) {
      const rs = rows.filter((r) => r.workload === w.id && r.system === s && !r.error);
      if (rs.length === 0) continue;
      const keys = new Set(rs.flatMap((r) => Object.keys(r.metrics)));
      const m: Metrics = {};
      for (const k of keys) m[k] = median(rs.map((r) => r.metrics[k]).filter((x): x is number => typeof x === 'number'));
      (out[w.id] ??= {})[s] = m;
    }
  }
  return out;
}

const get = (r: BenchResult, w: WorkloadId, s: SystemName, k: string): number | null => r.medians[w]?.[s]?.[k] ?? null;

/** min–max over the runs of a system's server CPU per record (broker, plus Redis for Runnel): how far one run may be off the median. */
function serverSpread(r: BenchResult, w: WorkloadId, s: SystemName): string {
  const v = r.rows
    .filter((x) => x.workload === w && x.system === s && !x.error)
    .map((x) => (x.metrics.brokerCpuUsPerRecord ?? null) === null ? null : x.metrics.brokerCpuUsPerRecord! + (s === 'runnel' ? (x.metrics.redisCpuUsPerRecord ?? 0) : 0))
    .filter((x): x is number => x !== null);
  return v.length ? `${fmt(Math.min(...v), 1)}–${fmt(Math.max(...v), 1)}` : '—';
}
const ratio = (a: number | null, b: number | null): string => (a !== null && b !== null && a > 0 && b > 0 ? `${(a / b).toFixed(2)}×` : '—');

export function markdown(r: BenchResult, chartPrefix: string): string {
  const L: string[] = [];
  const sysCols = SYSTEM_ORDER.filter((s) => r.systems.includes(s));
  const head = (first: string[]): string => `| ${[...first, ...sysCols.map((s) => SYSTEM_LABEL[s]), 'Runnel / Kafka', 'Runnel / raw Redis'].join(' | ')} |`;
  const sep = (n: number): string => `|${'---|'.repeat(n - sysCols.length - 2)}${'---:|'.repeat(sysCols.length + 2)}`;
  L.push(`Run ${r.timestamp} (${r.mode}, median of ${r.runs} run${r.runs > 1 ? 's' : ''} per workload, ${Math.round(r.durationSec / 60)} min).`);
  L.push(`Machine: ${r.machine.cores} cores (${r.machine.cpuModel}), ${r.machine.memoryGiB} GiB, ${r.machine.kernel}; load average at start ${r.machine.loadAvgAtStart.join(' / ')}.`);
  L.push(
    `Software: Node ${r.software.node}, redis-server ${r.software.redisServer}, Apache Kafka ${r.software.kafkaJars} (jars), ${r.software.java}, Runnel ${r.software.runnelCommit}.`,
  );
  L.push('');
  L.push('**Throughput** (records/s, MiB/s of record values; higher is better):');
  L.push('');
  L.push(head(['workload']));
  L.push(sep(1 + sysCols.length + 2));
  for (const w of WORKLOADS.filter((x) => x.kind === 'throughput')) {
    const cells = sysCols.map((s) => {
      const rec = get(r, w.id, s, 'recordsPerSec');
      const mb = get(r, w.id, s, 'mbPerSec');
      return rec === null ? 'n/a' : `${fmt(rec, 0)}<br>${fmt(mb, 1)} MiB/s`;
    });
    L.push(
      `| ${w.title} | ${cells.join(' | ')} | ${ratio(get(r, w.id, 'runnel', 'recordsPerSec'), get(r, w.id, 'kafka', 'recordsPerSec'))} | ${ratio(get(r, w.id, 'runnel', 'recordsPerSec'), get(r, w.id, 'raw', 'recordsPerSec'))} |`,
    );
  }
  const cp = sysCols
    .filter((s) => s !== 'raw')
    .map((s) => {
      const a = get(r, 'e-consume-a', s, 'consumerPerfRecordsPerSec');
      const b = get(r, 'e-consume-b', s, 'consumerPerfRecordsPerSec');
      return `${SYSTEM_LABEL[s]} ${a === null && b === null ? 'n/a (no consumer-group APIs)' : `${fmt(a, 0)} (a) / ${fmt(b, 0)} (b) records/s`}`;
    });
  L.push('');
  L.push(
    `Consumer rows use bench/java/AssignConsumerPerf (assign(), no group) on every system. Kafka's ConsumerPerformance (subscribe() with a group; fetch time only, the group join is excluded) for reference: ${cp.join('; ')}.`,
  );
  L.push('');
  L.push('**Producer latency under full load** (ProducerPerformance, ms, same runs as above; the raw driver does not measure it):');
  L.push('');
  L.push(`| workload | ${sysCols.filter((s) => s !== 'raw').map((s) => `${SYSTEM_LABEL[s]} p50 / p99 / p99.9`).join(' | ')} |`);
  L.push(`|---|${sysCols.filter((s) => s !== 'raw').map(() => '---:|').join('')}`);
  for (const w of WORKLOADS.filter((x) => x.kind === 'throughput' && x.id[0] !== 'e')) {
    const cells = sysCols
      .filter((s) => s !== 'raw')
      .map((s) => (get(r, w.id, s, 'p50') === null ? 'n/a' : `${fmt(get(r, w.id, s, 'p50'), 0)} / ${fmt(get(r, w.id, s, 'p99'), 0)} / ${fmt(get(r, w.id, s, 'p999'), 0)}`));
    L.push(`| ${w.id} | ${cells.join(' | ')} |`);
  }
  L.push('');
  L.push('**Latency** (ms; lower is better; ratios are Runnel latency / other latency):');
  L.push('');
  L.push(head(['workload', 'stat']));
  L.push(sep(2 + sysCols.length + 2));
  for (const w of WORKLOADS.filter((x) => x.kind === 'latency')) {
    for (const [k, label] of [
      ['p50', 'p50'],
      ['p99', 'p99'],
      ['p999', 'p99.9'],
      ['avgLatencyMs', 'avg'],
    ] as const) {
      // The Kafka tools print whole milliseconds: 0 means "under 1 ms".
      const cells = sysCols.map((s) => (s !== 'raw' && k !== 'avgLatencyMs' && get(r, w.id, s, k) === 0 ? '< 1' : fmt(get(r, w.id, s, k), 2)));
      L.push(`| ${w.title} | ${label} | ${cells.join(' | ')} | ${ratio(get(r, w.id, 'runnel', k), get(r, w.id, 'kafka', k))} | ${ratio(get(r, w.id, 'runnel', k), get(r, w.id, 'raw', k))} |`);
    }
  }
  const comp = compactionMarkdown(r.medians['i-compaction'], r.counts);
  if (comp) L.push('', comp);
  const txn = transactionsMarkdown(r.medians['j-transactions'], r.counts);
  if (txn) L.push('', txn);
  const sec = secureMarkdown(r.medians, r.counts);
  if (sec) L.push('', sec);
  const tiered = tieredMarkdown(r.medians['l-tiered'], r.counts);
  if (tiered) L.push('', tiered);
  const cli = cliMarkdown(r.medians['m-cli'], r.counts);
  if (cli) L.push('', cli);
  const groups = groupsMarkdown(r.medians['p-groups'], r.counts);
  if (groups) L.push('', groups);
  L.push('');
  L.push('**Storage per record** (g): Redis `INFO memory` used_memory delta / records after each produce workload; Kafka: bytes of its `.log` segments / records. Records per stored batch decide how many records one Fetch of (e) carries: a consumer gets at most `max.partition.fetch.bytes` (1 MiB) per partition, so smaller batches from (a) mean more Fetch round trips in (e).');
  L.push('');
  L.push('| workload | payload B/record | Runnel Redis B/record | raw Redis B/record | Runnel / raw | Runnel / payload | Runnel MEMORY USAGE B/record | Kafka log B/record | records per stored batch: Runnel | Kafka |');
  L.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const w of WORKLOADS.filter((x) => x.kind === 'throughput' && x.id[0] !== 'e')) {
    const payload = get(r, w.id, 'runnel', 'payloadBytesPerRecord') ?? get(r, w.id, 'kafka', 'payloadBytesPerRecord');
    const rn = get(r, w.id, 'runnel', 'redisBytesPerRecord');
    const raw = get(r, w.id, 'raw', 'redisBytesPerRecord');
    L.push(
      `| ${w.id} | ${fmt(payload, 0)} | ${fmt(rn, 0)} | ${fmt(raw, 0)} | ${ratio(rn, raw)} | ${ratio(rn, payload)} | ${fmt(get(r, w.id, 'runnel', 'streamBytesPerRecord'), 0)} | ${fmt(get(r, w.id, 'kafka', 'logBytesPerRecord'), 0)} | ${fmt(get(r, w.id, 'runnel', 'recordsPerBatch'), 1)} | ${fmt(get(r, w.id, 'kafka', 'recordsPerBatch'), 1)} |`,
    );
  }
  L.push('');
  L.push(
    '**CPU per record** (g+; µs of CPU per record during the produce or consume run, from /proc: the server processes, and the load generator = the bench process plus the producer or consumer JVMs it ran (their cutime/cstime), JVM start-up included; raw Redis consume rows are not measured; other tenants of the machine are not counted):',
  );
  L.push('');
  L.push("| workload | Kafka JVM | Runnel node | Runnel's Redis | Runnel + its Redis | Runnel server / Kafka | spread of the runs: Kafka / Runnel + Redis | raw Redis | load generator: Kafka run | Runnel run | raw run |");
  L.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const cpuIds = WORKLOADS.filter((x) => x.kind === 'throughput');
  for (const w of cpuIds) {
    const b = get(r, w.id, 'runnel', 'brokerCpuUsPerRecord');
    const rd = get(r, w.id, 'runnel', 'redisCpuUsPerRecord');
    const k = get(r, w.id, 'kafka', 'brokerCpuUsPerRecord');
    const server = b !== null && rd !== null ? b + rd : null;
    const spread = `${serverSpread(r, w.id, 'kafka')} / ${serverSpread(r, w.id, 'runnel')}`;
    L.push(
      `| ${w.id} | ${fmt(k, 1)} | ${fmt(b, 1)} | ${fmt(rd, 1)} | ${fmt(server, 1)} | ${ratio(server, k)} | ${spread} | ${fmt(get(r, w.id, 'raw', 'redisCpuUsPerRecord'), 1)} | ${fmt(get(r, w.id, 'kafka', 'clientCpuUsPerRecord'), 1)} | ${fmt(get(r, w.id, 'runnel', 'clientCpuUsPerRecord'), 1)} | ${fmt(get(r, w.id, 'raw', 'clientCpuUsPerRecord'), 1)} |`,
    );
  }
  L.push('');
  L.push(`**Archiver** (h): ${r.archiver.note}`);
  if (r.archiver.results?.length) {
    L.push('');
    L.push('| target | record | records | records/s | MB/s | sustained records/s | sustained MB/s | records/core-s | compression ratio |');
    L.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const a of r.archiver.results) {
      const sustained = typeof a.sustainedRecordsPerSec === 'number' ? fmt(a.sustainedRecordsPerSec, 0) : '—';
      L.push(`| ${a.target} | ${a.recordBytes} B | ${a.records} | ${fmt(a.recordsPerSec as number, 0)} | ${a.mbPerSec} | ${sustained} | ${a.sustainedMbPerSec ?? '—'} | ${fmt(a.recordsPerCoreSec as number, 0)} | ${a.compressionRatio} |`);
    }
    L.push('');
    L.push('records/s and MB/s are over the wall time from spawn, so they include the process start and the last file, which waits for the 1 s max file age; sustained is from the first commit to the last full one (bench/archiver/README.md).');
  }
  if (r.archiver.error) L.push('', `Archiver error: ${r.archiver.error.split('\n')[0]}`);
  L.push('');
  const notes = new Set<string>();
  for (const row of r.rows) {
    for (const n of row.notes ?? []) notes.add(`${row.workload} / ${SYSTEM_LABEL[row.system]}: ${n}`);
    if (row.error) notes.add(`${row.workload} / ${SYSTEM_LABEL[row.system]} run ${row.run}: ERROR ${row.error.split('\n')[0]!.slice(0, 300)}`);
  }
  if (notes.size) {
    L.push('Notes from the runs:');
    L.push('');
    for (const n of notes) L.push(`- ${n}`);
    L.push('');
  }
  if (r.failures.length) {
    L.push('**Workloads without a number:**');
    L.push('');
    for (const f of r.failures) L.push(`- ${f}`);
    L.push('');
  }
  L.push(`![throughput](${chartPrefix}-throughput.svg)`);
  L.push('');
  L.push(`![latency](${chartPrefix}-latency.svg)`);
  L.push('');
  return L.join('\n');
}

export function profileMarkdown(r: BenchResult): string {
  if (!r.profiles.length) return '';
  const L: string[] = [];
  for (const p of r.profiles) {
    if (!p.summary) {
      L.push(`Profile of workload ${p.workload}: not available (${p.error ?? 'unknown error'}).`, '');
      continue;
    }
    const what = p.workload === 'e' ? 'e (consume what a wrote; fetch path only)' : p.workload;
    L.push(summaryMarkdown(p.summary, `Workload ${what} (${p.recordsPerSec ? `${fmt(p.recordsPerSec, 0)} records/s while profiled` : 'no rate'})`));
  }
  return L.join('\n');
}

export function charts(r: BenchResult): { throughput: string; latency: string } {
  const sys = SYSTEM_ORDER.filter((s) => r.systems.includes(s));
  const series = (ids: WorkloadId[], k: string) =>
    sys.map((s) => ({ name: SYSTEM_LABEL[s], color: COLORS[s], values: ids.map((w) => get(r, w, s, k)) }));
  const prod: WorkloadId[] = ['a-produce-1p', 'b-produce-16p', 'c-produce-defaults', 'd-zstd-100B', 'd-lz4-100B'];
  const cons: WorkloadId[] = ['e-consume-a', 'e-consume-b'];
  const label: Record<string, string> = {
    'a-produce-1p': 'a) 1 producer, 1 partition, 1 KiB',
    'b-produce-16p': `b) ${r.counts.bProducers} producers, 16 partitions, 1 KiB`,
    'c-produce-defaults': 'c) Java defaults (acks=all, idempotent), 1 KiB',
    'd-zstd-100B': 'd) 100 B, zstd',
    'd-lz4-100B': 'd) 100 B, lz4',
    'e-consume-a': 'e) consume (a), 1 partition',
    'e-consume-b': 'e) consume (b), 16 partitions',
  };
  const foot = `${r.timestamp}, ${r.mode}, median of ${r.runs}; ${r.machine.cores} cores ${r.machine.cpuModel}; Redis appendonly yes / appendfsync everysec; Kafka ${r.software.kafkaJars} -Xmx1g default flush`;
  const tp: BarChart[] = [
    { title: 'Produce throughput (records/s)', yLabel: 'records/s', log: true, groups: prod.map((w) => label[w]!), series: series(prod, 'recordsPerSec') },
    { title: 'Produce throughput (MiB/s of record values)', yLabel: 'MiB/s', log: true, groups: prod.map((w) => label[w]!), series: series(prod, 'mbPerSec') },
    { title: 'Consume throughput (records/s)', yLabel: 'records/s', log: true, groups: cons.map((w) => label[w]!), series: series(cons, 'recordsPerSec'), height: 300 },
  ];
  const lat = (w: WorkloadId, title: string): BarChart => ({
    title,
    yLabel: 'ms',
    log: true,
    zeroLabel: '<1',
    groups: ['p50', 'p99', 'p99.9', 'avg'],
    series: sys.map((s) => ({ name: SYSTEM_LABEL[s], color: COLORS[s], values: ['p50', 'p99', 'p999', 'avgLatencyMs'].map((k) => get(r, w, s, k)) })),
  });
  const latency: BarChart[] = [
    lat('f-ack-latency', `Produce ack latency at ${r.counts.rate} records/s, 1 KiB, acks=1`),
    lat('f-e2e-latency', 'End-to-end latency, one record in flight, 1 KiB, acks=1'),
  ];
  return {
    throughput: svgDocument(tp, 900, foot),
    latency: svgDocument(latency, 900, `${foot}. Kafka/Runnel: ProducerPerformance --throughput and EndToEndLatency (whole ms); raw: XADD round trip, XADD -> XREAD BLOCK`),
  };
}

export const README_START = '<!-- bench:results:start -->';
export const README_END = '<!-- bench:results:end -->';
export const PROFILE_START = '<!-- bench:profile:start -->';
export const PROFILE_END = '<!-- bench:profile:end -->';
export const SECURE_START = '<!-- bench:secure:start -->';
export const SECURE_END = '<!-- bench:secure:end -->';
export const TIERED_START = '<!-- bench:tiered:start -->';
export const TIERED_END = '<!-- bench:tiered:end -->';

/** Replaces the text between two markers in README.md (appends the section if the markers are missing). */
export function replaceBetween(text: string, start: string, end: string, body: string): string {
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (i < 0 || j < i) return `${text.trimEnd()}\n\n${start}\n${body}\n${end}\n`;
  return `${text.slice(0, i + start.length)}\n${body}\n${text.slice(j)}`;
}

/** The Markdown of the cluster family, or '' when it did not run. */
export function clusterSection(r: BenchResult): string {
  return r.cluster ? clusterMarkdown(r.cluster, r) : '';
}

/**
 * Writes <dir>/<base>.{json,md,svg}. `readme`: replace its results and
 * profile sections (a full run of every system and workload). `clusterReadme`:
 * replace its cluster section, and keep that family's own results as
 * <dir>/cluster-<stamp>.{json,md} (not git-ignored: the README links to them).
 * `secureReadme`: replace its TLS and SASL_SSL (k) section. `tieredReadme`: its tiered-storage (l) section.
 */
export function writeOutputs(
  r: BenchResult,
  dir: string,
  readme: string | null,
  clusterReadme: string | null = null,
  secureReadme: string | null = null,
  tieredReadme: string | null = null,
): { json: string; md: string } {
  fs.mkdirSync(dir, { recursive: true });
  const stamp = r.timestamp.replace(/[:]/g, '-').replace(/\.\d+Z$/, 'Z');
  const partial = r.mode === 'full' && (r.systems.length !== SYSTEM_ORDER.length || WORKLOADS.some((w) => !r.rows.some((x) => x.workload === w.id)));
  const base = `${r.mode === 'quick' ? 'quick-' : partial ? 'partial-' : ''}${stamp}`;
  const json = path.join(dir, `${base}.json`);
  const md = path.join(dir, `${base}.md`);
  fs.writeFileSync(json, JSON.stringify(r, null, 2) + '\n');
  const c = charts(r);
  fs.writeFileSync(path.join(dir, `${base}-throughput.svg`), c.throughput);
  fs.writeFileSync(path.join(dir, `${base}-latency.svg`), c.latency);
  // A run of the cluster family alone has no rows for the main tables.
  const table = r.rows.length || !r.cluster ? markdown(r, base) : '';
  const prof = profileMarkdown(r);
  const clus = clusterSection(r);
  fs.writeFileSync(
    md,
    `# Runnel benchmark ${r.timestamp}\n\n${table}\n${prof ? `\n## Profile\n\n${prof}\n` : ''}${clus ? `\n## Cluster scale\n\n${clus}\n` : ''}`,
  );
  if (readme) {
    let text = fs.existsSync(readme) ? fs.readFileSync(readme, 'utf8') : '# Benchmarks\n';
    text = replaceBetween(text, README_START, README_END, markdown(r, `results/${base}`));
    if (prof) text = replaceBetween(text, PROFILE_START, PROFILE_END, prof);
    fs.writeFileSync(readme, text);
  }
  if (clusterReadme && r.cluster) {
    const own = `cluster-${stamp}`;
    const mine = { timestamp: r.timestamp, mode: r.mode, machine: r.machine, software: r.software, cluster: r.cluster };
    fs.writeFileSync(path.join(dir, `${own}.json`), JSON.stringify(mine, null, 2) + '\n');
    fs.writeFileSync(path.join(dir, `${own}.md`), `# Runnel cluster scale ${r.timestamp}\n\n${clus}\n`);
    let text = fs.existsSync(clusterReadme) ? fs.readFileSync(clusterReadme, 'utf8') : '# Benchmarks\n';
    text = replaceBetween(text, CLUSTER_START, CLUSTER_END, `${clus}\nAll numbers of this run: [results/${own}.json](results/${own}.json).\n`);
    fs.writeFileSync(clusterReadme, text);
  }
  const sec = secureMarkdown(r.medians, r.counts);
  if (secureReadme && sec) {
    const text = fs.existsSync(secureReadme) ? fs.readFileSync(secureReadme, 'utf8') : '# Benchmarks\n';
    const source =
      `Run ${r.timestamp} (${r.mode}, median of ${r.runs} run${r.runs > 1 ? 's' : ''}), Runnel ${r.software.runnelCommit}, Apache Kafka ${r.software.kafkaJars} (jars), ${r.software.java}, Node ${r.software.node}, ` +
      `redis-server ${r.software.redisServer}; ${r.machine.cores} cores (${r.machine.cpuModel}), load average at start ${r.machine.loadAvgAtStart.join(' / ')}.`;
    fs.writeFileSync(secureReadme, replaceBetween(text, SECURE_START, SECURE_END, `${source}\n\n${sec}`));
  }
  const tiered = tieredMarkdown(r.medians['l-tiered'], r.counts);
  if (tieredReadme && tiered) {
    const text = fs.readFileSync(tieredReadme, 'utf8');
    const source =
      `Run ${r.timestamp} (${r.mode}, median of ${r.runs} run${r.runs > 1 ? 's' : ''}), Runnel ${r.software.runnelCommit}, Apache Kafka ${r.software.kafkaJars} (jars), ${r.software.java}, Node ${r.software.node}, ` +
      `redis-server ${r.software.redisServer}; ${r.machine.cores} cores (${r.machine.cpuModel}), load average at start ${r.machine.loadAvgAtStart.join(' / ')}.`;
    fs.writeFileSync(tieredReadme, replaceBetween(text, TIERED_START, TIERED_END, `${source}\n\n${tiered}`));
  }
  return { json, md };
}
