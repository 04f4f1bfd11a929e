// `runnel status [--json] [--verbose] [--internal] [broker flags]`: live
// brokers, every partition's leader, leader epoch, log end and archived offset
// (lake lag), consumer groups with their total lag (per partition with
// --verbose), and Redis memory per primary, read from the same Redis the
// brokers use. Internal topics (`__consumer_offsets`, one partition per
// coordinator slot) are left out unless --internal asks for them.
// `--watch [--interval S]` refreshes the report every S seconds (default 2)
// until SIGINT (Ctrl-C) or SIGTERM, which exit 0: on a terminal the screen is
// redrawn; otherwise (a pipe, a file) each report follows the last, text under
// a `--- runnel status <time>` line, and --json one compact object per line.
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

const OWN_FLAGS = new Set(['--json', '--verbose', '-V', '--internal', '--watch']);

/** Seconds between reports of --watch unless --interval says otherwise. */
export const DEFAULT_WATCH_INTERVAL_S = 2;

/** The arguments without status's own flags (`--interval S` and `--interval=S` included): the broker settings. */
function brokerArgs(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--interval') i++;
    else if (!OWN_FLAGS.has(a) && !a.startsWith('--interval=')) out.push(a);
  }
  return out;
}

/** The value of --interval in seconds (main.ts has checked it is a number > 0). */
function intervalSeconds(args: string[]): number {
  const i = args.indexOf('--interval');
  const raw = i >= 0 ? args[i + 1] : args.find((a) => a.startsWith('--interval='))?.slice('--interval='.length);
  return raw === undefined ? DEFAULT_WATCH_INTERVAL_S : Number(raw);
}

// Cursor home, then erase the screen: the next report is drawn where the last was.
const REDRAW = '\u001b[H\u001b[2J';

export interface WatchOptions {
  intervalMs: number;
  /** Redraw the screen (a terminal) instead of appending reports. */
  tty: boolean;
  /** JSON reports: pretty when redrawn, one compact object per line when appended. */
  json: boolean;
  write(text: string): void;
  /** Resolves when watching should stop (SIGINT); a report being read then is not written. */
  stop: Promise<void>;
  now?: () => Date;
}

/**
 * Writes `report()` every `intervalMs` until `stop`. A report that fails (Redis
 * briefly away) is written as its error and the watch goes on.
 */
export async function watchStatus(report: () => Promise<StatusReport>, text: (r: StatusReport) => string, o: WatchOptions): Promise<void> {
  let stopped = false;
  void o.stop.then(() => { stopped = true; });
  const now = o.now ?? (() => new Date());
  const seconds = o.intervalMs / 1000;
  while (!stopped) {
    let body: string;
    let r: StatusReport | null = null;
    try {
      r = await report();
      body = o.json ? `${JSON.stringify(r, null, o.tty ? 2 : undefined)}\n` : text(r);
    } catch (e) {
      body = `status failed: ${e instanceof Error ? e.message : String(e)}\n`;
      if (o.json && !o.tty) body = `${JSON.stringify({ error: e instanceof Error ? e.message : String(e) })}\n`;
    }
    if (stopped) break;
    const head = `runnel status at ${now().toISOString()}, every ${seconds}s (Ctrl-C to stop)`;
    if (o.tty) o.write(`${REDRAW}${head}\n\n${body}`);
    else o.write(o.json ? body : `--- ${head}\n${body}\n`);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([o.stop, new Promise<void>((resolve) => { timer = setTimeout(resolve, o.intervalMs); })]);
    clearTimeout(timer);
  }
}

export async function statusCommand(args: string[]): Promise<void> {
  const json = args.includes('--json');
  const verbose = args.includes('--verbose') || args.includes('-V');
  const internal = args.includes('--internal');
  const watch = args.includes('--watch');
  const store = storeFromConfig(loadBrokerConfig(brokerArgs(args)), 'status');
  const report = async (): Promise<StatusReport> => {
    const full = await statusReport(store);
    return internal ? full : withoutInternalTopics(full);
  };
  try {
    await store.connect();
    if (!watch) {
      const r = await report();
      process.stdout.write(json ? `${JSON.stringify(r, null, 2)}\n` : statusText(r, verbose));
      return;
    }
    // Ctrl-C (or SIGTERM) ends the watch normally: the store is closed and the exit code is 0.
    let onSignal = (): void => undefined;
    const stop = new Promise<void>((resolve) => { onSignal = resolve; });
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      await watchStatus(report, (r) => statusText(r, verbose), {
        intervalMs: intervalSeconds(args) * 1000, tty: process.stdout.isTTY === true, json, stop,
        write: (t) => { process.stdout.write(t); },
      });
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  } finally {
    await store.close();
  }
}
