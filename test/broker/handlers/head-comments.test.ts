// Every API file in broker/src/handlers/ opens with a comment that names each
// API it serves with its key and the versions the registry serves, then one
// line per version or version range, in order, covering exactly that range:
//
//   // Fetch (key 1), v4-v16.
//   //   v4: ...
//   //   v5-v6: ...
//
// The registry is read at run time, so a version added to a handler (or a new
// API) without its comment fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildHandlers } from '../../../broker/src/handlers/support/registry.js';
import type { Handler } from '../../../broker/src/handlers/support/types.js';

const HANDLERS_DIR = new URL('../../../broker/src/handlers/', import.meta.url);
const apiFiles = readdirSync(HANDLERS_DIR).filter((f) => f.endsWith('.ts')).sort();
const registered = buildHandlers();

/** What a head comment must say about one API. */
interface Served { name: string; key: number; min: number; max: number }

const TITLE = /^\/\/ ([A-Za-z]+) \(key (\d+)\), v(\d+)(?:-v(\d+))?\.(?: |$)/;
const VERSION_LINE = /^\/\/ {3}v(\d+)(?:-v(\d+))?: \S/;

const span = (min: number, max: number): string => (min === max ? `v${min}` : `v${min}-v${max}`);
const kebab = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
const servedOf = (h: Handler): Served => ({ name: h.api.name, key: h.api.apiKey, min: h.minVersion, max: h.maxVersion });

/** The comment lines a source opens with. */
function headComment(source: string): string[] {
  const lines = source.split('\n');
  const end = lines.findIndex((l) => !l.startsWith('//'));
  return end === -1 ? lines : lines.slice(0, end);
}

/** What is wrong with a head comment for the APIs a file serves; empty when nothing is. */
function headProblems(head: string[], served: Served[]): string[] {
  if (head.length === 0) return ['no head comment'];
  const problems: string[] = [];
  const blocks: Array<{ title: Served; versions: Array<[number, number]> }> = [];
  for (const line of head) {
    const t = TITLE.exec(line);
    if (t) {
      const min = Number(t[3]);
      blocks.push({ title: { name: t[1]!, key: Number(t[2]), min, max: t[4] === undefined ? min : Number(t[4]) }, versions: [] });
      continue;
    }
    const v = VERSION_LINE.exec(line);
    if (!v) continue;
    const from = Number(v[1]);
    const to = v[2] === undefined ? from : Number(v[2]);
    if (blocks.length === 0) problems.push(`version line before any API title: ${line}`);
    else blocks[blocks.length - 1]!.versions.push([from, to]);
  }
  if (!TITLE.test(head[0]!)) problems.push(`first line names no API: ${head[0]}`);
  for (const s of served) {
    const expected = `${s.name} (key ${s.key}), ${span(s.min, s.max)}`;
    const block = blocks.find((b) => b.title.name === s.name);
    if (!block) {
      problems.push(`no title for ${s.name}: expected "// ${expected}."`);
      continue;
    }
    const got = `${block.title.name} (key ${block.title.key}), ${span(block.title.min, block.title.max)}`;
    if (got !== expected) problems.push(`title says "${got}", the registry serves "${expected}"`);
    // The version lines run from min to max without gaps or overlaps.
    let next = s.min;
    for (const [from, to] of block.versions) {
      if (from !== next || to < from) problems.push(`${s.name}: line for ${span(from, to)} where v${next} was due`);
      next = Math.max(next, to + 1);
    }
    if (next !== s.max + 1) problems.push(`${s.name}: version lines end at v${next - 1}, the registry serves up to v${s.max}`);
  }
  for (const b of blocks) if (!served.some((s) => s.name === b.title.name)) problems.push(`title for ${b.title.name}, which this file does not serve`);
  return problems;
}

/** The registered handlers a file serves: the API it is named after, and every handler it exports. */
async function servedBy(file: string): Promise<Handler[]> {
  const mod: Record<string, unknown> = await import(new URL(file, HANDLERS_DIR).href);
  const exported = Object.values(mod);
  return registered.filter((h) => kebab(h.api.name) === file.replace(/\.ts$/, '') || exported.includes(h));
}

describe('handler head comments', () => {
  it('finds the API files', () => {
    expect(apiFiles.length).toBeGreaterThan(40);
    expect(apiFiles).toContain('fetch.ts');
  });

  it('every registered API is served by exactly one API file', async () => {
    const owners = new Map<string, string[]>();
    for (const file of apiFiles) for (const h of await servedBy(file)) owners.set(h.api.name, [...(owners.get(h.api.name) ?? []), file]);
    for (const h of registered) expect(owners.get(h.api.name), h.api.name).toHaveLength(1);
  });

  for (const file of apiFiles) {
    it(`${file} names its APIs and their versions as the registry serves them`, async () => {
      const served = (await servedBy(file)).map(servedOf);
      expect(served.length, `${file} serves no registered API`).toBeGreaterThan(0);
      expect(headProblems(headComment(readFileSync(new URL(file, HANDLERS_DIR), 'utf8')), served)).toEqual([]);
    });
  }
});

describe('headProblems', () => {
  const fetch: Served = { name: 'Fetch', key: 1, min: 4, max: 6 };
  const good = ['// Fetch (key 1), v4-v6.', '//   v4: isolation level.', '//   v5-v6: log start offset;', '//       more words.', '// What the handler does.'];

  it('accepts a title and contiguous version lines', () => {
    expect(headProblems(good, [fetch])).toEqual([]);
    expect(headProblems(['// X (key 9), v0.', '//   v0: first.'], [{ name: 'X', key: 9, min: 0, max: 0 }])).toEqual([]);
  });

  it('refuses a missing comment or a first line without a title', () => {
    expect(headProblems([], [fetch])).toEqual(['no head comment']);
    expect(headProblems(['// Fetches.', ...good], [fetch])).toEqual(['first line names no API: // Fetches.']);
  });

  it('refuses a range the registry does not serve', () => {
    expect(headProblems(good, [{ ...fetch, max: 7 }])).toEqual([
      'title says "Fetch (key 1), v4-v6", the registry serves "Fetch (key 1), v4-v7"',
      'Fetch: version lines end at v6, the registry serves up to v7',
    ]);
    expect(headProblems(good, [{ ...fetch, key: 2 }])).toEqual(['title says "Fetch (key 1), v4-v6", the registry serves "Fetch (key 2), v4-v6"']);
  });

  it('refuses gaps, overlaps and missing versions in the version lines', () => {
    expect(headProblems(['// Fetch (key 1), v4-v6.', '//   v4: a.', '//   v6: c.'], [fetch])).toEqual(['Fetch: line for v6 where v5 was due']);
    expect(headProblems(['// Fetch (key 1), v4-v6.', '//   v4-v5: a.', '//   v5-v6: c.'], [fetch])).toEqual(['Fetch: line for v5-v6 where v6 was due']);
    expect(headProblems(['// Fetch (key 1), v4-v6.', '//   v4-v5: a.'], [fetch])).toEqual(['Fetch: version lines end at v5, the registry serves up to v6']);
  });

  it('refuses a missing or a foreign API title', () => {
    const alter: Served = { name: 'AlterConfigs', key: 33, min: 0, max: 0 };
    expect(headProblems(good, [fetch, alter])).toEqual(['no title for AlterConfigs: expected "// AlterConfigs (key 33), v0."']);
    expect(headProblems([...good, '// AlterConfigs (key 33), v0.', '//   v0: all.'], [fetch])).toEqual(['title for AlterConfigs, which this file does not serve']);
  });
});
