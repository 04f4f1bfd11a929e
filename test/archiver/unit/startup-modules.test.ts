// The archiver's main thread starts without Arrow, parquet-wasm or the AWS SDK:
// Parquet work runs in worker threads, and a local lake never needs S3. Both
// packages are the largest the archiver has (half of its start-up time).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const dist = (p: string): string => pathToFileURL(path.join(ROOT, 'dist/archiver/src', p)).href;
/** the lake code (Delta log, object stores) lives in common/ */
const lakeIndex = pathToFileURL(path.join(ROOT, 'dist/common/lake/index.js')).href;

/** Runs `body` in a fresh node after importing main.js; returns the heavy packages it resolved. */
function heavyImports(body: string): string[] {
  const script = `
    import { registerHooks } from 'node:module';
    const seen = new Set();
    registerHooks({ resolve(s, c, next) { if (/^(apache-arrow|parquet-wasm|@aws-sdk\\/)/.test(s)) seen.add(s.startsWith('@aws-sdk/') ? '@aws-sdk' : s.split('/')[0]); return next(s, c); } });
    await import(${JSON.stringify(dist('main.js'))});
    ${body}
    console.log(JSON.stringify([...seen].sort()));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!) as string[];
}

describe('archiver start-up modules', () => {
  it('main.js and opening a local or an S3 lake load none of Arrow, parquet-wasm and the AWS SDK', () => {
    const seen = heavyImports(`
      const { openLake } = await import(${JSON.stringify(lakeIndex)});
      const s3 = openLake('s3://bucket/prefix');
      if (s3.url !== 's3://bucket/prefix') throw new Error(s3.url);
      openLake('/tmp/lake');`);
    expect(seen).toEqual([]);
  });

  it('the hook sees them when they load: inline Parquet jobs and an S3 call', () => {
    const seen = heavyImports(`
      const { ParquetPool } = await import(${JSON.stringify(dist('parquet/pool.js'))});
      const pool = new ParquetPool(1, { inline: true });
      await pool.writeCheckpoint([]).catch(() => {});
      const { openLake } = await import(${JSON.stringify(lakeIndex)});
      const s3 = openLake('s3://bucket/prefix', { s3Endpoint: 'http://127.0.0.1:9' });
      await s3.close();
      await s3.get('x').catch(() => {});`);
    expect(seen).toEqual(['@aws-sdk', 'apache-arrow', 'parquet-wasm']);
  });
});
