// The import graph of the source tree goes broker -> common <- archiver only:
// code both processes need lives in common/, the archiver never imports the
// broker's code, the broker never imports the archiver's, and common/ imports
// neither. (cli/ starts both processes and may import all three.)
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
