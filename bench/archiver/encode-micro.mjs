// time the worker's encode job phases on 1M x 100 B (or N x SIZE) records, in-process
import path from 'node:path';
import { randomBytes } from 'node:crypto';
const ROOT = process.cwd();
const { encodeBatch } = await import(path.join(ROOT, 'dist/archiver/src/records/encode.js'));
const jobs = await import(path.join(ROOT, 'dist/archiver/src/parquet/jobs.js'));
const SIZE = Number(process.env.SIZE ?? 100), N = Number(process.env.N ?? 1_000_000);
function makeValue(size, i) {
  const head = `{"id":${i},"user":"u${i % 9973}","kind":"click","page":"/p/${i % 131}","r":"`;
  const rnd = randomBytes(Math.ceil((size * 3) / 8)).toString('base64');
  const filler = '","tags":["a","b","c"],"ok":true,"n":0}'.repeat(Math.ceil(size / 40));
  return Buffer.from(head + rnd + filler).subarray(0, size);
}
const ts0 = Date.now() - 3600_000;
const batches = [];
for (let base = 0; base < N; base += 1000) {
  const recs = [];
  for (let i = 0; i < 1000; i++) recs.push({ key: Buffer.from(`key-${(base + i) % 10007}`), value: makeValue(SIZE, base + i), timestamp: ts0 + base + i });
  batches.push(encodeBatch(recs, { baseOffset: base }));
}
const mkjob = () => ({ batches: batches.map((b) => new Uint8Array(b)), meta: new Float64Array(batches.length * 2).map((_, i) => (i % 2 ? -1 : 0)), verifyCrc: false });
for (let r = 0; r < 3; r++) {
  const job = mkjob();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const res = jobs.encodeDataFiles(job);
  const t1 = performance.now();
  const c = process.cpuUsage(c0);
  console.log(`encode ${N} x ${SIZE} B: ${(t1 - t0).toFixed(0)} ms wall, ${((c.user + c.system) / 1e3).toFixed(0)} ms cpu, ${res.files.length} files ${(res.files.reduce((s, f) => s + f.bytes.length, 0) / 1e6).toFixed(1)} MB, ${res.records} recs`);
}
if (process.env.PHASES) {
  const { DateSplitter } = await import(path.join(ROOT, 'dist/archiver/src/parquet/columns.js'));
  const { decodeBatch } = await import(path.join(ROOT, 'dist/common/record-batch/decode.js'));
  const arrow = await import('apache-arrow');
  const pq = await import('parquet-wasm');
  for (let r = 0; r < 2; r++) {
    const job = mkjob();
    let t = performance.now(); const T = {};
    const sp = new DateSplitter(200e6);
    job.batches.forEach((b) => decodeBatch(Buffer.from(b.buffer, b.byteOffset, b.byteLength), sp, { verifyCrc: false, skipUpTo: -1 }));
    T.decode = performance.now() - t; t = performance.now();
    const cs = [...sp.byDay.values()][0][0];
    const rb = cs.toRecordBatch(); T.toRB = performance.now() - t; t = performance.now();
    const ipc = arrow.tableToIPC(new arrow.Table([rb]), 'stream'); T.ipc = performance.now() - t; t = performance.now();
    const wt = pq.Table.fromIPCStream(ipc); T.fromIPC = performance.now() - t; t = performance.now();
    const out = pq.writeParquet(wt, jobs.writerProps()); T.write = performance.now() - t;
    console.log(Object.entries(T).map(([k, v]) => `${k} ${v.toFixed(0)}`).join('  '), out.length);
  }
}
