// Workload j: transactions, on Kafka and Runnel (the raw-Redis ceiling has no transactions).
//
// bench/java/TxnPerf, one JVM per run, on a fresh 1-partition topic:
//   1. a transactional producer (transactional.id set, so acks=all and
//      idempotence; batch 1 MiB, linger 0) sends txnRecords 1 KiB records as fast
//      as it can, committing every TXN_MS ms; the rate counts committed records
//      after txnRecords/10 warm-up records (records/s, MiB/s of record values),
//      with the time commitTransaction() takes (flush + EndTxn + markers);
//   2. the same producer sends txnLatencyRecords records at txnLatencyRate
//      records/s, still committing every TXN_MS ms, while a read_committed and a
//      read_uncommitted consumer (assign(), from the end) poll the partition:
//      end-to-end latency = receipt - send() (one JVM, one clock). read_committed
//      sees a record only after its transaction's commit marker.
import { runJava } from '../../test/helpers/java.js';
import { fmt } from './stats.js';
import { SYSTEM_LABEL, type System, type SystemName } from './systems.js';
import { BENCH_JAVA_CP, errText, topicName, type Counts, type Ctx, type Metrics, type Row } from './workloads.js';

/** The transactional producer commits every TXN_MS ms. */
export const TXN_MS = 100;
const RECORD_SIZE = 1024;
/** Producer settings besides transactional.id (which implies acks=all, enable.idempotence=true). */
export const TXN_PROPS: Record<string, string | number> = { 'batch.size': 1048576, 'linger.ms': 0 };

const num = (line: string, k: string): number | null => {
  const m = new RegExp(`\\b${k}=([\\d.]+|NaN)`).exec(line);
  return m && m[1] !== 'NaN' ? Number(m[1]) : null;
};

/** Parses TxnPerf's THROUGHPUT / LATPRODUCE / LATENCY lines into metrics (rc = read_committed, ru = read_uncommitted). */
export function parseTxnPerf(stdout: string): Metrics | null {
  const m: Metrics = {};
  let tp = false;
  for (const line of stdout.split('\n')) {
    if (line.startsWith('THROUGHPUT ')) {
      tp = true;
      const [records, bytes, ms] = [num(line, 'records'), num(line, 'bytes'), num(line, 'ms')];
      Object.assign(m, {
        records,
        recordsPerSec: records !== null && ms ? records / (ms / 1000) : null,
        mbPerSec: bytes !== null && ms ? bytes / 1048576 / (ms / 1000) : null,
        commits: num(line, 'commits'),
        txnAvgMs: num(line, 'txnAvgMs'),
        recordsPerCommit: records !== null && num(line, 'commits') ? records / num(line, 'commits')! : null,
        commitAvgMs: num(line, 'commitAvgMs'),
        commitP99Ms: num(line, 'commitP99Ms'),
        errors: num(line, 'errors'),
      });
    } else if (line.startsWith('LATPRODUCE ')) {
      Object.assign(m, { latRecordsSent: num(line, 'records'), latCommits: num(line, 'commits'), latRate: num(line, 'rate'), latErrors: num(line, 'errors') });
    } else if (line.startsWith('LATENCY ')) {
      const p = /isolation=read_committed/.test(line) ? 'rc' : 'ru';
      for (const k of ['records', 'p50', 'p99', 'p999', 'avg', 'max']) m[`${p}${k[0]!.toUpperCase()}${k.slice(1)}`] = num(line, k);
    }
  }
  if (!tp) return null;
  // The generic latency keys: those of the read_committed consumer.
  Object.assign(m, { p50: m.rcP50 ?? null, p99: m.rcP99 ?? null, p999: m.rcP999 ?? null, avgLatencyMs: m.rcAvg ?? null });
  return m;
}

export async function runTransactions(sys: System, ctx: Ctx): Promise<Row> {
  const row: Row = { workload: 'j-transactions', system: sys.name, run: ctx.run, metrics: {}, notes: [] };
  const c = ctx.counts;
  const topic = topicName('j-txn', ctx.run);
  try {
    await sys.createTopic(topic, 1);
    const props = Object.entries(TXN_PROPS).map(([k, v]) => `${k}=${v}`);
    const args = [sys.bootstrap, topic, String(c.txnRecords), String(Math.floor(c.txnRecords / 10)), String(RECORD_SIZE), String(TXN_MS), String(c.txnLatencyRate), String(c.txnLatencyRecords), ...props];
    const r = await runJava('TxnPerf', args, { classpath: [BENCH_JAVA_CP], jvmArgs: ['-Xmx1g'], timeoutMs: 300_000 });
    const m = parseTxnPerf(r.stdout);
    if (!m || r.code !== 0) throw new Error(`TxnPerf failed (code ${r.code}${r.timedOut ? ', timed out' : ''}):\n${r.stdout.slice(-1000)}\n${r.stderr.slice(-3000)}`);
    Object.assign(row.metrics, m, { txnMs: TXN_MS, recordSize: RECORD_SIZE });
    if (m.errors || m.latErrors) throw new Error(`TxnPerf: ${(m.errors ?? 0) + (m.latErrors ?? 0)} sends failed:\n${r.stderr.slice(-2000)}`);
    if (m.rcP99 === null || m.rcP99 === undefined) throw new Error(`TxnPerf: the read_committed consumer received nothing:\n${r.stdout.slice(-1000)}\n${r.stderr.slice(-2000)}`);
    if ((m.rcRecords ?? 0) < c.txnLatencyRecords) row.notes!.push(`read_committed consumer received ${m.rcRecords} of ${c.txnLatencyRecords} records`);
    if ((m.ruRecords ?? 0) < c.txnLatencyRecords) row.notes!.push(`read_uncommitted consumer received ${m.ruRecords} of ${c.txnLatencyRecords} records`);
  } catch (e) {
    row.error = errText(e);
  } finally {
    await sys.deleteTopic(topic, 1).catch(() => undefined);
  }
  return row;
}

/** The transactions section of the results Markdown ('' when workload j did not run). */
export function transactionsMarkdown(medians: Partial<Record<SystemName, Metrics>> | undefined, counts: Counts): string {
  if (!medians || !Object.keys(medians).length) return '';
  const cols: SystemName[] = ['kafka', 'runnel'];
  const g = (s: SystemName, k: string): number | null => medians[s]?.[k] ?? null;
  const ratio = (k: string): string => {
    const [a, b] = [g('runnel', k), g('kafka', k)];
    return a !== null && b !== null && a > 0 && b > 0 ? `${(a / b).toFixed(2)}×` : '—';
  };
  const lat = (p: 'rc' | 'ru') => (s: SystemName): string => `${fmt(g(s, `${p}P50`), 1)} / ${fmt(g(s, `${p}P99`), 1)} / ${fmt(g(s, `${p}Max`), 1)}`;
  const rows: Array<[string, (s: SystemName) => string, string]> = [
    ['**transactional produce**, commit every 100 ms', (s) => `${fmt(g(s, 'recordsPerSec'), 0)} records/s<br>${fmt(g(s, 'mbPerSec'), 1)} MiB/s`, ratio('recordsPerSec')],
    ['transactions (measured part): records per transaction / begin → commit returned avg (ms)', (s) => `${fmt(g(s, 'recordsPerCommit'), 0)} / ${fmt(g(s, 'txnAvgMs'), 0)}`, ratio('txnAvgMs')],
    ['commitTransaction() avg / p99 (ms)', (s) => `${fmt(g(s, 'commitAvgMs'), 1)} / ${fmt(g(s, 'commitP99Ms'), 1)}`, ratio('commitAvgMs')],
    ['**read_committed end-to-end latency** p50 / p99 / max (ms)', lat('rc'), `${ratio('rcP50')} / ${ratio('rcP99')}`],
    ['read_uncommitted end-to-end latency p50 / p99 / max (ms), same records', lat('ru'), `${ratio('ruP50')} / ${ratio('ruP99')}`],
  ];
  const L = [
    `**Transactions** (j): bench/java/TxnPerf, 1 partition, ${RECORD_SIZE} B records, transactional producer (acks=all, idempotence, ${Object.entries(TXN_PROPS)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}) committing every ${TXN_MS} ms. Throughput: ${counts.txnRecords} records as fast as possible (after ${Math.floor(counts.txnRecords / 10)} warm-up records). ` +
      `Latency: ${counts.txnLatencyRecords} records at ${counts.txnLatencyRate} records/s, send() → receipt at a read_committed and a read_uncommitted consumer (same JVM clock). ` +
      'See bench/README.md, Transactions.',
    '',
    `| metric | ${cols.map((s) => SYSTEM_LABEL[s]).join(' | ')} | Runnel / Kafka |`,
    '|---|---:|---:|---:|',
    ...rows.map(([label, cell, rt]) => `| ${label} | ${cols.map((s) => (medians[s] ? cell(s) : 'n/a')).join(' | ')} | ${rt} |`),
  ];
  return L.join('\n');
}
