// CPU profile of the Runnel broker under one workload: a fresh Redis + Runnel
// started with `node --cpu-prof`, the workload's producer run
// against it, then a graceful stop (SIGTERM -> process.exit) so V8 writes the
// .cpuprofile. (Node 20 does not accept --cpu-prof in NODE_OPTIONS, so the
// broker is started with the flag on its command line.) Not part of the timed runs (profiling costs a few percent).
import fs from 'node:fs';
import path from 'node:path';
import { producerPerf, runJava } from '../../test/helpers/java.js';
import { CACHE_DIR } from '../../test/helpers/procs.js';
import { startRedis } from '../../test/helpers/redis.js';
import { startRunnel } from '../../test/helpers/runnel.js';
import { summarise, type ProfileSummary } from './cpuprofile.js';
import { EXTRA_REDIS_ARGS, startRunnelSystem, startRunnelWithNodeArgs } from './systems.js';
import { topicName, type Counts } from './workloads.js';

export interface ProfileResult {
  workload: 'a' | 'c' | 'e';
  file: string;
  recordsPerSec: number | null;
  summary: ProfileSummary | null;
  error?: string;
}

export async function profileRunnel(workload: 'a' | 'c', counts: Counts, dir: string): Promise<ProfileResult> {
  fs.mkdirSync(dir, { recursive: true });
  const name = `runnel-${workload}.cpuprofile`;
  const file = path.join(dir, name);
  fs.rmSync(file, { force: true });
  const sys = await startRunnelSystem({ nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}`] });
  let rate: number | null = null;
  let error: string | undefined;
  try {
    const topic = topicName(`profile-${workload}`, 0);
    await sys.createTopic(topic, 1);
    const r =
      workload === 'a'
        ? await producerPerf({ bootstrap: sys.bootstrap, topic, numRecords: counts.a, recordSize: 1024, props: { acks: 1, 'batch.size': 1048576, 'linger.ms': 0 } })
        : await producerPerf({ bootstrap: sys.bootstrap, topic, numRecords: counts.c, recordSize: 1024 });
    rate = r.recordsPerSec;
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  } finally {
    await sys.stop();
  }
  if (!fs.existsSync(file)) return { workload, file, recordsPerSec: rate, summary: null, error: error ?? 'no .cpuprofile written (did the broker exit gracefully?)' };
  return { workload, file, recordsPerSec: rate, summary: summarise(file, 15), error };
}

/**
 * Profile of the fetch path only: workload a's records are produced through an
 * unprofiled broker, which is then stopped; a second broker started with
 * --cpu-prof on the same Redis serves AssignConsumerPerf reading them all back.
 */
export async function profileRunnelConsume(counts: Counts, dir: string): Promise<ProfileResult> {
  fs.mkdirSync(dir, { recursive: true });
  const name = 'runnel-e.cpuprofile';
  const file = path.join(dir, name);
  fs.rmSync(file, { force: true });
  const redis = await startRedis({ flavor: 'redis', appendonly: true, appendfsync: 'everysec', args: EXTRA_REDIS_ARGS });
  let rate: number | null = null;
  let error: string | undefined;
  try {
    const topic = topicName('profile-e', 0); // auto-created with 1 partition
    const writer = await startRunnel({ redisUrl: redis.url, env: { RUNNEL_LOG_LEVEL: 'warn' } });
    try {
      await producerPerf({ bootstrap: writer.bootstrap, topic, numRecords: counts.a, recordSize: 1024, props: { acks: 1, 'batch.size': 1048576, 'linger.ms': 0 } });
    } finally {
      await writer.stop();
    }
    const reader = await startRunnelWithNodeArgs(redis.url, ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}`], { RUNNEL_LOG_LEVEL: 'warn' });
    try {
      const r = await runJava('AssignConsumerPerf', [reader.bootstrap, topic, String(counts.a)], {
        classpath: [path.join(CACHE_DIR, 'bench-java')],
        jvmArgs: ['-Xmx1g'],
        timeoutMs: 300_000,
      });
      const m = /RESULT records=(\d+) bytes=(\d+) ms=([\d.]+)/.exec(r.stdout);
      if (m) rate = Number(m[1]) / (Number(m[3]) / 1000);
      else error = `AssignConsumerPerf printed no result: ${r.stderr.slice(-500)}`;
    } finally {
      await reader.stop();
    }
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  } finally {
    await redis.stop();
  }
  if (!fs.existsSync(file)) return { workload: 'e', file, recordsPerSec: rate, summary: null, error: error ?? 'no .cpuprofile written' };
  return { workload: 'e', file, recordsPerSec: rate, summary: summarise(file, 15), error };
}
