// Summarises a V8 .cpuprofile (node --cpu-prof): self time per function and
// per file/package, inclusive time per function, GC and idle shares.
//
//   node --import ./bench/lib/ts-loader.mjs bench/lib/cpuprofile.ts <file.cpuprofile> [top]
//   node --import ./bench/lib/ts-loader.mjs bench/lib/cpuprofile.ts <file.cpuprofile> --callers <functionName>
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface FnStat {
  fn: string;
  where: string;
  selfMs: number;
  selfPct: number;
  totalMs: number;
  totalPct: number;
}

export interface ProfileSummary {
  file: string;
  wallMs: number;
  idleMs: number;
  busyMs: number;
  gcMs: number;
  /** Percentages are of busy (non-idle) time. */
  gcPct: number;
  programPct: number;
  top: FnStat[];
  topInclusive: FnStat[];
  byFile: Array<{ file: string; selfMs: number; selfPct: number }>;
}

const ROOT_URL = `file://${path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')}/`;

/** dist/broker/src/x.js -> broker/src/x.ts; node_modules/ioredis/built/... -> ioredis (package). */
export function where(url: string): { file: string; pkg: string } {
  if (!url) return { file: '(native)', pkg: '(native/V8)' };
  if (url.startsWith('node:')) return { file: url, pkg: 'node: (core)' };
  let u = url.startsWith(ROOT_URL) ? url.slice(ROOT_URL.length) : url.replace(/^file:\/\//, '');
  const nm = u.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = u.slice(nm + 'node_modules/'.length).split('/');
    const pkg = rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
    return { file: u.slice(nm + 'node_modules/'.length), pkg };
  }
  if (u.startsWith('dist/')) u = u.slice(5).replace(/\.js$/, '.ts');
  return { file: u, pkg: u };
}

export function summarise(file: string, topN = 15): ProfileSummary {
  const prof = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const n of prof.nodes) byId.set(n.id, n);
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  // Duration of sample i = timeDeltas[i + 1] (DevTools convention), in microseconds.
  const selfUs = new Map<number, number>();
  for (let i = 0; i < prof.samples.length; i++) {
    const d = prof.timeDeltas[i + 1] ?? 0;
    selfUs.set(prof.samples[i]!, (selfUs.get(prof.samples[i]!) ?? 0) + d);
  }

  const keyOf = (n: ProfileNode): string => {
    const w = where(n.callFrame.url);
    return `${n.callFrame.functionName || '(anonymous)'}\u0000${w.file}${n.callFrame.url ? `:${n.callFrame.lineNumber + 1}` : ''}`;
  };
  const selfByKey = new Map<string, number>();
  const selfByFile = new Map<string, number>();
  let idle = 0;
  let gc = 0;
  let program = 0;
  let total = 0;
  for (const [id, us] of selfUs) {
    const n = byId.get(id)!;
    total += us;
    const name = n.callFrame.functionName;
    if (name === '(idle)') {
      idle += us;
      continue;
    }
    if (name === '(garbage collector)') gc += us;
    if (name === '(program)') program += us;
    const k = keyOf(n);
    selfByKey.set(k, (selfByKey.get(k) ?? 0) + us);
    const pkg = name.startsWith('(') ? name : where(n.callFrame.url).pkg;
    selfByFile.set(pkg, (selfByFile.get(pkg) ?? 0) + us);
  }

  // Inclusive time: every distinct function on the sampled stack gets the sample once.
  const inclByKey = new Map<string, number>();
  const stackKeys = new Map<number, string[]>();
  const keysFor = (id: number): string[] => {
    let ks = stackKeys.get(id);
    if (ks) return ks;
    const set = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur)!;
      if (n.callFrame.functionName === '(root)') break;
      set.add(keyOf(n));
    }
    ks = [...set];
    stackKeys.set(id, ks);
    return ks;
  };
  for (const [id, us] of selfUs) {
    if (byId.get(id)!.callFrame.functionName === '(idle)') continue;
    for (const k of keysFor(id)) inclByKey.set(k, (inclByKey.get(k) ?? 0) + us);
  }

  const busy = total - idle;
  const pct = (us: number): number => (busy > 0 ? (100 * us) / busy : 0);
  const stat = (k: string): FnStat => {
    const [fn, w] = k.split('\u0000') as [string, string];
    const s = selfByKey.get(k) ?? 0;
    const t = inclByKey.get(k) ?? s;
    return { fn, where: w, selfMs: s / 1000, selfPct: pct(s), totalMs: t / 1000, totalPct: pct(t) };
  };
  return {
    file,
    wallMs: total / 1000,
    idleMs: idle / 1000,
    busyMs: busy / 1000,
    gcMs: gc / 1000,
    gcPct: pct(gc),
    programPct: pct(program),
    top: [...selfByKey].sort((a, b) => b[1] - a[1]).slice(0, topN).map(([k]) => stat(k)),
    topInclusive: [...inclByKey]
      .filter(([k]) => !k.startsWith('('))
      .sort((a, b) => b[1] - a[1])
      .slice(0, topN)
      .map(([k]) => stat(k)),
    byFile: [...selfByFile].sort((a, b) => b[1] - a[1]).slice(0, topN).map(([f, us]) => ({ file: f, selfMs: us / 1000, selfPct: pct(us) })),
  };
}

/**
 * Where a function's self time comes from: its sampled call stacks (innermost
 * `depth` frames above it), heaviest first.
 */
export function callers(file: string, fn: string, depth = 6, topN = 8): Array<{ ms: number; stack: string[] }> {
  const prof = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const n of prof.nodes) byId.set(n.id, n);
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const acc = new Map<string, number>();
  for (let i = 0; i < prof.samples.length; i++) {
    const n = byId.get(prof.samples[i]!)!;
    if (n.callFrame.functionName !== fn) continue;
    const stack: string[] = [];
    for (let cur = parent.get(n.id); cur !== undefined && stack.length < depth; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      if (f.functionName === '(root)') break;
      stack.push(`${f.functionName || '(anonymous)'} ${where(f.url).file}${f.url ? `:${f.lineNumber + 1}` : ''}`);
    }
    const k = stack.join(' <- ');
    acc.set(k, (acc.get(k) ?? 0) + (prof.timeDeltas[i + 1] ?? 0));
  }
  return [...acc]
    .sort((a, b) => b[1] - a[1])
    .slice(0, topN)
    .map(([k, us]) => ({ ms: us / 1000, stack: k.split(' <- ') }));
}

export function summaryMarkdown(s: ProfileSummary, title: string): string {
  const f1 = (x: number): string => x.toFixed(1);
  const lines = [
    `#### ${title}`,
    '',
    `Wall ${f1(s.wallMs / 1000)} s, busy (not idle) ${f1(s.busyMs / 1000)} s; GC ${f1(s.gcPct)} % of busy, (program) ${f1(s.programPct)} % of busy.`,
    '',
    '| self % | self ms | total % | function | where (dist line) |',
    '|---:|---:|---:|---|---|',
    ...s.top.map((t) => `| ${f1(t.selfPct)} | ${Math.round(t.selfMs)} | ${f1(t.totalPct)} | \`${t.fn}\` | ${t.where} |`),
    '',
    'Self time by package / file:',
    '',
    '| self % | package or file |',
    '|---:|---|',
    ...s.byFile.slice(0, 10).map((b) => `| ${f1(b.selfPct)} | ${b.file} |`),
    '',
  ];
  return lines.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: cpuprofile.ts <file.cpuprofile> [top]\n');
    process.exit(2);
  }
  if (process.argv[3] === '--callers') {
    for (const c of callers(file, process.argv[4] ?? '', 8, 10)) process.stdout.write(`${c.ms.toFixed(0).padStart(6)} ms  ${c.stack.join('\n           <- ')}\n`);
    process.exit(0);
  }
  const s = summarise(file, Number(process.argv[3] ?? 20));
  process.stdout.write(summaryMarkdown(s, path.basename(file)));
  process.stdout.write('\nInclusive (total) time, top functions:\n\n');
  for (const t of s.topInclusive) process.stdout.write(`  ${t.totalPct.toFixed(1).padStart(5)} %  ${t.fn}  ${t.where}\n`);
}
