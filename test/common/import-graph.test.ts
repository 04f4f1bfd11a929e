// The import graph of the source tree goes broker -> common <- archiver only:
// code both processes need lives in common/, the archiver never imports the
// broker's code, the broker never imports the archiver's, and common/ imports
// neither. (cli/ starts both processes and may import all three.)
// Inside the broker, folders sit on floors (BROKER_LAYERS, bottom first): a
// file imports only its own floor or those below, the product has no import
// cycle, and the storage adapters (redis/, and lake/, the remote tier) are
// imported only by the wiring (broker.ts) and by each other.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The top-level part of the tree a repository path belongs to. */
type Part = 'broker' | 'archiver' | 'common' | 'other';
function partOf(path: string): Part {
  if (path.startsWith('broker/src/')) return 'broker';
  if (path.startsWith('archiver/src/')) return 'archiver';
  if (path.startsWith('common/')) return 'common';
  return 'other';
}

/** What each part may import besides itself and packages. */
const ALLOWED: Record<Exclude<Part, 'other'>, readonly Part[]> = {
  broker: ['common'],
  archiver: ['common'],
  common: [],
};

/** Relative module specifiers of a file: static and dynamic imports and re-exports. */
function specifiers(text: string): string[] {
  const out: string[] = [];
  const re = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[1]!);
  return out;
}

/** Every import that crosses the allowed direction, as `file -> target`. */
function violations(files: ReadonlyMap<string, string>): string[] {
  const bad: string[] = [];
  for (const [file, text] of files) {
    const from = partOf(file);
    if (from === 'other') continue;
    for (const spec of specifiers(text)) {
      const target = normalize(join(dirname(file), spec));
      const to = partOf(target);
      if (to !== from && !ALLOWED[from].includes(to)) bad.push(`${file} -> ${target}`);
    }
  }
  return bad;
}

/**
 * The broker's floors, bottom first. A folder of broker/src (or a top-level
 * file, by its name without .ts) imports only folders of its own floor or
 * below. The ports live in storage/ (and beside their domains: groups/,
 * transactions/, security/); their Redis implementations in redis/, on the
 * top floor with the wiring that builds them.
 */
export const BROKER_LAYERS: readonly (readonly string[])[] = [
  ['protocol', 'record-batch'],
  ['security', 'quotas'],
  ['config'],
  ['storage'],
  ['topics'],
  ['log'],
  ['cluster'],
  ['groups', 'fetch'],
  ['transactions'],
  ['handlers'],
  ['dispatch', 'http', 'server', 'schema-registry'],
  ['redis', 'lake', 'broker'],
];

/** The folder (or top-level module) of a broker/src path. */
function brokerRoom(path: string): string {
  const rest = path.slice('broker/src/'.length);
  const slash = rest.indexOf('/');
  return slash < 0 ? rest.replace(/\.(ts|js)$/, '') : rest.slice(0, slash);
}

function floorOf(room: string): number {
  return BROKER_LAYERS.findIndex((f) => f.includes(room));
}

/** Resolves a relative specifier of `file` to a repository path (.js -> .ts). */
function target(file: string, spec: string): string {
  return normalize(join(dirname(file), spec)).replace(/\.js$/, '.ts');
}

/** Broker imports that go up a floor, reach redis/ from outside the wiring, or come from an unplaced folder. */
function layerViolations(files: ReadonlyMap<string, string>): string[] {
  const bad: string[] = [];
  for (const [file, text] of files) {
    if (!file.startsWith('broker/src/')) continue;
    const from = brokerRoom(file);
    if (floorOf(from) < 0) {
      bad.push(`${file}: folder ${from} is on no floor of BROKER_LAYERS`);
      continue;
    }
    for (const spec of specifiers(text)) {
      const to = target(file, spec);
      if (!to.startsWith('broker/src/')) continue;
      const room = brokerRoom(to);
      if (room === from) continue;
      if ((room === 'redis' || room === 'lake') && from !== 'broker') bad.push(`${file} -> ${to} (only the wiring imports the storage adapters)`);
      else if (floorOf(room) > floorOf(from)) bad.push(`${file} -> ${to} (${from} is below ${room})`);
    }
  }
  return bad;
}

/** Every import cycle among the files (strongly connected components of more than one file, or a self-import). */
function cycles(files: ReadonlyMap<string, string>): string[][] {
  const edges = new Map<string, string[]>();
  for (const [file, text] of files) edges.set(file, specifiers(text).map((s) => target(file, s)).filter((t) => files.has(t)));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next); low.set(v, next); next++;
    stack.push(v); onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); }
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const comp: string[] = [];
      for (let w = stack.pop()!; ; w = stack.pop()!) { onStack.delete(w); comp.push(w); if (w === v) break; }
      if (comp.length > 1 || (edges.get(v) ?? []).includes(v)) out.push(comp.sort());
    }
  };
  for (const v of files.keys()) if (!index.has(v)) visit(v);
  return out;
}

function sources(dir: string, out = new Map<string, string>()): Map<string, string> {
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) sources(path, out);
    else if (/\.(ts|mts|mjs|js)$/.test(e.name)) out.set(relative(root, join(root, path)), readFileSync(join(root, path), 'utf8'));
  }
  return out;
}

describe('import graph', () => {
  it('goes broker -> common <- archiver only', () => {
    const files = new Map([...sources('broker/src'), ...sources('archiver/src'), ...sources('common')]);
    const imports = [...files.values()].flatMap(specifiers);
    // the scan sees the tree's imports (hundreds), including the archiver's and the broker's of common/
    expect(imports.length).toBeGreaterThan(500);
    expect([...files].some(([f, t]) => f.startsWith('archiver/') && specifiers(t).some((s) => s.includes('common/')))).toBe(true);
    expect([...files].some(([f, t]) => f.startsWith('broker/') && specifiers(t).some((s) => s.includes('common/')))).toBe(true);
    expect(violations(files)).toEqual([]);
  });

  it('has no import cycle in the product code', () => {
    const files = new Map([...sources('broker/src'), ...sources('archiver/src'), ...sources('common'), ...sources('cli')]);
    expect(files.size).toBeGreaterThan(300);
    expect(cycles(files)).toEqual([]);
  });

  it('keeps the broker on its floors: no import runs up, only the wiring imports redis/', () => {
    const files = sources('broker/src');
    // every folder of broker/src is on a floor (a new folder must be placed)
    const rooms = new Set([...files.keys()].map(brokerRoom));
    expect([...rooms].filter((r) => floorOf(r) < 0)).toEqual([]);
    expect(rooms.has('redis') && rooms.has('handlers') && rooms.has('storage')).toBe(true);
    expect(layerViolations(files)).toEqual([]);
  });

  it('names a cycle, an import up a floor and a redis/ import outside the wiring', () => {
    const files = new Map([
      ['broker/src/log/a.ts', "import { b } from '../groups/b.js';"],
      ['broker/src/groups/b.ts', "import { a } from '../log/a.js';"],
      ['broker/src/transactions/m.ts', "import type { S } from '../handlers/support/types.js';"],
      ['broker/src/handlers/support/types.ts', "import type { L } from '../../log/a.js';"],
      ['broker/src/http/c.ts', "import { s } from '../redis/status-report.js';"],
      ['broker/src/broker.ts', "import { s } from './redis/status-report.js';"],
      ['broker/src/redis/status-report.ts', "import { a } from '../log/a.js';"],
      ['broker/src/shiny/x.ts', ''],
    ]);
    expect(cycles(files)).toEqual([['broker/src/groups/b.ts', 'broker/src/log/a.ts']]);
    expect(layerViolations(files)).toEqual([
      'broker/src/log/a.ts -> broker/src/groups/b.ts (log is below groups)',
      'broker/src/transactions/m.ts -> broker/src/handlers/support/types.ts (transactions is below handlers)',
      'broker/src/http/c.ts -> broker/src/redis/status-report.ts (only the wiring imports the storage adapters)',
      'broker/src/shiny/x.ts: folder shiny is on no floor of BROKER_LAYERS',
    ]);
  });

  it('names an import against the direction', () => {
    const files = new Map([
      ['archiver/src/reader.ts', "import { x } from '../../broker/src/log/partition.js';\nimport { y } from '../../common/keys.js';"],
      ['broker/src/handlers/fetch.ts', "const m = await import('../../../archiver/src/main.js');"],
      ['common/redis/connect.ts', "export { z } from '../../broker/src/config/config.js';"],
      ['broker/src/broker.ts', "import './server/listener.js';\nimport { e } from '../../common/errors.js';"],
    ]);
    expect(violations(files)).toEqual([
      'archiver/src/reader.ts -> broker/src/log/partition.js',
      'broker/src/handlers/fetch.ts -> archiver/src/main.js',
      'common/redis/connect.ts -> broker/src/config/config.js',
    ]);
  });
});
