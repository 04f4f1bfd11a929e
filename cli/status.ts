// `runnel status [--json] [--verbose] [--internal] [broker flags]`: live
// brokers, every partition's leader, leader epoch, log end and archived offset
// (lake lag), consumer groups with their total lag (per partition with
// --verbose), and Redis memory per primary, read from the same Redis the
// brokers use. Internal topics (`__consumer_offsets`, one partition per
// coordinator slot) are left out unless --internal asks for them.
import { loadBrokerConfig } from '../broker/src/config/config.js';
import { statusReport, type StatusReport } from '../broker/src/redis/status-report.js';
import { isInternalTopic } from '../broker/src/log/internal-topics.js';
import { storeFromConfig } from './placement.js';

function table(header: string[], rows: string[][], right: Set<number> = new Set()): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]): string => r.map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)];
}

export function statusText(r: StatusReport, verbose = false): string {
  const out: string[] = [];
  const live = r.brokers.filter((b) => b.live);
  const led = new Map<number, number>();
  for (const t of r.topics) for (const p of t.partitions) if (p.leader !== null) led.set(p.leader, (led.get(p.leader) ?? 0) + 1);
  out.push(`brokers (${live.length} live${r.brokers.length > live.length ? `, ${r.brokers.length - live.length} expired` : ''})`);
  out.push(...table(['node', 'address', 'rack', 'state', 'leads', 'instance'], r.brokers.map((b) => [
    String(b.nodeId), `${b.host}:${b.port}`, b.rack ?? '-', b.live ? 'live' : 'expired', String(led.get(b.nodeId) ?? 0), b.instance ?? '-',
  ]), new Set([0, 4])).map((l) => `  ${l}`));
  out.push('');
  out.push(`topics (${r.topics.length})`);
  const rows: string[][] = [];
  for (const t of r.topics) {
    for (const p of t.partitions) {
      rows.push([t.name, String(p.partition), p.leader === null ? 'none' : String(p.leader), String(p.leaderEpoch), String(p.logStartOffset),
        String(p.logEndOffset), p.archivedOffset === null ? '-' : String(p.archivedOffset), p.lakeLagRecords === null ? '-' : String(p.lakeLagRecords)]);
    }
  }
  out.push(...table(['topic', 'partition', 'leader', 'epoch', 'log start', 'log end', 'archived', 'lake lag'], rows, new Set([1, 2, 3, 4, 5, 6, 7])).map((l) => `  ${l}`));
  out.push('');
  out.push(`groups (${r.groups.length})`);
  out.push(...table(['group', 'state', 'members', 'partitions', 'lag'], r.groups.map((g) => [
    g.groupId, g.state, String(g.members.length), String(g.partitions.length), String(g.totalLag),
  ]), new Set([2, 3, 4])).map((l) => `  ${l}`));
  if (verbose && r.groups.some((g) => g.partitions.length > 0)) {
    out.push('');
    out.push('group lag per partition');
    out.push(...table(['group', 'topic', 'partition', 'committed', 'log end', 'lag', 'client'], r.groups.flatMap((g) => g.partitions.map((p) => [
      g.groupId, p.topic, String(p.partition), p.committedOffset === null ? '-' : String(p.committedOffset),
      p.logEndOffset === null ? '-' : String(p.logEndOffset), p.lag === null ? '-' : String(p.lag), p.clientId ?? '-',
    ])), new Set([2, 3, 4, 5])).map((l) => `  ${l}`));
  }
  out.push('');
  out.push(`redis${r.cluster ? ' cluster' : ''} memory (${r.redis.length} primar${r.redis.length === 1 ? 'y' : 'ies'})`);
  out.push(...table(['primary', 'used', 'maxmemory'], r.redis.map((m) => [m.node, m.usedMemoryHuman, m.maxMemory ? String(m.maxMemory) : 'unlimited']), new Set([1, 2])).map((l) => `  ${l}`));
  return `${out.join('\n')}\n`;
}

/** The report without internal topics (`__consumer_offsets`); `runnel status --internal` keeps them. */
export function withoutInternalTopics(r: StatusReport): StatusReport {
  return { ...r, topics: r.topics.filter((t) => !isInternalTopic(t.name)) };
}

const OWN_FLAGS = new Set(['--json', '--verbose', '-V', '--internal']);

export async function statusCommand(args: string[]): Promise<void> {
  const json = args.includes('--json');
  const verbose = args.includes('--verbose') || args.includes('-V');
  const internal = args.includes('--internal');
  const store = storeFromConfig(loadBrokerConfig(args.filter((a) => !OWN_FLAGS.has(a))), 'status');
  try {
    await store.connect();
    const full = await statusReport(store);
    const report = internal ? full : withoutInternalTopics(full);
    process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : statusText(report, verbose));
  } finally {
    await store.close();
  }
}
