// Writes test/durations.json (seconds per test file, the longest seen in any
// phase) from the JSON reports of the last `bash test/run-all.sh`
// (.cache/vitest/<phase>.json). test/setup/sequencer.ts starts the slowest first.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const dir = path.join(root, '.cache/vitest');
const out = {};
for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
  const report = JSON.parse(readFileSync(path.join(dir, f), 'utf8'));
  for (const t of report.testResults ?? []) {
    const rel = path.relative(root, t.name);
    const s = Math.round((t.endTime - t.startTime) / 100) / 10;
    if (!(out[rel] >= s)) out[rel] = s;
  }
}
const sorted = Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
writeFileSync(path.join(root, 'test/durations.json'), JSON.stringify(sorted, null, 1) + '\n');
console.log(`test/durations.json: ${Object.keys(sorted).length} files`);
