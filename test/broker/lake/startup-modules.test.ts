// The broker's main thread never loads Arrow or parquet-wasm for the remote
// tier: data files and checkpoints decode in its worker threads. Runs the
// built reader (npm run build) in a fresh node that records what it resolves.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { commitFiles, records, removeLakes, table, tmpLake, writeDataFiles } from './fixture.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const dist = (p: string): string => pathToFileURL(path.join(ROOT, 'dist/broker/src/lake', p)).href;
afterAll(removeLakes);

function heavyImports(body: string): { seen: string[]; out: string } {
  const script = `
    import { registerHooks } from 'node:module';
    const seen = new Set();
    registerHooks({ resolve(s, c, next) { if (/^(apache-arrow|parquet-wasm)/.test(s)) seen.add(s.split('/')[0]); return next(s, c); } });
    ${body}
    console.log(JSON.stringify([...seen].sort()));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  const lines = out.trim().split('\n');
  return { seen: JSON.parse(lines.pop()!) as string[], out: lines.join('\n') };
}

describe('lake reader start-up modules', () => {
  it('reading a table loads neither Arrow nor parquet-wasm on the main thread; importing the rebuild loads parquet-wasm', async () => {
    const lake = tmpLake();
    const t = await table(lake, 's', 'id-s');
    await commitFiles(t, await writeDataFiles(lake, 's', [{ partition: 0, baseOffset: 0, records: records(5, Date.UTC(2026, 11, 1)) }]));
    const r = heavyImports(`
      const { openLakeRemoteLog } = await import(${JSON.stringify(dist('remote-log.js'))});
      const { createLogger } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist/common/logger/logger.js')).href)});
      const rl = openLakeRemoteLog({ lake: ${JSON.stringify(lake)}, cacheBytes: 1 << 20, refreshIntervalMs: 1000, logger: createLogger('warn', 'broker') });
      const got = await rl.read({ topic: 's', partition: 0 }, 'id-s', 0, 100, 1 << 20);
      console.log('batches', got.length, got[0].lastOffsetDelta);
      await rl.close();`);
    expect(r.out).toContain('batches 1 4');
    expect(r.seen).toEqual([]);
    expect(heavyImports(`await import(${JSON.stringify(dist('rebuild.js'))});`).seen).toEqual(['parquet-wasm']);
  });
});
