// CPU time accounting from /proc (Linux): per process (utime + stime of all
// its threads) and for the whole machine (non-idle time of all cores).
import fs from 'node:fs';

const TICK = 100; // USER_HZ; Linux reports /proc times in 1/100 s on every mainstream architecture

/** CPU seconds used so far by a process, or null if it is gone / not Linux. */
export function processCpuSeconds(pid: number): number | null {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / TICK;
  } catch {
    return null;
  }
}

/** /proc/<pid>/stat fields after the command name: [state, ppid, ...]; null when gone. */
function statFields(pid: number | string): string[] | null {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return s.slice(s.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * CPU seconds of a server process and of every process it forked, so far: its
 * utime + stime, plus cutime + cstime (children it has reaped), plus the same
 * of each child still running (found by parent pid, recursively). A Redis AOF
 * rewrite or RDB child is so counted while it runs and, once Redis has reaped
 * it, in Redis's own cutime/cstime: the total only grows.
 */
export function processTreeCpuSeconds(pid: number): number | null {
  const own = statFields(pid);
  if (!own) return null;
  const byParent = new Map<number, number[]>();
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const f = statFields(e);
    if (!f) continue;
    const ppid = Number(f[1]);
    if (!byParent.has(ppid)) byParent.set(ppid, []);
    byParent.get(ppid)!.push(Number(e));
  }
  const total = (f: string[]): number => (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / TICK;
  let sum = total(own);
  const stack = [...(byParent.get(pid) ?? [])];
  while (stack.length) {
    const c = stack.pop()!;
    const f = statFields(c);
    if (!f) continue; // exited between the scan and now: Redis reaps it into its cutime/cstime
    sum += total(f);
    stack.push(...(byParent.get(c) ?? []));
  }
  return sum;
}

/** Busy CPU seconds of the whole machine so far (all cores; idle and iowait excluded). */
export function machineBusySeconds(): number | null {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
    return (total - v[3]! - v[4]!) / TICK;
  } catch {
    return null;
  }
}

/**
 * CPU seconds of this process plus its children that have exited and been
 * reaped (cutime + cstime): across a workload, the bench driver and the
 * load-generator JVMs it ran to completion, and nothing else on the machine.
 */
export function selfAndReapedChildrenCpuSeconds(): number | null {
  try {
    const s = fs.readFileSync('/proc/self/stat', 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / TICK;
  } catch {
    return null;
  }
}

export interface CpuMark {
  at: number;
  procs: Record<string, number | null>;
  machine: number | null;
  client: number | null;
}

export function cpuMark(pids: Record<string, number>): CpuMark {
  const procs: Record<string, number | null> = {};
  // server processes with their forked children (Redis's AOF-rewrite children among them)
  for (const [k, pid] of Object.entries(pids)) procs[k] = processTreeCpuSeconds(pid);
  return { at: Date.now(), procs, machine: machineBusySeconds(), client: selfAndReapedChildrenCpuSeconds() };
}

export interface CpuDelta {
  wallS: number;
  procs: Record<string, number | null>;
  machine: number | null;
  client: number | null;
}

/** CPU seconds used between two marks: per server process, by the clients, and by the whole machine. */
export function cpuDelta(a: CpuMark, b: CpuMark): CpuDelta {
  const procs: Record<string, number | null> = {};
  for (const k of Object.keys(a.procs)) {
    const x = a.procs[k];
    const y = b.procs[k];
    procs[k] = x === null || x === undefined || y === null || y === undefined ? null : y - x;
  }
  const d = (x: number | null, y: number | null): number | null => (x === null || y === null ? null : y - x);
  return { wallS: (b.at - a.at) / 1000, procs, machine: d(a.machine, b.machine), client: d(a.client, b.client) };
}
