// Workload o: the shape of the OpenMessaging Benchmark's (OMB) standard
// workload `1-topic-16-partitions-1kb` (1 topic of 16 partitions, 1 KiB
// messages, 1 producer, 1 subscription with 1 consumer), reproduced with
// Kafka's own tools: at each fixed publish rate of a rising series,
// ProducerPerformance --throughput R writes while bench/java/AssignConsumerPerf
// reads at the tail, until the producer no longer holds the rate (saturation).
// Per step: the rate held, the publish (acknowledgement) latency p50 / p99 /
// p99.9, the end-to-end latency p50 / p99 / p99.9 (the consumer's receive
// time minus each record's CreateTime, one clock since all runs on one
// machine), and the server CPU per record.
import { cpuDelta, cpuMark } from './cpu.js';
import { fmt } from './stats.js';
import type { Counts, Ctx, Metrics, Row, WorkloadId } from './workloads.js';
import { assignConsumerPerf, errText, producerPerfSteady, topicName, warmupOf } from './workloads.js';
import { SYSTEM_LABEL, type System, type SystemName } from './systems.js';

export const OMB_WORKLOAD = '1-topic-16-partitions-1kb';
const PARTITIONS = 16;
/** A step whose producer held less than this share of its target rate is saturated: no higher step runs. */
const HELD = 0.9;

/** Producer settings: acks=all, 1 MiB batches, linger 1 ms. */
const PRODUCER = { acks: 'all', 'linger.ms': 1, 'batch.size': 1048576 };

export async function runOmb(sys: System, ctx: Ctx): Promise<Row> {
  const w: WorkloadId = 'o-omb';
  const row: Row = { workload: w, system: sys.name, run: ctx.run, metrics: {}, notes: [] };
  let best = 0;
  try {
    for (const [i, target] of ctx.counts.ombRates.entries()) {
      let topic = topicName(`${w}-${target}`, ctx.run);
      const records = Math.max(1000, Math.round(target * ctx.counts.ombStepSec));
      try {
        topic = await createWithRetry(sys, topic);
        const consumer = assignConsumerPerf(sys.bootstrap, topic, records);
        await new Promise((r) => setTimeout(r, 2500)); // the consumer is polling the empty partitions
        const cpu0 = cpuMark(sys.pids() as Record<string, number>);
        const p = await producerPerfSteady({ bootstrap: sys.bootstrap, topic, numRecords: records, warmup: warmupOf(records), recordSize: 1024, throughput: target, props: PRODUCER });
        const c = await consumer;
        const d = cpuDelta(cpu0, cpuMark(sys.pids() as Record<string, number>));
        const server = (d.procs.broker ?? 0) + (d.procs.redis ?? 0);
        const m: Metrics = {
          [`s${i}Target`]: target,
          [`s${i}Rate`]: p.steady.recordsPerSec,
          [`s${i}P50`]: p.steady.p50,
          [`s${i}P99`]: p.steady.p99,
          [`s${i}P999`]: p.steady.p999,
          [`s${i}ServerCpuUs`]: (server * 1e6) / Math.max(1, c.records),
          // end to end: the consumer's receive time minus the record's timestamp (after the warm-up tenth)
          [`s${i}E2eP50`]: c.e2e?.p50 ?? null,
          [`s${i}E2eP99`]: c.e2e?.p99 ?? null,
          [`s${i}E2eP999`]: c.e2e?.p999 ?? null,
        };
        Object.assign(row.metrics, m);
        if (c.records < records) row.notes!.push(`step ${target}/s: the consumer read ${c.records} of ${records}`);
        best = Math.max(best, p.steady.recordsPerSec);
        if (p.steady.recordsPerSec < HELD * target) {
          row.notes!.push(`saturated at the ${target} records/s step (held ${Math.round(p.steady.recordsPerSec)})`);
          break;
        }
      } catch (e) {
        // A failed step ends the series; the steps before it stand.
        if (best === 0) throw e;
        row.notes!.push(`the ${target} records/s step failed: ${errText(e).split('\n')[0]!.slice(0, 200)}`);
        break;
      } finally {
        await sys.deleteTopic(topic, PARTITIONS).catch(() => undefined);
      }
    }
    row.metrics.recordsPerSec = best;
  } catch (e) {
    row.error = errText(e);
  }
  return row;
}

/**
 * Creates the step's topic and returns its name. Kafka's admin at times fails a
 * create right after the previous step's delete (its leaders not known yet):
 * that topic is dropped and another name tried.
 */
async function createWithRetry(sys: System, topic: string): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const name = attempt === 1 ? topic : `${topic}-${attempt}`;
    try {
      await sys.createTopic(name, PARTITIONS);
      return name;
    } catch (e) {
      await sys.deleteTopic(name, PARTITIONS).catch(() => undefined);
      if (attempt >= 4) throw e;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

export function ombSummary(m: Metrics): string {
  const steps: string[] = [];
  for (let i = 0; m[`s${i}Target`] !== undefined; i++) {
    steps.push(`${fmt(m[`s${i}Target`], 0)}/s: ${fmt(m[`s${i}Rate`], 0)} held, p99 ${fmt(m[`s${i}P99`], 0)} ms, e2e p99 ${fmt(m[`s${i}E2eP99`], 0)} ms, ${fmt(m[`s${i}ServerCpuUs`], 1)} µs/record`);
  }
  return steps.join('; ');
}

/** The per-step table of workload o: Kafka and Runnel side by side. */
export function ombMarkdown(medians: Partial<Record<SystemName, Metrics>> | undefined, counts: Counts): string {
  if (!medians || !Object.keys(medians).length) return '';
  const systems = (['kafka', 'runnel'] as const).filter((s) => medians[s]);
  const g = (s: SystemName, k: string): number | null => medians[s]?.[k] ?? null;
  const L = [
    `**OMB \`${OMB_WORKLOAD}\`** (o): 1 topic, ${PARTITIONS} partitions, 1 KiB records, 1 producer (ProducerPerformance \`--throughput\` per step, acks=all, batch 1 MiB, linger 1 ms, ~${counts.ombStepSec} s per step, 10 % warm-up records left out) and 1 consumer at the tail (AssignConsumerPerf); steps rise until a producer holds less than ${HELD * 100} % of the target. Publish latency is the acknowledgement latency (ms); end to end (e2e) is the consumer's receive time minus each record's timestamp (ms, the records after the first tenth); server CPU is µs per record of the broker (Runnel: + its Redis) over the step.`,
    '',
    `| target records/s | ${systems.map((s) => `${SYSTEM_LABEL[s]} held | ${SYSTEM_LABEL[s]} publish p50 / p99 / p99.9 | ${SYSTEM_LABEL[s]} e2e p50 / p99 / p99.9 | ${SYSTEM_LABEL[s]} server µs/record`).join(' | ')} | server CPU Runnel / Kafka |`,
    `|---:|${systems.map(() => '---:|---:|---:|---:|').join('')}---:|`,
  ];
  for (const [i, target] of counts.ombRates.entries()) {
    if (systems.every((s) => g(s, `s${i}Target`) === null)) break;
    const cells = systems.map((s) =>
      `${fmt(g(s, `s${i}Rate`), 0)} | ${fmt(g(s, `s${i}P50`), 0)} / ${fmt(g(s, `s${i}P99`), 0)} / ${fmt(g(s, `s${i}P999`), 0)} | ` +
      `${fmt(g(s, `s${i}E2eP50`), 0)} / ${fmt(g(s, `s${i}E2eP99`), 0)} / ${fmt(g(s, `s${i}E2eP999`), 0)} | ${fmt(g(s, `s${i}ServerCpuUs`), 1)}`);
    const k = g('kafka', `s${i}ServerCpuUs`);
    const r = g('runnel', `s${i}ServerCpuUs`);
    L.push(`| ${fmt(target, 0)} | ${cells.join(' | ')} | ${k !== null && r !== null && k > 0 ? `${(r / k).toFixed(2)}×` : '—'} |`);
  }
  return L.join('\n');
}
