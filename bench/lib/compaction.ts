// Workload i: log compaction, on Kafka and Runnel (the raw-Redis ceiling has no cleaner).
//
// bench/java/CompactionPerf writes compactRecords keyed 100 B records over
// compactKeys keys round-robin (many updates per key) with the producer
// settings of workload a (acks=1, batch 1 MiB, linger 0), first to a
// delete-policy topic (the baseline: produce rate and stored bytes of the
// uncompacted log), then to a compact-policy topic with segment.ms=1000,
// min.cleanable.dirty.ratio=0.01, delete.retention.ms=0; the broker's cleaner
// back-off is CLEANER_BACKOFF_MS (systems.ts). After the produce it re-reads
// the topic from the beginning until a pass returns no more than the number of
// keys (+ roll markers), no pass shrinks it for a while, or time runs out.
// Meanwhile this side samples the stored bytes of the partition: Redis MEMORY
// USAGE of its :log and :clog streams (Runnel), .log segment bytes (Kafka).
import { runJava } from '../../test/helpers/java.js';
import { RespConnection } from './resp.js';
import { fmt } from './stats.js';
import { CLEANER_BACKOFF_MS, compactedKey, streamKey, SYSTEM_LABEL, type System, type SystemName } from './systems.js';
import { BENCH_JAVA_CP, BIG_BATCH, errText, topicName, type Counts, type Ctx, type Metrics, type Row } from './workloads.js';

const VALUE_SIZE = 100;
const SEGMENT_MS = 1000;
/** Topic configs of the compacted topic. */
export const COMPACT_CONFIGS: Record<string, string> = {
  'cleanup.policy': 'compact',
  'segment.ms': String(SEGMENT_MS),
  'min.cleanable.dirty.ratio': '0.01',
  'delete.retention.ms': '0',
};
/** The baseline: same segments, nothing cleaned. */
const DELETE_CONFIGS: Record<string, string> = { 'cleanup.policy': 'delete', 'segment.ms': String(SEGMENT_MS) };
/** A log that has not shrunk for this long counts as done (the cleaner gave up or cannot go further). */
const STALL_MS = 15_000;
const SAMPLE_MS = 250;

interface Produced {
  records: number;
  bytes: number;
  ms: number;
  endEpochMs: number;
  errors: number;
}
interface Pass {
  endEpochMs: number;
  records: number;
  keys: number;
  latestOk: boolean;
}
interface ToolOutput {
  produced: Produced;
  passes: Pass[];
  compacted: boolean;
  reason: string;
}

const num = (line: string, k: string): number => Number(new RegExp(`\\b${k}=([\\d.]+)`).exec(line)?.[1] ?? NaN);

/** Parses CompactionPerf's PRODUCED / PASS / RESULT lines. */
export function parseCompactionPerf(stdout: string): ToolOutput | null {
  let produced: Produced | null = null;
  const passes: Pass[] = [];
  let compacted = false;
  let reason = 'no RESULT line';
  for (const line of stdout.split('\n')) {
    if (line.startsWith('PRODUCED ')) {
      produced = { records: num(line, 'records'), bytes: num(line, 'bytes'), ms: num(line, 'ms'), endEpochMs: num(line, 'endEpochMs'), errors: num(line, 'errors') };
    } else if (line.startsWith('PASS ')) {
      passes.push({ endEpochMs: num(line, 'endEpochMs'), records: num(line, 'records'), keys: num(line, 'keys'), latestOk: /latestOk=true/.test(line) });
    } else if (line.startsWith('RESULT ')) {
      compacted = /compacted=true/.test(line);
      reason = /reason=(\S+)/.exec(line)?.[1] ?? '?';
    }
  }
  return produced ? { produced, passes, compacted, reason } : null;
}

/** Stored bytes of partition 0: MEMORY USAGE of :log + :clog (a missing key counts 0), or Kafka's .log segment bytes. */
async function storedBytes(sys: System, topic: string): Promise<number | null> {
  if (sys.name === 'kafka') return sys.logBytes(topic, 1);
  const c = await RespConnection.connect(sys.redisPort);
  try {
    let n = 0;
    for (const k of [streamKey(topic, 0), compactedKey(topic, 0)]) n += Number((await c.call(['MEMORY', 'USAGE', k, 'SAMPLES', 0])) ?? 0);
    return n;
  } finally {
    c.close();
  }
}

/** Samples storedBytes every SAMPLE_MS until stop() is called. */
function sampler(sys: System, topic: string): { stop: () => Promise<Array<{ t: number; bytes: number }>> } {
  const out: Array<{ t: number; bytes: number }> = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const b = await storedBytes(sys, topic).catch(() => null);
      if (b !== null) out.push({ t: Date.now(), bytes: b });
      await new Promise((r) => setTimeout(r, SAMPLE_MS));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return out;
    },
  };
}

async function compactionPerf(sys: System, topic: string, ctx: Ctx, watchMs: number): Promise<ToolOutput> {
  const c = ctx.counts;
  const props = Object.entries(BIG_BATCH).map(([k, v]) => `${k}=${v}`);
  const args = [sys.bootstrap, topic, String(c.compactRecords), String(c.compactKeys), String(VALUE_SIZE), String(watchMs), String(STALL_MS), String(SEGMENT_MS), ...props];
  const r = await runJava('CompactionPerf', args, { classpath: [BENCH_JAVA_CP], jvmArgs: ['-Xmx1g'], timeoutMs: watchMs + 300_000 });
  const out = parseCompactionPerf(r.stdout);
  if (!out || r.code !== 0) throw new Error(`CompactionPerf failed (code ${r.code}${r.timedOut ? ', timed out' : ''}):\n${r.stdout.slice(-1000)}\n${r.stderr.slice(-3000)}`);
  if (out.produced.errors > 0) throw new Error(`CompactionPerf: ${out.produced.errors} records failed to send:\n${r.stderr.slice(-2000)}`);
  return out;
}

const rate = (p: Produced): Metrics => ({ recordsPerSec: p.records / (p.ms / 1000), mbPerSec: p.bytes / 1048576 / (p.ms / 1000) });

export async function runCompaction(sys: System, ctx: Ctx): Promise<Row> {
  const row: Row = { workload: 'i-compaction', system: sys.name, run: ctx.run, metrics: {}, notes: [] };
  const m = row.metrics;
  const keys = ctx.counts.compactKeys;
  // 1. Baseline: the same records on a delete-policy topic.
  const base = topicName('i-delete', ctx.run);
  try {
    await sys.createTopic(base, 1, DELETE_CONFIGS);
    const b = await compactionPerf(sys, base, ctx, 0);
    const br = rate(b.produced);
    Object.assign(m, { baselineRecordsPerSec: br.recordsPerSec, baselineMbPerSec: br.mbPerSec, bytesUncompacted: await storedBytes(sys, base) });
  } catch (e) {
    row.notes!.push(`delete-policy baseline failed: ${errText(e).split('\n')[0]}`);
  } finally {
    await sys.deleteTopic(base, 1).catch(() => undefined);
  }

  // 2. The compacted topic: produce while the cleaner runs, then watch it compact.
  const topic = topicName('i-compact', ctx.run);
  try {
    try {
      await sys.createTopic(topic, 1, COMPACT_CONFIGS);
    } catch (e) {
      throw new Error(`creating a cleanup.policy=compact topic failed: ${errText(e)}`);
    }
    const s = sampler(sys, topic);
    const res = await compactionPerf(sys, topic, ctx, ctx.counts.compactWatchSec * 1000).then(
      (o) => ({ o }),
      (e: unknown) => ({ e }),
    );
    const samples = await s.stop();
    if ('e' in res) throw res.e;
    const out = res.o;
    const p = out.produced;
    Object.assign(m, rate(p), { records: p.records, keys, produceSec: p.ms / 1000 });
    if (m.baselineRecordsPerSec) m.produceVsDelete = m.recordsPerSec! / m.baselineRecordsPerSec;
    if (!out.passes.length) throw new Error('CompactionPerf read nothing back');
    const first = out.passes[0]!;
    const min = Math.min(...out.passes.map((x) => x.records));
    // When the log reached its smallest size: the end of the first pass that read that few records.
    const done = out.passes.find((x) => x.records === min)!;
    const last = out.passes[out.passes.length - 1]!;
    const settleSec = (done.endEpochMs - p.endEpochMs) / 1000;
    Object.assign(m, {
      recordsAtProduceEnd: first.records,
      recordsAfter: min,
      keysAfter: last.keys,
      latestOk: last.latestOk ? 1 : 0,
      compacted: out.compacted ? 1 : 0,
      settleSec,
      passes: out.passes.length,
      cleanedDuringProduce: p.records - first.records,
      overallCleanRecordsPerSec: (p.records - min) / (p.ms / 1000 + settleSec),
    });
    // Compaction speed: records the cleaner removed after the produce ended / time until it was done.
    if (first.records > min) m.compactionRecordsPerSec = (first.records - min) / settleSec;
    else if (p.records > min) {
      m.compactionRecordsPerSec = m.overallCleanRecordsPerSec!;
      row.notes!.push('already compacted at the first pass after the produce: compaction speed counted from the first record produced');
    }
    if (!out.compacted) row.notes!.push(`not compacted down to ${keys} keys (${out.reason}): smallest pass read ${min} records`);
    if (!last.latestOk) row.notes!.push(`last pass: ${last.keys} of ${keys} keys, not every key had its newest value`);
    const atEnd = samples.find((x) => x.t >= p.endEpochMs);
    if (atEnd) m.bytesAtProduceEnd = atEnd.bytes;
    if (samples.length) m.bytesPeak = Math.max(...samples.map((x) => x.bytes));
    m.bytesAfter = await storedBytes(sys, topic);
    if (m.bytesAfter) m.bytesAfterPerKey = m.bytesAfter / keys;
    if (m.bytesUncompacted && m.bytesAfter) m.bytesShrink = m.bytesUncompacted / m.bytesAfter;
    if (sys.name === 'kafka') row.notes!.push('stored bytes are .log segment bytes on disk');
    else row.notes!.push('stored bytes are MEMORY USAGE of the partition streams :log + :clog');
  } catch (e) {
    row.error = errText(e);
  } finally {
    await sys.deleteTopic(topic, 1).catch(() => undefined);
  }
  return row;
}

/** The compaction section of the results Markdown ('' when workload i did not run). */
export function compactionMarkdown(medians: Partial<Record<SystemName, Metrics>> | undefined, counts: Counts): string {
  if (!medians || !Object.keys(medians).length) return '';
  const cols: SystemName[] = ['kafka', 'runnel'];
  const g = (s: SystemName, k: string): number | null => medians[s]?.[k] ?? null;
  const ratio = (k: string): string => {
    const [a, b] = [g('runnel', k), g('kafka', k)];
    return a !== null && b !== null && a > 0 && b > 0 ? `${(a / b).toFixed(2)}×` : '—';
  };
  const B = (v: number | null): string => (v === null ? 'n/a' : v >= 1048576 ? `${fmt(v / 1048576, 1)} MiB` : `${fmt(v / 1024, 1)} KiB`);
  const rows: Array<[string, (s: SystemName) => string, string]> = [
    ['produce to the compacted topic while the cleaner runs', (s) => `${fmt(g(s, 'recordsPerSec'), 0)} records/s<br>${fmt(g(s, 'mbPerSec'), 1)} MiB/s`, ratio('recordsPerSec')],
    ['produce to a delete-policy topic (baseline)', (s) => `${fmt(g(s, 'baselineRecordsPerSec'), 0)} records/s<br>${fmt(g(s, 'baselineMbPerSec'), 1)} MiB/s`, ratio('baselineRecordsPerSec')],
    ['compacted / delete-policy produce rate', (s) => fmt(g(s, 'produceVsDelete'), 2), ratio('produceVsDelete')],
    ['records read back at the end of the produce → after compaction', (s) => `${fmt(g(s, 'recordsAtProduceEnd'), 0)} → ${fmt(g(s, 'recordsAfter'), 0)}`, '—'],
    ['end of produce → compacted (s)', (s) => fmt(g(s, 'settleSec'), 1), ratio('settleSec')],
    ['**compaction speed** (records removed after the produce / that time)', (s) => `${fmt(g(s, 'compactionRecordsPerSec'), 0)} records/s`, ratio('compactionRecordsPerSec')],
    ['records removed / (produce + settle time)', (s) => `${fmt(g(s, 'overallCleanRecordsPerSec'), 0)} records/s`, ratio('overallCleanRecordsPerSec')],
    ['stored bytes, same records uncompacted (delete-policy topic)', (s) => B(g(s, 'bytesUncompacted')), ratio('bytesUncompacted')],
    ['stored bytes at the end of the produce', (s) => B(g(s, 'bytesAtProduceEnd')), ratio('bytesAtProduceEnd')],
    ['stored bytes after compaction', (s) => B(g(s, 'bytesAfter')), ratio('bytesAfter')],
    ['stored bytes per key after compaction', (s) => fmt(g(s, 'bytesAfterPerKey'), 0), ratio('bytesAfterPerKey')],
    ['newest value of every key kept (last pass)', (s) => (g(s, 'latestOk') === null ? 'n/a' : g(s, 'latestOk') === 1 ? 'yes' : 'no'), '—'],
  ];
  const L = [
    `**Compaction** (i): ${counts.compactRecords} keyed records of ${VALUE_SIZE} B over ${counts.compactKeys} keys (${counts.compactRecords / counts.compactKeys} updates per key), ` +
      `1 partition, acks=1, batch 1 MiB; topic ${Object.entries(COMPACT_CONFIGS).map(([k, v]) => `${k}=${v}`).join(', ')}; cleaner back-off ${CLEANER_BACKOFF_MS} ms. ` +
      'Stored bytes: Kafka .log segment bytes on disk; Runnel MEMORY USAGE of the partition streams :log + :clog.',
    '',
    `| metric | ${cols.map((s) => SYSTEM_LABEL[s]).join(' | ')} | Runnel / Kafka |`,
    '|---|---:|---:|---:|',
    ...rows.map(([label, cell, rt]) => `| ${label} | ${cols.map((s) => (medians[s] ? cell(s) : 'n/a')).join(' | ')} | ${rt} |`),
  ];
  return L.join('\n');
}
