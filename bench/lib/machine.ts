// Machine and software facts recorded with every result.
import os from 'node:os';
import { kafkaJarVersion } from '../../test/helpers/java.js';
import { runCommand } from '../../test/helpers/procs.js';

export interface MachineInfo {
  cores: number;
  cpuModel: string;
  memoryGiB: number;
  kernel: string;
  loadAvgAtStart: number[];
}

export interface SoftwareInfo {
  node: string;
  redisServer: string;
  kafkaJars: string;
  java: string;
  runnelCommit: string;
}

export function machineInfo(): MachineInfo {
  return {
    cores: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model?.trim() ?? 'unknown',
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    kernel: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAvgAtStart: os.loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

export async function softwareInfo(): Promise<SoftwareInfo> {
  const redis = await runCommand('redis-server', ['--version'], { timeoutMs: 10_000 });
  const java = await runCommand('java', ['-version'], { timeoutMs: 30_000 });
  const head = await runCommand('git', ['rev-parse', '--short', 'HEAD'], { timeoutMs: 10_000 });
  const dirty = await runCommand('git', ['status', '--porcelain', '--', 'broker', 'cli'], { timeoutMs: 10_000 });
  return {
    node: process.version,
    redisServer: /v=(\S+)/.exec(redis.stdout)?.[1] ?? redis.stdout.trim(),
    kafkaJars: kafkaJarVersion(),
    java: (java.stderr.split('\n')[0] ?? '').trim(),
    runnelCommit: `${head.stdout.trim()}${dirty.stdout.trim() ? ' (+ uncommitted changes in broker/ or cli/)' : ''}`,
  };
}
