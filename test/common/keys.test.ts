// The partition meta fields named in common/keys.ts are the ones the key
// contract (docs/redis-keys.md) documents, and the Lua scripts that touch a
// partition's meta hash use no other.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { META_FIELD } from '../../common/keys.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('partition meta fields', () => {
  it('docs/redis-keys.md documents exactly META_FIELD for rn:p:{<topic>/<p>}:meta', () => {
    const row = fs.readFileSync(path.join(ROOT, 'docs/redis-keys.md'), 'utf8').split('\n').find((l) => l.startsWith('| `rn:p:{<topic>/<p>}:meta` | hash |'));
    expect(row).toBeDefined();
    const documented = [...row!.matchAll(/`(\w+)` \(/g)].map((m) => m[1]).sort();
    expect(documented).toEqual(Object.values(META_FIELD).sort());
  });

  it('the partition Lua scripts read and write only META_FIELD fields of the meta hash', () => {
    const dirs = ['broker/src/redis/lua', 'archiver/src/lua'];
    const known = new Set<string>(Object.values(META_FIELD));
    const used = new Set<string>();
    for (const dir of dirs) {
      for (const f of fs.readdirSync(path.join(ROOT, dir)).filter((n) => n.endsWith('.lua'))) {
        const src = fs.readFileSync(path.join(ROOT, dir, f), 'utf8');
        // the header names the key: "-- KEYS[n]  partition meta hash"
        const metaKey = /--\s*KEYS\[(\d+)\]\s+partition meta/i.exec(src)?.[1];
        if (!metaKey) continue;
        const calls = src.matchAll(new RegExp(`'H(?:GET|MGET|SET|DEL|INCRBY|EXISTS)', KEYS\\[${metaKey}\\]((?:, '[A-Za-z]+'(?:, [^,)]+)?)+)`, 'g'));
        for (const c of calls) for (const m of c[1]!.matchAll(/'([A-Za-z]+)'/g)) used.add(m[1]!);
      }
    }
    expect(used.size).toBeGreaterThan(3); // the scripts were found and parsed
    expect([...used].filter((f) => !known.has(f))).toEqual([]);
  });
});
