// Workload p: consumer groups on Kafka 4.4 and Runnel, side by side, with
// bench/java/GroupPerf (the same client code on both brokers):
//   - consume: `counts.groups` records of 100 B in a 16-partition topic read by
//     one consumer of a fresh group, classic protocol then KIP-848
//     (group.protocol=consumer): records/s after the first record arrived, the
//     join time (subscribe to first record), and the server CPU per record
//     (broker + its Redis) across the whole consume;
//   - rebalance: a member joins a group whose one member owns all 16
//     partitions: the time until the two own 8 + 8 (both protocols);
//   - share: `counts.share` records of 100 B in a 1-partition topic read by
//     `SHARE_CONSUMERS` share consumers of one share group (KIP-932,
//     share.auto.offset.reset=earliest set as a group config), each record
//     acknowledged ACCEPT on its own: records/s from the consumers' start to
//     the last accept, deliveries (a record delivered twice counts twice) and
//     server CPU per record. Only where the broker advertises share groups.
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { runJava } from '../../test/helpers/java.js';
import { cpuDelta, cpuMark } from './cpu.js';
import { fmt } from './stats.js';
import type { System, SystemName } from './systems.js';
import { BENCH_JAVA_CP, cpuMetrics, errText, producerPerfSteady, topicName, type Counts, type Ctx, type Metrics, type Row } from './workloads.js';

export const GROUP_PARTITIONS = 16;
export const SHARE_CONSUMERS = 3;
const RECORD_BYTES = 100;
const PROTOCOLS = ['classic', 'consumer'] as const;
type Protocol = (typeof PROTOCOLS)[number];
const P = { classic: 'classic', consumer: 'kip848' } as const;

async function groupPerf(args: string[]): Promise<Record<string, string>> {
  const r = await runJava('GroupPerf', args, { classpath: [BENCH_JAVA_CP], jvmArgs: ['-Xmx1g'], timeoutMs: 400_000 });
  const m = /RESULT (.*)/.exec(r.stdout);
  if (!m) throw new Error(`GroupPerf ${args[0]} printed no result (code ${r.code}):\n${r.stdout.slice(-1000)}\n${r.stderr.slice(-3000)}`);
  return Object.fromEntries(m[1]!.trim().split(/\s+/).map((kv) => kv.split('=') as [string, string]));
}

/** GroupPerf's result, and the CPU of the broker and its Redis per record (its `records`) while it ran. */
async function withServerCpu(sys: System, args: string[]): Promise<{ out: Record<string, string>; cpu: Metrics }> {
  const c0 = cpuMark(sys.pids() as Record<string, number>);
  const out = await groupPerf(args);
  const cpu = cpuMetrics(cpuDelta(c0, cpuMark(sys.pids() as Record<string, number>)), Math.max(1, Number(out.records)));
  return { out, cpu };
}

export async function runGroups(sys: System, ctx: Ctx, shareGroups: boolean): Promise<Row> {
  const row: Row = { workload: 'p-groups', system: sys.name, run: ctx.run, metrics: {}, notes: [] };
  const m = row.metrics;
  const topic = topicName('p', ctx.run);
  const share = `${topicName('p-share', ctx.run)}-${randomBytes(2).toString('hex')}`;
  try {
    await sys.createTopic(topic, GROUP_PARTITIONS);
    const n = ctx.counts.groups;
    await producerPerfSteady({ bootstrap: sys.bootstrap, topic, numRecords: n, warmup: 0, recordSize: RECORD_BYTES, props: { acks: 1, 'batch.size': 1048576, 'linger.ms': 5 } });
    const protocols = PROTOCOLS.filter((x) => x === 'consumer' || ctx.counts.groupsClassic);
    for (const proto of protocols) {
      const p = P[proto];
      const { out, cpu } = await withServerCpu(sys, ['consume', sys.bootstrap, topic, String(n), proto]);
      const got = Number(out.records);
      if (got < n) row.notes!.push(`${proto}: read ${got} of ${n} records`);
      const [ms, firstMs] = [Number(out.ms), Number(out.firstMs)];
      m[`${p}RecordsPerSec`] = ms > firstMs ? got / ((ms - firstMs) / 1000) : null;
      m[`${p}JoinMs`] = firstMs;
      m[`${p}ServerCpuUsPerRecord`] = (cpu.brokerCpuUsPerRecord ?? 0) + (cpu.redisCpuUsPerRecord ?? 0);
      m[`${p}BrokerCpuUsPerRecord`] = cpu.brokerCpuUsPerRecord ?? null;
      m[`${p}RedisCpuUsPerRecord`] = cpu.redisCpuUsPerRecord ?? null;
    }
    for (const proto of protocols) {
      const out = await groupPerf(['rebalance', sys.bootstrap, topic, String(GROUP_PARTITIONS), proto]);
      m[`${P[proto]}RebalanceMs`] = Number(out.rebalanceMs);
    }
    m.recordsPerSec = m.kip848RecordsPerSec ?? null;
    m.records = n;
    if (shareGroups) {
      await sys.createTopic(share, 1);
      const sn = ctx.counts.share;
      await producerPerfSteady({ bootstrap: sys.bootstrap, topic: share, numRecords: sn, warmup: 0, recordSize: RECORD_BYTES, props: { acks: 1, 'batch.size': 1048576, 'linger.ms': 5 } });
      const { out, cpu } = await withServerCpu(sys, ['share', sys.bootstrap, share, String(sn), String(SHARE_CONSUMERS)]);
      const got = Number(out.records);
      if (got < sn) row.notes!.push(`share: accepted ${got} of ${sn} records`);
      m.shareRecordsPerSec = got / (Number(out.ms) / 1000);
      m.shareDeliveries = Number(out.deliveries);
      m.shareServerCpuUsPerRecord = (cpu.brokerCpuUsPerRecord ?? 0) + (cpu.redisCpuUsPerRecord ?? 0);
      m.shareConsumersServed = out.perConsumer!.split(',').filter((x) => Number(x) > 0).length;
    } else {
      row.notes!.push('share groups: not advertised by this broker (ShareFetch)');
    }
  } catch (e) {
    row.error = errText(e);
  } finally {
    await sys.deleteTopic(topic, GROUP_PARTITIONS).catch(() => undefined);
    if (shareGroups) await sys.deleteTopic(share, 1).catch(() => undefined);
  }
  return row;
}

/** The highest version of `apiKey` the broker at `bootstrap` advertises (ApiVersions v0 over a bare socket), -1 when none. */
export async function maxApiVersion(bootstrap: string, apiKey: number): Promise<number> {
  const [host, port] = [bootstrap.slice(0, bootstrap.lastIndexOf(':')), Number(bootstrap.slice(bootstrap.lastIndexOf(':') + 1))];
  const client = Buffer.from('bench');
  const req = Buffer.alloc(4 + 2 + 2 + 4 + 2 + client.length);
  req.writeInt32BE(req.length - 4, 0);
  req.writeInt16BE(18, 4); // ApiVersions
  req.writeInt16BE(0, 6);
  req.writeInt32BE(1, 8);
  req.writeInt16BE(client.length, 12);
  client.copy(req, 14);
  const body = await new Promise<Buffer>((resolve, reject) => {
    const sock = net.connect(port, host, () => sock.write(req));
    let buf = Buffer.alloc(0);
    sock.setTimeout(10_000, () => sock.destroy(new Error('ApiVersions timed out')));
    sock.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= 4 && buf.length >= 4 + buf.readInt32BE(0)) {
        sock.end();
        resolve(buf.subarray(4, 4 + buf.readInt32BE(0)));
      }
    });
    sock.on('error', reject);
  });
  // v0 response: correlation id, error code, [api key, min, max]
  const n = body.readInt32BE(6);
  for (let i = 0, o = 10; i < n; i++, o += 6) if (body.readInt16BE(o) === apiKey) return body.readInt16BE(o + 4);
  return -1;
}

export function groupsSummary(m: Metrics): string {
  const one = (p: string, label: string): string =>
    `${label} ${fmt(m[`${p}RecordsPerSec`], 0)} records/s, join ${fmt(m[`${p}JoinMs`], 0)} ms, server ${fmt(m[`${p}ServerCpuUsPerRecord`], 2)} µs/record, rebalance ${fmt(m[`${p}RebalanceMs`], 0)} ms`;
  const share = m.shareRecordsPerSec != null ? `; share ${fmt(m.shareRecordsPerSec, 0)} records/s, server ${fmt(m.shareServerCpuUsPerRecord, 2)} µs/record` : '';
  return `${one('classic', 'classic')}; ${one('kip848', 'KIP-848')}${share}`;
}

/** The consumer-groups section of the results Markdown ('' when workload p did not run). */
export function groupsMarkdown(medians: Partial<Record<SystemName, Metrics>> | undefined, counts: Counts): string {
  if (!medians || !Object.keys(medians).length) return '';
  const g = (s: SystemName, k: string): number | null => medians[s]?.[k] ?? null;
  const ratio = (a: number | null, b: number | null): string => (a !== null && b !== null && a > 0 && b > 0 ? `${(a / b).toFixed(2)}×` : '—');
  const L = [
    `**Consumer groups** (p): ${fmt(counts.groups, 0)} records of ${RECORD_BYTES} B in ${GROUP_PARTITIONS} partitions read by one consumer of a fresh group ` +
      '(bench/java/GroupPerf), classic protocol and KIP-848 (`group.protocol=consumer`): records/s after the first record, join = subscribe to first record, ' +
      `server CPU = broker + its Redis per record over the whole read; rebalance = a second member joining a ${GROUP_PARTITIONS}-partition group until the two own 8 + 8. ` +
      `Share groups (KIP-932): ${fmt(counts.share, 0)} records of ${RECORD_BYTES} B to one partition, ${SHARE_CONSUMERS} share consumers, each record acknowledged ACCEPT on its own; ` +
      'records/s from the consumers\' start to the last accept. Median of the runs; ratios are Runnel / Kafka.',
    '',
    '| measure | Apache Kafka | Runnel | Runnel / Kafka |',
    '|---|---:|---:|---:|',
  ];
  const line = (label: string, key: string, digits: number): void => {
    const [k, r] = [g('kafka', key), g('runnel', key)];
    L.push(`| ${label} | ${fmt(k, digits)} | ${fmt(r, digits)} | ${ratio(r, k)} |`);
  };
  for (const [p, label] of [['classic', 'classic'], ['kip848', 'KIP-848']] as const) {
    line(`${label}: records/s`, `${p}RecordsPerSec`, 0);
    line(`${label}: join ms`, `${p}JoinMs`, 0);
    line(`${label}: server CPU µs/record`, `${p}ServerCpuUsPerRecord`, 2);
    line(`${label}: rebalance ms (member joins, ${GROUP_PARTITIONS} partitions)`, `${p}RebalanceMs`, 0);
  }
  line('share: records/s', 'shareRecordsPerSec', 0);
  line('share: deliveries', 'shareDeliveries', 0);
  line('share: server CPU µs/record', 'shareServerCpuUsPerRecord', 2);
  return L.join('\n');
}
