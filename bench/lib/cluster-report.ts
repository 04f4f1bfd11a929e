// Markdown for the cluster-scale family: throughput and CPU per record per
// cluster size, per-primary balance, scaling ratios, and the paper estimate
// of the reference system's 16-shard case from the per-record costs measured.
import type { ClusterConfig, ClusterScaleResult } from './cluster-scale.js';
import { summaryMarkdown } from './cpuprofile.js';
import type { MachineInfo, SoftwareInfo } from './machine.js';
import { fmt } from './stats.js';

/** The reference system's claim (issue 9): 1 KiB records from 8 producers over 16 shards. */
export const REFERENCE = { recordsPerSec: 380_952, shards: 16, producers: 8, recordSize: 1024 };
/** Assumed usable JavaScript-thread share of one core per broker process (Node runs the request path on one thread). */
export const BROKER_CORE_BUDGET = 0.8;
/** Assumed usable share of one core for a Redis main thread before its latency suffers. */
export const REDIS_CORE_BUDGET = 0.8;

export const CLUSTER_START = '<!-- bench:cluster:start -->';
export const CLUSTER_END = '<!-- bench:cluster:end -->';

const MiB = 1048576;

function configTitle(c: ClusterConfig): string {
  const r = c.replicasPerPrimary ? ` + ${c.primaries * c.replicasPerPrimary} replica${c.primaries * c.replicasPerPrimary > 1 ? 's' : ''}` : '';
  const isr = c.acks === 'all' ? `, min.insync.replicas=${c.minIsr}` : '';
  return `${c.primaries} primar${c.primaries === 1 ? 'y' : 'ies'}${r}, acks=${c.acks}${isr}`;
}

export interface ClusterEstimate {
  basis: string;
  brokerUs: number;
  redisUs: number;
  brokerUsPerBatch: number | null;
  redisUsPerBatch: number | null;
  storedBytesPerRecord: number | null;
  recordsPerBatch: number | null;
  clientUs: number | null;
  replicaUs: number | null;
  perShardRecords: number;
  perShardMiB: number;
  perShardRedisCores: number;
  perShardCeiling: number;
  clusterCeiling: number;
  brokerCores: number;
  brokerProcesses: number;
  clientCores: number | null;
  networkMiB: number;
}

/**
 * The 16-shard paper estimate, from the config with the most primaries and
 * acks=1 (or the first config with numbers).
 */
export function estimate(c: ClusterScaleResult): ClusterEstimate | null {
  const usable = c.configs.filter((x) => c.medians[x.id]?.brokerCpuUsPerRecord != null && c.medians[x.id]?.redisCpuUsPerRecord != null);
  if (!usable.length) return null;
  const base =
    usable.filter((x) => x.acks === '1' && !x.replicasPerPrimary).sort((a, b) => b.primaries - a.primaries)[0] ??
    usable.sort((a, b) => b.primaries - a.primaries)[0]!;
  const m = c.medians[base.id]!;
  const rep = c.configs.filter((x) => x.replicasPerPrimary && c.medians[x.id]?.replicaCpuUsPerRecord != null).sort((a, b) => b.primaries - a.primaries)[0];
  const T = REFERENCE.recordsPerSec;
  const S = REFERENCE.shards;
  const brokerUs = m.brokerCpuUsPerRecord!;
  const redisUs = m.redisCpuUsPerRecord!;
  const perShard = T / S;
  const brokerCores = (T * brokerUs) / 1e6;
  return {
    basis: base.id,
    brokerUs,
    redisUs,
    brokerUsPerBatch: m.brokerCpuUsPerBatch ?? null,
    redisUsPerBatch: m.redisCpuUsPerBatch ?? null,
    storedBytesPerRecord: m.storedBytesPerRecord ?? null,
    recordsPerBatch: m.recordsPerBatch ?? null,
    clientUs: m.clientCpuUsPerRecord ?? null,
    replicaUs: rep ? c.medians[rep.id]!.replicaCpuUsPerRecord! : null,
    perShardRecords: perShard,
    perShardMiB: (perShard * REFERENCE.recordSize) / MiB,
    perShardRedisCores: (perShard * redisUs) / 1e6,
    perShardCeiling: (1e6 / redisUs) * REDIS_CORE_BUDGET,
    clusterCeiling: ((S * 1e6) / redisUs) * REDIS_CORE_BUDGET,
    brokerCores,
    brokerProcesses: Math.ceil(brokerCores / BROKER_CORE_BUDGET),
    clientCores: m.clientCpuUsPerRecord != null ? (T * m.clientCpuUsPerRecord) / 1e6 : null,
    networkMiB: (T * REFERENCE.recordSize) / MiB,
  };
}

export function clusterMarkdown(c: ClusterScaleResult, meta: { timestamp: string; mode: string; machine: MachineInfo; software: SoftwareInfo }): string {
  const L: string[] = [];
  const med = (id: string, k: string): number | null => c.medians[id]?.[k] ?? null;
  L.push(
    `Run ${meta.timestamp} (${meta.mode}, median of ${c.runs} run${c.runs > 1 ? 's' : ''} per configuration, ${Math.round(c.durationSec / 60)} min). Machine: ${meta.machine.cores} cores (${meta.machine.cpuModel}), load average at start ${meta.machine.loadAvgAtStart.join(' / ')}. redis-server ${meta.software.redisServer}, Runnel ${meta.software.runnelCommit}.`,
  );
  L.push('');
  L.push(
    `${c.counts.producers} ProducerPerformance processes × ${fmt(c.counts.perProducer, 0)} records of ${c.counts.recordSize} B on one ${c.counts.partitions}-partition topic, \`batch.size=1048576 linger.ms=0\`; one broker process; everything (Redis nodes, broker, producer JVMs) on this machine.`,
  );
  L.push('');
  L.push(
    '**Throughput and CPU per record** (µs of CPU per record from /proc over the produce run; "Redis" is the sum over the primaries; "cores" = CPU seconds / wall seconds of the whole produce run, the producer JVMs\' start-up included):',
  );
  L.push('');
  L.push(
    '| cluster | records/s | MiB/s | vs 1 primary | broker µs/record | broker µs/batch | Redis µs/record | Redis µs/batch | replicas µs/record | records per batch | broker cores | Redis cores | machine cores | producer p50 / p99 ms |',
  );
  L.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const cfg of c.configs) {
    const id = cfg.id;
    const one = c.configs.find((x) => x.primaries === 1 && x.acks === cfg.acks && x.replicasPerPrimary === cfg.replicasPerPrimary && x.minIsr === cfg.minIsr);
    const ratio = one && one.id !== id && med(one.id, 'recordsPerSec') && med(id, 'recordsPerSec') ? `${(med(id, 'recordsPerSec')! / med(one.id, 'recordsPerSec')!).toFixed(2)}×` : one?.id === id ? '1.00×' : '—';
    L.push(
      `| ${configTitle(cfg)} | ${fmt(med(id, 'recordsPerSec'), 0)} | ${fmt(med(id, 'mbPerSec'), 1)} | ${ratio} | ${fmt(med(id, 'brokerCpuUsPerRecord'), 2)} | ${fmt(med(id, 'brokerCpuUsPerBatch'), 0)} | ${fmt(med(id, 'redisCpuUsPerRecord'), 2)} | ${fmt(med(id, 'redisCpuUsPerBatch'), 0)} | ${cfg.replicasPerPrimary ? fmt(med(id, 'replicaCpuUsPerRecord'), 2) : '—'} | ${fmt(med(id, 'recordsPerBatch'), 0)} | ${fmt(med(id, 'brokerCores'), 2)} | ${fmt(med(id, 'redisCores'), 2)} | ${fmt(med(id, 'machineCores'), 2)} | ${fmt(med(id, 'p50'), 0)} / ${fmt(med(id, 'p99'), 0)} |`,
    );
  }
  L.push('');
  const ratios: string[] = [];
  for (const cfg of c.configs.filter((x) => x.primaries === 1)) {
    const same = c.configs.filter((x) => x.primaries > 1 && x.acks === cfg.acks && x.replicasPerPrimary === cfg.replicasPerPrimary && x.minIsr === cfg.minIsr);
    const parts = same.map((x) => {
      const a = med(x.id, 'recordsPerSec');
      const b = med(cfg.id, 'recordsPerSec');
      return `${x.primaries}p/1p ${a && b ? `${(a / b).toFixed(2)}×` : '—'}`;
    });
    const label = cfg.replicasPerPrimary ? `acks=${cfg.acks} with ${cfg.replicasPerPrimary} replica per primary, min.insync.replicas=${cfg.minIsr}` : `acks=${cfg.acks}`;
    if (parts.length) ratios.push(`${label}: ${parts.join(', ')}`);
  }
  if (ratios.length) L.push(`Scaling of records/s: ${ratios.join('; ')}.`, '');

  L.push(
    '**Per primary** (median over the runs): partitions of the topic (`runnel placement --json`), bytes they hold (placement, MEMORY USAGE), `INFO commandstats` calls during the run (reset before it), connections whose last command was EXEC/XADD/WAIT at the end (`CLIENT LIST`: the append connections), and the CPU of that Redis process:',
  );
  L.push('');
  L.push('| cluster | primary | partitions | MiB held | XADD | EXEC | WAIT | INFO | other commands | append connections | µs/record | cores |');
  L.push('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const cfg of c.configs) {
    for (const s of c.shardMedians[cfg.id] ?? []) {
      L.push(
        `| ${configTitle(cfg)} | ${s.node} | ${fmt(s.partitions, 0)} | ${s.bytes == null ? '—' : fmt(s.bytes / MiB, 1)} | ${fmt(s.xadd, 0)} | ${fmt(s.exec, 0)} | ${fmt(s.wait, 0)} | ${fmt(s.info, 0)} | ${fmt(s.otherCalls, 0)} | ${fmt(s.appendConnections, 0)} | ${fmt(s.cpuUsPerRecord, 1)} | ${fmt(s.cores, 2)} |`,
      );
    }
  }
  L.push('');
  const spreads = c.configs
    .filter((x) => x.primaries > 1 && c.medians[x.id])
    .map((x) => `${x.id}: XADD ${fmt(med(x.id, 'xaddMaxOverMin'), 2)}, bytes ${fmt(med(x.id, 'bytesMaxOverMin'), 2)}, partitions ${fmt(med(x.id, 'partitionsMaxOverMin'), 2)}`);
  if (spreads.length) L.push(`Balance (max / min over the primaries, median over the runs): ${spreads.join('; ')}.`, '');

  const e = estimate(c);
  if (e) {
    const T = REFERENCE.recordsPerSec;
    L.push(`**Paper estimate: ${fmt(T, 0)} records/s of 1 KiB over ${REFERENCE.shards} shards** (the reference system's claim), from the per-record costs of "${e.basis}" above:`);
    L.push('');
    L.push('| quantity | value | how |');
    L.push('|---|---:|---|');
    L.push(`| per shard | ${fmt(e.perShardRecords, 0)} records/s, ${fmt(e.perShardMiB, 1)} MiB/s | ${fmt(T, 0)} / ${REFERENCE.shards}, placement even (measured above: within one partition) |`);
    L.push(`| Redis CPU per shard | ${fmt(e.perShardRedisCores, 2)} cores | × ${fmt(e.redisUs, 1)} µs/record measured (batches of ~${fmt(e.recordsPerBatch, 0)} records; fence script + XADD in MULTI/EXEC, AOF everysec) |`);
    L.push(`| one shard's ceiling | ${fmt(e.perShardCeiling, 0)} records/s | ${REDIS_CORE_BUDGET} of a core for the main thread / ${fmt(e.redisUs, 1)} µs/record |`);
    L.push(`| ${REFERENCE.shards} shards' ceiling (Redis side) | ${fmt(e.clusterCeiling, 0)} records/s | shards share nothing: ${REFERENCE.shards} × one shard |`);
    L.push(`| broker CPU | ${fmt(e.brokerCores, 1)} cores | ${fmt(T, 0)} × ${fmt(e.brokerUs, 1)} µs/record measured |`);
    L.push(`| broker processes | ${e.brokerProcesses} | at ≤ ${BROKER_CORE_BUDGET} core each (one JavaScript thread per process), on as many cores; partition leadership spreads over them by rendezvous hashing |`);
    if (e.replicaUs != null) L.push(`| Redis replicas (acks=all, min.insync.replicas=2) | ${fmt((T * e.replicaUs) / 1e6, 1)} cores | × ${fmt(e.replicaUs, 1)} µs/record measured on the replicas |`);
    if (e.clientCores != null) L.push(`| producers (8 Java clients, JVM start-up included) | ${fmt(e.clientCores, 1)} cores | × ${fmt(e.clientUs, 1)} µs/record measured; on the client machines |`);
    L.push(`| network | ${fmt(e.networkMiB, 0)} MiB/s (${fmt((e.networkMiB * MiB * 8) / 1e9, 1)} Gbit/s) | producers → brokers, and the same again brokers → Redis (again per replica) |`);
    if (e.storedBytesPerRecord != null) {
      const grow = (T * e.storedBytesPerRecord) / MiB;
      L.push(
        `| Redis memory and AOF growth | ${fmt(grow, 0)} MiB/s in all, ${fmt(grow / REFERENCE.shards, 1)} MiB/s per shard | × ${fmt(e.storedBytesPerRecord, 0)} B stored per record measured (MEMORY USAGE); a shard of 25 GiB fills in ${fmt((25 * 1024) / (grow / REFERENCE.shards) / 60, 0)} min without retention; the AOF is written at about the same rate |`,
      );
    }
    L.push('');
    L.push('Assumptions of the estimate:');
    L.push('');
    L.push(
      `- The costs per record are those measured here at ~${fmt(e.recordsPerBatch, 0)} records per stored batch; most of both sides' cost is per batch (broker ${fmt(e.brokerUsPerBatch, 0)} µs, Redis ${fmt(e.redisUsPerBatch, 0)} µs per batch), so smaller batches (a faster, less loaded broker acks sooner with \`linger.ms=0\`) cost more per record.`,
    );
    L.push(
      `- Nothing on the append path crosses shards (one append connection per primary per broker, no lock shared between partitions; see the per-primary table), so the Redis side adds up shard by shard, and brokers add up process by process (partition leadership is split between them; a broker holds one append connection to each primary).`,
    );
    L.push(
      `- A Redis main thread is given ${REDIS_CORE_BUDGET} of a core and a broker process ${BROKER_CORE_BUDGET} of a core (its JavaScript runs on one thread). The AOF is \`appendfsync everysec\`; AOF rewrites (forked children) and the consume side (fetches) are not counted.`,
    );
    L.push('- Loopback here: a real deployment adds the network stack on separate hosts, and its producers run elsewhere.');
    L.push('');
  }
  if (c.profile) {
    const p = c.profile;
    if (p.summary) {
      L.push(
        summaryMarkdown(p.summary, `Broker profile: ${p.primaries} primaries, acks=1, ${c.counts.producers} producers (${p.recordsPerSec ? `${fmt(p.recordsPerSec, 0)} records/s while profiled` : 'no rate'})`),
      );
    } else {
      L.push(`Broker profile on ${p.primaries} primaries: not available (${p.error ?? 'unknown error'}).`, '');
    }
  }
  const notes = new Set<string>();
  for (const r of c.rows) {
    for (const n of r.notes) notes.add(`${r.config}: ${n}`);
    if (r.error) notes.add(`${r.config} run ${r.run}: ERROR ${r.error.split('\n')[0]!.slice(0, 300)}`);
  }
  if (notes.size) {
    L.push('Notes from the runs:', '');
    for (const n of notes) L.push(`- ${n}`);
    L.push('');
  }
  return L.join('\n');
}
