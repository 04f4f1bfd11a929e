// Where the archiver's Parquet write goes at 1 KiB: parquet-wasm's writeParquet of one
// binary column (N x 1 KiB values like bench.mjs's: half structured text, half random
// base64) with ZSTD, no compression, LZ4_RAW and SNAPPY, against node:zlib's zstd
// (Node's libzstd) on the same bytes in 1 MiB pieces at levels 1, -1, -3, -5. CPU ms of this
// thread, twice. Run after `npm run build`: node bench/archiver/zstd-micro.mjs [N=100000]
import path from 'node:path';
import zlib from 'node:zlib';
import { randomBytes } from 'node:crypto';
const ROOT = process.cwd();
const pq = await import('parquet-wasm');
const arrow = await import('apache-arrow');
const jobs = await import(path.join(ROOT, 'dist/archiver/src/parquet/jobs.js'));
const SIZE = 1024, N = Number(process.env.N ?? 100000);
function makeValue(size, i) {
  const head = `{"id":${i},"user":"u${i % 9973}","kind":"click","page":"/p/${i % 131}","r":"`;
  const rnd = randomBytes(Math.ceil((size * 3) / 8)).toString('base64');
  const filler = '","tags":["a","b","c"],"ok":true,"n":0}'.repeat(Math.ceil(size / 40));
  return Buffer.from(head + rnd + filler).subarray(0, size);
}
const vals = []; for (let i = 0; i < N; i++) vals.push(makeValue(SIZE, i));
const all = Buffer.concat(vals);
const cpu = (f) => { const c0 = process.cpuUsage(); const r = f(); const c = process.cpuUsage(c0); return [((c.user + c.system) / 1e3), r]; };
const tbl = new arrow.Table({ value: arrow.vectorFromArray(vals.map((v) => new Uint8Array(v)), new arrow.Binary()) });
const ipc = arrow.tableToIPC(tbl, 'stream');
for (let r = 0; r < 2; r++) {
  for (const [name, comp] of [['zstd', pq.Compression.ZSTD], ['none', pq.Compression.UNCOMPRESSED], ['lz4raw', pq.Compression.LZ4_RAW], ['snappy', pq.Compression.SNAPPY]]) {
    const props = new pq.WriterPropertiesBuilder().setCompression(comp).setDictionaryEnabled(false).setStatisticsEnabled(pq.EnabledStatistics.None).build();
    const [ms, out] = cpu(() => pq.writeParquet(pq.Table.fromIPCStream(ipc), props));
    console.log(`parquet-wasm ${name}: ${ms.toFixed(0)} ms cpu, ${(out.length / 1e6).toFixed(0)} MB`);
  }
  for (const lvl of [1, -1, -3, -5]) {
    const [ms, tot] = cpu(() => { let t = 0; for (let o = 0; o < all.length; o += 1 << 20) t += zlib.zstdCompressSync(all.subarray(o, o + (1 << 20)), { params: { [zlib.constants.ZSTD_c_compressionLevel]: lvl } }).length; return t; });
    console.log(`node zstd level ${lvl}: ${ms.toFixed(0)} ms cpu, ${(tot / 1e6).toFixed(0)} MB of ${(all.length / 1e6).toFixed(0)}`);
  }
}
