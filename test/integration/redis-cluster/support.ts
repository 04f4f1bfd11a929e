// Shared by the Redis Cluster tests: the placement report (`runnel placement
// --json`, the command operators use) and per-topic counts from it.
import { runCommand } from '../../helpers/procs.js';
import { RUNNEL_CLI } from '../../helpers/runnel.js';

export interface PrimaryPlacement {
  node: string;
  partitions: string[];
  bytes: number;
}

export async function placementReport(seeds: string): Promise<{ cluster: boolean; primaries: PrimaryPlacement[] }> {
  const r = await runCommand(process.execPath, [RUNNEL_CLI, 'placement', '--redis', seeds, '--json'], { timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`runnel placement failed (${r.code}): ${r.stderr.slice(-2000)}`);
  return JSON.parse(r.stdout) as { cluster: boolean; primaries: PrimaryPlacement[] };
}

/** Partitions of `topic` per primary ("host:port" -> count), every primary listed. */
export function countsOf(report: { primaries: PrimaryPlacement[] }, topic: string): Map<string, number> {
  return new Map(report.primaries.map((p) => [p.node, p.partitions.filter((x) => x.slice(0, x.lastIndexOf('/')) === topic).length]));
}

/** The primary ("host:port") that holds topic/partition according to the report. */
export function holderOf(report: { primaries: PrimaryPlacement[] }, topic: string, partition: number): string {
  const p = report.primaries.find((x) => x.partitions.includes(`${topic}/${partition}`));
  if (!p) throw new Error(`${topic}/${partition} is on no primary in the report`);
  return p.node;
}
