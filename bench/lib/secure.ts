// Workload k: what TLS and SASL_SSL cost, on Kafka and Runnel (raw Redis has
// no Kafka listener to secure).
//
// For each security protocol, PLAINTEXT (the baseline), SSL and SASL_SSL
// (SCRAM-SHA-512), on a fresh 1-partition topic:
//   1. ProducerPerformance sends counts.secure 1 KiB records, acks=all,
//      batch.size 1 MiB, linger.ms 0, 10 % warm-up records left out of the rate;
//   2. bench/java/AssignConsumerPerf reads them all back through the same listener.
// Both tools read the protocol's client properties file (secure-setup.ts), the
// same file on both systems. One row per protocol: produce and consume
// records/s and MiB/s, server CPU per record for each phase.
import { cpuDelta, cpuMark } from './cpu.js';
import { SECURE_PROTOCOLS, type SecureMaterial, type SecureProtocol } from './secure-setup.js';
import { fmt } from './stats.js';
import { SYSTEM_LABEL, type System, type SystemName } from './systems.js';
import {
  assignConsumerPerf,
  cpuMetrics,
  errText,
  perfMetrics,
  producerPerfSteady,
  topicName,
  warmupOf,
  type Counts,
  type Ctx,
  type Metrics,
  type Row,
  type WorkloadId,
} from './workloads.js';

const RECORD_SIZE = 1024;
/** Producer settings of workload k: workload a's, with acks=all. */
export const SECURE_PRODUCER_PROPS: Record<string, string | number> = { acks: 'all', 'batch.size': 1048576, 'linger.ms': 0 };
export const SECURE_IDS: Record<SecureProtocol, WorkloadId> = { PLAINTEXT: 'k-plaintext', SSL: 'k-ssl', SASL_SSL: 'k-sasl-ssl' };
const LABEL: Record<SecureProtocol, string> = { PLAINTEXT: 'PLAINTEXT', SSL: 'SSL', SASL_SSL: 'SASL_SSL (SCRAM-SHA-512)' };

/** Runs the three protocols on one system; odd rounds start with PLAINTEXT, even rounds with SASL_SSL. */
export async function runSecure(sys: System, ctx: Ctx, m: SecureMaterial): Promise<Row[]> {
  const order = ctx.run % 2 ? SECURE_PROTOCOLS : [...SECURE_PROTOCOLS].reverse();
  const rows: Row[] = [];
  for (const p of order) rows.push(await runProtocol(sys, ctx, m, p));
  return rows;
}

const prefixed = (prefix: string, x: Metrics): Metrics => Object.fromEntries(Object.entries(x).map(([k, v]) => [`${prefix}${k[0]!.toUpperCase()}${k.slice(1)}`, v]));

async function runProtocol(sys: System, ctx: Ctx, m: SecureMaterial, p: SecureProtocol): Promise<Row> {
  const id = SECURE_IDS[p];
  const row: Row = { workload: id, system: sys.name, run: ctx.run, metrics: {}, notes: [] };
  const topic = topicName(id, ctx.run);
  const n = ctx.counts.secure;
  try {
    if (!sys.secure) throw new Error(`${SYSTEM_LABEL[sys.name]} was started without the SSL and SASL_SSL listeners`);
    // The set-up check (SCRAM user, then kafka-configs over SASL_SSL) concerns SASL_SSL; SSL fails on its own if TLS does.
    if (p === 'SASL_SSL' && sys.secure.error) throw new Error(sys.secure.error);
    const bootstrap = sys.secure.bootstrap[p];
    await sys.createTopic(topic, 1);
    const pids = sys.pids() as Record<string, number>;
    const c0 = cpuMark(pids);
    const r = await producerPerfSteady({ bootstrap, topic, numRecords: n, warmup: warmupOf(n), recordSize: RECORD_SIZE, props: SECURE_PRODUCER_PROPS, configFile: m.clientProps[p] });
    const c1 = cpuMark(pids);
    const records = r.overall.records;
    Object.assign(row.metrics, perfMetrics(r.steady), { records, overallRecordsPerSec: r.overall.recordsPerSec }, cpuMetrics(cpuDelta(c0, c1), records));
    const c = await assignConsumerPerf(bootstrap, topic, records, [`@${m.clientProps[p]}`]);
    Object.assign(row.metrics, prefixed('consume', cpuMetrics(cpuDelta(c1, cpuMark(pids)), records)));
    if (c.records < records) throw new Error(`AssignConsumerPerf read ${c.records} of ${records} records over ${p}`);
    Object.assign(row.metrics, { consumeRecordsPerSec: c.records / (c.ms / 1000), consumeMbPerSec: c.bytes / 1048576 / (c.ms / 1000) });
  } catch (e) {
    row.error = errText(e);
  } finally {
    await sys.deleteTopic(topic, 1).catch(() => undefined);
  }
  return row;
}

type Medians = Partial<Record<WorkloadId, Partial<Record<SystemName, Metrics>>>>;

/** The TLS / SASL_SSL section of the results Markdown ('' when workload k did not run). */
export function secureMarkdown(medians: Medians, counts: Counts): string {
  if (!SECURE_PROTOCOLS.some((p) => medians[SECURE_IDS[p]])) return '';
  const g = (p: SecureProtocol, s: SystemName, k: string): number | null => medians[SECURE_IDS[p]]?.[s]?.[k] ?? null;
  const x = (a: number | null, b: number | null): string => (a !== null && b !== null && a > 0 && b > 0 ? `${(a / b).toFixed(2)}×` : '—');
  const rate = (p: SecureProtocol, s: SystemName, k: 'recordsPerSec' | 'consumeRecordsPerSec'): string => {
    const mb = g(p, s, k === 'recordsPerSec' ? 'mbPerSec' : 'consumeMbPerSec');
    return g(p, s, k) === null ? 'n/a' : `${fmt(g(p, s, k), 0)}<br>${fmt(mb, 1)} MiB/s`;
  };
  const cost = (p: SecureProtocol, s: SystemName, k: string): string => {
    const [v, base] = [g(p, s, k), g('PLAINTEXT', s, k)];
    return v !== null && base !== null && base > 0 ? `${x(v, base)} (${v >= base ? '+' : '−'}${Math.abs(100 * (1 - v / base)).toFixed(0)} %)` : '—';
  };
  const cpu = (p: SecureProtocol, s: SystemName, prefix: '' | 'consume'): string => {
    const k = (name: string): string => (prefix ? `${prefix}${name[0]!.toUpperCase()}${name.slice(1)}` : name);
    const b = g(p, s, k('brokerCpuUsPerRecord'));
    const rd = g(p, s, k('redisCpuUsPerRecord'));
    return s === 'runnel' ? `${fmt(b !== null && rd !== null ? b + rd : null, 1)} (${fmt(b, 1)} + ${fmt(rd, 1)})` : fmt(b, 1);
  };
  const L = [
    `**TLS and SASL_SSL** (k): for each security protocol, ProducerPerformance sends ${fmt(counts.secure, 0)} records of ${RECORD_SIZE} B ` +
      `(${Object.entries(SECURE_PRODUCER_PROPS).map(([k, v]) => `${k}=${v}`).join(', ')}; the first ${fmt(warmupOf(counts.secure), 0)} are warm-up, left out of the rate) ` +
      'to a fresh 1-partition topic, then bench/java/AssignConsumerPerf reads them back through the same listener. Both tools read the same client properties ' +
      'file on both systems (PEM truststore of a throwaway P-256 CA; SASL_SSL adds SCRAM-SHA-512 as a user created with kafka-configs). See bench/README.md, TLS and SASL_SSL (k).',
    '',
    '| protocol | Kafka produce | Runnel produce | Runnel / Kafka | Kafka consume | Runnel consume | Runnel / Kafka |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...SECURE_PROTOCOLS.map(
      (p) =>
        `| ${LABEL[p]} | ${rate(p, 'kafka', 'recordsPerSec')} | ${rate(p, 'runnel', 'recordsPerSec')} | ${x(g(p, 'runnel', 'recordsPerSec'), g(p, 'kafka', 'recordsPerSec'))} | ` +
        `${rate(p, 'kafka', 'consumeRecordsPerSec')} | ${rate(p, 'runnel', 'consumeRecordsPerSec')} | ${x(g(p, 'runnel', 'consumeRecordsPerSec'), g(p, 'kafka', 'consumeRecordsPerSec'))} |`,
    ),
    '',
    'Cost of TLS and SASL_SSL: each system\'s rate relative to its own PLAINTEXT rate (1.00× = no cost):',
    '',
    '| protocol | Kafka produce | Runnel produce | Kafka consume | Runnel consume |',
    '|---|---:|---:|---:|---:|',
    ...SECURE_PROTOCOLS.filter((p) => p !== 'PLAINTEXT').map(
      (p) =>
        `| ${LABEL[p]} | ${cost(p, 'kafka', 'recordsPerSec')} | ${cost(p, 'runnel', 'recordsPerSec')} | ${cost(p, 'kafka', 'consumeRecordsPerSec')} | ${cost(p, 'runnel', 'consumeRecordsPerSec')} |`,
    ),
    '',
    'Server CPU per record (µs; Kafka: its JVM; Runnel: node + its Redis):',
    '',
    '| protocol | Kafka produce | Runnel produce | Kafka consume | Runnel consume |',
    '|---|---:|---:|---:|---:|',
    ...SECURE_PROTOCOLS.map((p) => `| ${LABEL[p]} | ${cpu(p, 'kafka', '')} | ${cpu(p, 'runnel', '')} | ${cpu(p, 'kafka', 'consume')} | ${cpu(p, 'runnel', 'consume')} |`),
  ];
  return L.join('\n');
}

/** The run log's one-line summary of a k row. */
export function secureSummary(m: Metrics): string {
  return `produce ${fmt(m.recordsPerSec, 0)} records/s, ${fmt(m.mbPerSec, 1)} MiB/s (p99 ${fmt(m.p99, 0)} ms); consume ${fmt(m.consumeRecordsPerSec, 0)} records/s, ${fmt(m.consumeMbPerSec, 1)} MiB/s`;
}
