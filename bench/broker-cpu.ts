// Broker and Redis CPU of workload a (one producer, 1 KiB, acks=1, batch 1 MiB,
// linger 0) and of reading it back (e), twice against one fresh system, with
// node flags for the broker. For A/B checks of one broker-side change (GC
// flags, a code path); `npm run bench` remains the measurement of record.
//
//   node --import ./bench/lib/ts-loader.mjs bench/broker-cpu.ts [runnel|kafka] [records]
//   BROKER_NODE_ARGS="--trace-gc" ...   # then: grep -c Mark-Compact .cache/test-logs/*-runnel-*.log
//   LINGER_MS=50 ...                    # full 1 MiB batches on every system, so (e) reads the same layout
//
// The broker always gets cli/v8-flags.ts V8_STARTUP_FLAGS first; a later flag
// wins, so BROKER_NODE_ARGS="--initial-old-space-size=0" is the broker without
// the initial old-space size (V8's default).
import fs from 'node:fs';
import { producerPerf } from '../test/helpers/java.js';
import { startKafkaSystem, startRunnelSystem } from './lib/systems.js';
import { cpuDelta, cpuMark } from './lib/cpu.js';
import { assignConsumerPerf, BIG_BATCH, ensureBenchJava } from './lib/workloads.js';

const which = process.argv[2] ?? 'runnel';
const n = Number(process.argv[3] ?? 400_000);
// AssignConsumerPerf (bench/java) is compiled on first use, as `npm run bench` does.
await ensureBenchJava();
const nodeArgs = process.env.BROKER_NODE_ARGS?.split(' ').filter(Boolean);
const sys = which === 'kafka' ? await startKafkaSystem() : await startRunnelSystem(nodeArgs?.length ? { nodeArgs } : {});
const peakRssMb = (): string => {
  try {
    return (Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${sys.pids().broker}/status`, 'utf8'))![1]) / 1024).toFixed(0);
  } catch {
    return '?';
  }
};
/** CPU seconds of a process's reaped children (cutime + cstime): Redis's AOF-rewrite children. */
const childCpu = (pid: number | undefined): number => {
  if (!pid) return 0;
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[13]) + Number(f[14])) / 100;
};
let childMark = 0;
const line = (what: string, i: number, rate: number, d: ReturnType<typeof cpuDelta>): void => {
  const children = childCpu(sys.pids().redis) - childMark;
  childMark += children;
  console.log(`${which} ${what} run ${i}: ${Math.round(rate)} records/s, broker ${d.procs.broker?.toFixed(2)} CPU-s, redis ${d.procs.redis?.toFixed(2) ?? '-'} CPU-s, redis rewrite children ${children.toFixed(2)} CPU-s, client ${d.client?.toFixed(2)} CPU-s, machine ${d.machine?.toFixed(2)} CPU-s in ${d.wallS.toFixed(1)} s, broker peak RSS ${peakRssMb()} MB`);
};
try {
  for (let i = 0; i < 2; i++) {
    const topic = `broker-cpu-${i}`;
    await sys.createTopic(topic, 1);
    let c0 = cpuMark(sys.pids() as Record<string, number>);
    const r = await producerPerf({ bootstrap: sys.bootstrap, topic, numRecords: n, recordSize: 1024, props: { ...BIG_BATCH, 'linger.ms': Number(process.env.LINGER_MS ?? 0) } });
    line('produce', i, r.recordsPerSec, cpuDelta(c0, cpuMark(sys.pids() as Record<string, number>)));
    c0 = cpuMark(sys.pids() as Record<string, number>);
    const c = await assignConsumerPerf(sys.bootstrap, topic, n);
    line('consume', i, c.records / (c.ms / 1000), cpuDelta(c0, cpuMark(sys.pids() as Record<string, number>)));
  }
} finally {
  await sys.stop();
}
