// Workload i: log compaction, on Kafka and Runnel (the raw-Redis ceiling has no cleaner).
//
// bench/java/CompactionPerf writes compactRecords keyed 100 B records over
// compactKeys keys round-robin (many updates per key) with the producer
// settings of workload a (acks=1, batch 1 MiB, linger 0) to three topics:
//   A  cleanup.policy=delete, segment.ms=1000: the baseline produce rate, and the
//      stored bytes of the log uncompacted;
//   B  cleanup.policy=compact, segment.ms=1000, min.cleanable.dirty.ratio=0.01,
//      delete.retention.ms=0: the produce rate while the cleaner runs;
//   C  the same, but segment.ms=3600000 while producing (everything stays in the
//      active segment, nothing is cleanable), then segment.ms=1: the whole log
//      becomes cleanable at once, and the time until it is compacted gives the
//      compaction speed. CompactionPerf re-reads C from the beginning until a
//      pass returns no more than the keys (+ roll markers) and checks that every
//      key kept its newest value; this side samples C's stored bytes every
//      SAMPLE_MS: Redis MEMORY USAGE of :log + :clog (Runnel), .log segment bytes (Kafka).
// The brokers' cleaner back-off is CLEANER_BACKOFF_MS (systems.ts).
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
/** C while producing: nothing cleanable (no segment rolls). */
const BACKLOG_CONFIGS: Record<string, string> = { ...COMPACT_CONFIGS, 'segment.ms': '3600000' };
/** C after producing: every segment rolls at the next append (Kafka) or cleaner pass (Runnel). */
const BACKLOG_ROLL_MS = 1;
/** The baseline: same segments, nothing cleaned. */
const DELETE_CONFIGS: Record<string, string> = { 'cleanup.policy': 'delete', 'segment.ms': String(SEGMENT_MS) };
/** A log that has not shrunk for this long counts as done (the cleaner gave up or cannot go further). */
const STALL_MS = 15_000;
const SAMPLE_MS = 100;

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
  /** When segment.ms was lowered (C). */
  alteredEpochMs: number | null;
  passes: Pass[];
  compacted: boolean;
  reason: string;
}

const num = (line: string, k: string): number => Number(new RegExp(`\\b${k}=([\\d.]+)`).exec(line)?.[1] ?? NaN);

/** Parses CompactionPerf's PRODUCED / PASS / RESULT lines. */
export function parseCompactionPerf(stdout: string): ToolOutput | null {
  let produced: Produced | null = null;
  let alteredEpochMs: number | null = null;
  const passes: Pass[] = [];
  let compacted = false;
  let reason = 'no RESULT line';
  for (const line of stdout.split('\n')) {
    if (line.startsWith('PRODUCED ')) {
      produced = { records: num(line, 'records'), bytes: num(line, 'bytes'), ms: num(line, 'ms'), endEpochMs: num(line, 'endEpochMs'), errors: num(line, 'errors') };
    } else if (line.startsWith('ALTERED ')) {
      alteredEpochMs = num(line, 'epochMs');
    } else if (line.startsWith('PASS ')) {
      passes.push({ endEpochMs: num(line, 'endEpochMs'), records: num(line, 'records'), keys: num(line, 'keys'), latestOk: /latestOk=true/.test(line) });
    } else if (line.startsWith('RESULT ')) {
      compacted = /compacted=true/.test(line);
      reason = /reason=(\S+)/.exec(line)?.[1] ?? '?';
    }
  }
  return produced ? { produced, alteredEpochMs, passes, compacted, reason } : null;
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

async function compactionPerf(sys: System, topic: string, ctx: Ctx, watchMs: number, alterSegmentMs = 0): Promise<ToolOutput> {
  const c = ctx.counts;
  const props = Object.entries(BIG_BATCH).map(([k, v]) => `${k}=${v}`);
  const args = [sys.bootstrap, topic, String(c.compactRecords), String(c.compactKeys), String(VALUE_SIZE), String(watchMs), String(STALL_MS), String(SEGMENT_MS), String(alterSegmentMs), ...props];
  const r = await runJava('CompactionPerf', args, { classpath: [BENCH_JAVA_CP], jvmArgs: ['-Xmx1g'], timeoutMs: watchMs + 300_000 });
  const out = parseCompactionPerf(r.stdout);
  if (!out || r.code !== 0) throw new Error(`CompactionPerf failed (code ${r.code}${r.timedOut ? ', timed out' : ''}):\n${r.stdout.slice(-1000)}\n${r.stderr.slice(-3000)}`);
  if (out.produced.errors > 0) throw new Error(`CompactionPerf: ${out.produced.errors} records failed to send:\n${r.stderr.slice(-2000)}`);
  return out;
}

const rate = (p: Produced): Metrics => ({ recordsPerSec: p.records / (p.ms / 1000), mbPerSec: p.bytes / 1048576 / (p.ms / 1000) });

/** Runs one phase on a fresh topic (deleted afterwards); `what` names it in errors. */
async function onTopic<T>(sys: System, name: string, configs: Record<string, string>, ctx: Ctx, what: string, fn: (topic: string) => Promise<T>): Promise<T> {
  const topic = topicName(name, ctx.run);
  try {
    try {
      await sys.createTopic(topic, 1, configs);
    } catch (e) {
      throw new Error(`${what}: creating the topic (${Object.entries(configs).map(([k, v]) => `${k}=${v}`).join(', ')}) failed: ${errText(e)}`);
    }
    return await fn(topic).catch((e: unknown) => {
      throw new Error(`${what}: ${errText(e)}`);
    });
  } finally {
    await sys.deleteTopic(topic, 1).catch(() => undefined);
  }
}

export async function runCompaction(sys: System, ctx: Ctx): Promise<Row> {
  const row: Row = { workload: 'i-compaction', system: sys.name, run: ctx.run, metrics: {}, notes: [] };
  const m = row.metrics;
  const keys = ctx.counts.compactKeys;
  try {
    // A. Baseline: the same records on a delete-policy topic.
    await onTopic(sys, 'i-delete', DELETE_CONFIGS, ctx, 'delete-policy baseline', async (topic) => {
      const r = rate((await compactionPerf(sys, topic, ctx, 0)).produced);
      Object.assign(m, { baselineRecordsPerSec: r.recordsPerSec, baselineMbPerSec: r.mbPerSec, bytesUncompacted: await storedBytes(sys, topic) });
    });
    // B. Produce to a compacted topic while the cleaner works on it.
    await onTopic(sys, 'i-live', COMPACT_CONFIGS, ctx, 'compacted topic', async (topic) => {
      const p = (await compactionPerf(sys, topic, ctx, 0)).produced;
      Object.assign(m, rate(p), { records: p.records, keys, produceSec: p.ms / 1000, bytesAtProduceEnd: await storedBytes(sys, topic) });
      m.produceVsDelete = m.recordsPerSec! / m.baselineRecordsPerSec!;
    });
    // C. A whole uncleaned log made cleanable at once: compaction speed and stored bytes before/after.
    await onTopic(sys, 'i-backlog', BACKLOG_CONFIGS, ctx, 'compaction of a backlog', async (topic) => {
      const s = sampler(sys, topic);
      const res = await compactionPerf(sys, topic, ctx, ctx.counts.compactWatchSec * 1000, BACKLOG_ROLL_MS).then(
        (o) => ({ o }),
        (e: unknown) => ({ e }),
      );
      const samples = await s.stop();
      if ('e' in res) throw res.e;
      compactionMetrics(row, res.o, samples, await storedBytes(sys, topic), keys);
    });
    row.notes!.push(sys.name === 'kafka' ? 'stored bytes are .log segment bytes on disk' : 'stored bytes are MEMORY USAGE of the partition streams :log + :clog');
  } catch (e) {
    row.error = errText(e);
  }
  return row;
}

/** Metrics of phase C from CompactionPerf's passes and the stored-bytes samples. */
function compactionMetrics(row: Row, out: ToolOutput, samples: Array<{ t: number; bytes: number }>, bytesAfter: number | null, keys: number): void {
  const m = row.metrics;
  const t0 = out.alteredEpochMs;
  if (t0 === null || !out.passes.length) throw new Error('CompactionPerf did not alter segment.ms or read nothing back');
  const min = Math.min(...out.passes.map((x) => x.records));
  const last = out.passes[out.passes.length - 1]!;
  // Compacted by the records a client reads: the end of the first pass that read the final count.
  const byCount = (out.passes.find((x) => x.records === min)!.endEpochMs - t0) / 1000;
  const before = samples.filter((x) => x.t <= t0).pop()?.bytes ?? null;
  Object.assign(m, { recordsBefore: out.produced.records, recordsAfter: min, keysAfter: last.keys, latestOk: last.latestOk ? 1 : 0, compacted: out.compacted ? 1 : 0, compactedByCountSec: byCount });
  Object.assign(m, { bytesBefore: before, bytesAfter, bytesAfterPerKey: bytesAfter ? bytesAfter / keys : null });
  if (before && bytesAfter) m.bytesShrink = before / bytesAfter;
  // Compacted by stored bytes: the first sample within 5 % of the way from the size before to the size after
  // (samples every SAMPLE_MS; a pass over the uncompacted log takes longer than that).
  let sec = byCount;
  if (before !== null && bytesAfter !== null && before > bytesAfter) {
    const hit = samples.find((x) => x.t > t0 && x.bytes <= bytesAfter + 0.05 * (before - bytesAfter));
    if (hit) sec = Math.min(sec, (hit.t - t0) / 1000);
  }
  m.compactSec = sec;
  if (out.produced.records > min && sec > 0) m.compactionRecordsPerSec = (out.produced.records - min) / sec;
  if (!out.compacted) row.notes!.push(`not compacted down to ${keys} keys (${out.reason}): smallest pass read ${min} records`);
  if (!last.latestOk) row.notes!.push(`last pass: ${last.keys} of ${keys} keys, not every key had its newest value`);
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
    ['produce to a compacted topic while the cleaner runs (B)', (s) => `${fmt(g(s, 'recordsPerSec'), 0)} records/s<br>${fmt(g(s, 'mbPerSec'), 1)} MiB/s`, ratio('recordsPerSec')],
    ['produce to a delete-policy topic (A, baseline)', (s) => `${fmt(g(s, 'baselineRecordsPerSec'), 0)} records/s<br>${fmt(g(s, 'baselineMbPerSec'), 1)} MiB/s`, ratio('baselineRecordsPerSec')],
    ['compacted / delete-policy produce rate', (s) => fmt(g(s, 'produceVsDelete'), 2), ratio('produceVsDelete')],
    ['**compaction speed** (C: records removed / time to compact)', (s) => `${fmt(g(s, 'compactionRecordsPerSec'), 0)} records/s`, ratio('compactionRecordsPerSec')],
    ['C: segment.ms lowered → stored bytes compacted / → reads return the compacted log (s)', (s) => `${fmt(g(s, 'compactSec'), 2)} / ${fmt(g(s, 'compactedByCountSec'), 2)}`, ratio('compactSec')],
    ['C: records before → after compaction', (s) => `${fmt(g(s, 'recordsBefore'), 0)} → ${fmt(g(s, 'recordsAfter'), 0)}`, '—'],
    ['stored bytes uncompacted (A after its produce / C before compaction)', (s) => `${B(g(s, 'bytesUncompacted'))} / ${B(g(s, 'bytesBefore'))}`, ratio('bytesBefore')],
    ['stored bytes of B at the end of its produce (cleaned while producing)', (s) => B(g(s, 'bytesAtProduceEnd')), ratio('bytesAtProduceEnd')],
    ['stored bytes of C after compaction', (s) => B(g(s, 'bytesAfter')), ratio('bytesAfter')],
    ['stored bytes per key after compaction', (s) => fmt(g(s, 'bytesAfterPerKey'), 0), ratio('bytesAfterPerKey')],
    ['newest value of every key kept (last pass)', (s) => (g(s, 'latestOk') === null ? 'n/a' : g(s, 'latestOk') === 1 ? 'yes' : 'no'), '—'],
  ];
  const L = [
    `**Compaction** (i): ${counts.compactRecords} keyed records of ${VALUE_SIZE} B over ${counts.compactKeys} keys (${counts.compactRecords / counts.compactKeys} updates per key), ` +
      `1 partition, acks=1, batch 1 MiB; compacted topics ${Object.entries(COMPACT_CONFIGS).map(([k, v]) => `${k}=${v}`).join(', ')} ` +
      `(C: segment.ms=${BACKLOG_CONFIGS['segment.ms']} while producing, then ${BACKLOG_ROLL_MS}); cleaner back-off ${CLEANER_BACKOFF_MS} ms. ` +
      'Stored bytes: Kafka .log segment bytes on disk; Runnel MEMORY USAGE of the partition streams :log + :clog. See bench/README.md, Compaction.',
    '',
    `| metric | ${cols.map((s) => SYSTEM_LABEL[s]).join(' | ')} | Runnel / Kafka |`,
    '|---|---:|---:|---:|',
    ...rows.map(([label, cell, rt]) => `| ${label} | ${cols.map((s) => (medians[s] ? cell(s) : 'n/a')).join(' | ')} | ${rt} |`),
  ];
  return L.join('\n');
}
