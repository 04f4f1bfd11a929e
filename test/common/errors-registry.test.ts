// The internal error registry (common/errors.ts), checked as fastify checks
// its errors: every RN code is raised somewhere in product code and named in
// the documentation, the documentation names no code the registry lacks, and
// no number is given twice or taken back from the retired ones.
// "Raised": product code outside the registry names the kind (new
// RunnelError('KIND', ...), or a kind-typed value it passes to one), or the
// registry's own subclass for the kind (ProtocolError) is constructed there.
// "Documentation": every Markdown file outside test/ and the dependency and
// build folders (README.md, docs/, archiver/README.md, ...), wherever the
// list of codes lives.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Internal, RETIRED_CODES } from '../../common/errors.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const REGISTRY = 'common/errors.ts';
const PRODUCT = ['broker/src', 'common', 'archiver/src', 'cli'];
const NOT_DOCS = new Set(['node_modules', 'dist', 'test', '.git', '.cache']);

/** Files under `dir` (repository-relative) whose names match `re`, skipping the folders in `skip`. */
function files(dir: string, re: RegExp, skip: ReadonlySet<string> = new Set(['node_modules', 'dist'])): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const e of readdirSync(join(root, d), { withFileTypes: true })) {
      if (skip.has(e.name)) continue;
      const path = d === '.' ? e.name : `${d}/${e.name}`;
      if (e.isDirectory()) walk(path);
      else if (re.test(e.name)) out.set(relative(root, join(root, path)), readFileSync(join(root, path), 'utf8'));
    }
  };
  walk(dir);
  return out;
}

/** Kinds of the registry that no product source raises (see the head comment). */
function unraised(kinds: readonly string[], registry: string, sources: ReadonlyMap<string, string>): string[] {
  const subclassOf = new Map<string, string>();
  for (const m of registry.matchAll(/class (\w+) extends RunnelError[\s\S]*?super\(\s*'(\w+)'/g)) subclassOf.set(m[2]!, m[1]!);
  const texts = [...sources.values()];
  return kinds.filter((kind) => {
    if (texts.some((t) => t.includes(`'${kind}'`))) return false;
    const cls = subclassOf.get(kind);
    return cls === undefined || !texts.some((t) => t.includes(`new ${cls}(`));
  });
}

/** Codes the documentation does not name. */
function undocumented(codes: readonly string[], docs: ReadonlyMap<string, string>): string[] {
  const text = [...docs.values()].join('\n');
  return codes.filter((c) => !new RegExp(`\\b${c}\\b`).test(text));
}

/** `file: code` for each RN code the documentation names that `known` lacks. */
function unknownInDocs(known: ReadonlySet<string>, docs: ReadonlyMap<string, string>): string[] {
  const bad: string[] = [];
  for (const [file, text] of docs) {
    for (const m of text.matchAll(/\bRN\d{4}\b/g)) if (!known.has(m[0])) bad.push(`${file}: ${m[0]}`);
  }
  return [...new Set(bad)];
}

const kinds = Object.keys(Internal);
const codes = Object.values(Internal).map((e) => e.code);
const retired = Object.keys(RETIRED_CODES);

describe('internal error registry', () => {
  const sources = new Map(PRODUCT.flatMap((d) => [...files(d, /\.(ts|mts|mjs|js)$/)]).filter(([f]) => f !== REGISTRY));
  const docs = files('.', /\.md$/, NOT_DOCS);

  it('gives each number once, in the RNxxxx form, and none of the retired ones', () => {
    for (const c of [...codes, ...retired]) expect(c).toMatch(/^RN\d{4}$/);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes.filter((c) => retired.includes(c))).toEqual([]);
  });

  it('every code is raised somewhere in product code', () => {
    expect(sources.size).toBeGreaterThan(100); // the scan sees the product tree
    expect(unraised(kinds, readFileSync(join(root, REGISTRY), 'utf8'), sources)).toEqual([]);
  });

  it('every code is documented, and the documentation names no code the registry lacks', () => {
    expect([...docs.keys()]).toContain('README.md');
    expect(undocumented(codes, docs)).toEqual([]);
    expect(unknownInDocs(new Set([...codes, ...retired]), docs)).toEqual([]);
  });

  it('names what it finds missing', () => {
    const registry = "class ProtocolError extends RunnelError {\n  constructor(d: string) {\n    super('PROTOCOL_MALFORMED', d);\n  }\n}";
    const src = new Map([['broker/src/a.ts', "throw new RunnelError('STORAGE_UNAVAILABLE', 'x');"], ['broker/src/b.ts', 'if (e.code === 1) throw e;']]);
    expect(unraised(['STORAGE_UNAVAILABLE', 'PROTOCOL_MALFORMED', 'CONFIG_INVALID'], registry, src)).toEqual(['PROTOCOL_MALFORMED', 'CONFIG_INVALID']);
    src.set('broker/src/c.ts', "throw new ProtocolError('truncated');");
    expect(unraised(['PROTOCOL_MALFORMED'], registry, src)).toEqual([]);
    const md = new Map([['docs/a.md', 'closes the connection (RN1001); see RN9999 and RN10010']]);
    expect(undocumented(['RN1001', 'RN1002', 'RN1000'], md)).toEqual(['RN1002', 'RN1000']);
    expect(unknownInDocs(new Set(['RN1001']), md)).toEqual(['docs/a.md: RN9999']);
  });
});
