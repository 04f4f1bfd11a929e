// Typed vs untyped archiving cost, in-process, one core: the worker's encode job
// (decode stored batches -> Arrow -> ZSTD Parquet) on N records of ~100 B Avro
// values in the Confluent wire format, with and without typed columns
// (archive.value.schema=id; docs/lake.md "Typed columns"). Prints records per
// CPU-second of each and their ratio.
//   npm run build && node bench/archiver/typed-micro.mjs     (N=200000 by default)
import path from 'node:path';
import { ORDER_SCHEMA as SCHEMA, orderValue } from './avro-orders.mjs';
const ROOT = process.cwd();
const { encodeBatch } = await import(path.join(ROOT, 'dist/common/record-batch/encode.js'));
const jobs = await import(path.join(ROOT, 'dist/archiver/src/parquet/jobs.js'));
const N = Number(process.env.N ?? 200_000);
const RUNS = Number(process.env.RUNS ?? 3);

// A 100-byte-ish order (avro-orders.mjs): 5-byte prefix + ~82 B body
const ts0 = Date.now() - 3600_000;
let bytes = 0;
const batches = [];
for (let base = 0; base < N; base += 1000) {
  const recs = [];
  for (let i = 0; i < 1000 && base + i < N; i++) {
    const n = base + i;
    const value = orderValue(n, ts0);
    bytes += value.length;
    recs.push({ key: Buffer.from(`key-${n % 10007}`), value, timestamp: ts0 + n });
  }
  batches.push(encodeBatch(recs, { baseOffset: base }));
}
const lookup = async (ids) => Object.fromEntries(ids.map((id) => [id, { schemaType: 'AVRO', schema: JSON.stringify(SCHEMA), refs: [] }]));
const mkjob = (typed) => ({
  batches: batches.map((b) => new Uint8Array(b)), meta: new Float64Array(batches.length * 2).map((_, i) => (i % 2 ? -1 : 0)), verifyCrc: false,
  ...(typed ? { typed: { value: 'id', key: false, table: {} } } : {}),
});
async function run(typed) {
  const job = mkjob(typed);
  const c0 = process.cpuUsage();
  const res = typed ? await jobs.encodeTypedFiles(job, lookup) : jobs.encodeDataFiles(job);
  const c = process.cpuUsage(c0);
  const cpu = (c.user + c.system) / 1e6;
  if (res.records !== N) throw new Error(`encoded ${res.records} of ${N}`);
  if (typed && Object.keys(res.decodeErrors).length) throw new Error(`decode errors ${JSON.stringify(res.decodeErrors)}`);
  return { cpu, rps: N / cpu, mb: res.files.reduce((s, f) => s + f.bytes.length, 0) / 1e6 };
}
console.log(`${N} records, ${(bytes / N).toFixed(1)} B per value on average`);
const best = { untyped: 0, typed: 0 };
for (let r = 0; r < RUNS; r++) {
  for (const typed of [false, true]) {
    const x = await run(typed);
    const k = typed ? 'typed' : 'untyped';
    best[k] = Math.max(best[k], x.rps);
    console.log(`${k.padEnd(7)} ${x.cpu.toFixed(2)} s cpu  ${Math.round(x.rps).toLocaleString('en')} records/core-s  ${x.mb.toFixed(1)} MB parquet`);
  }
}
console.log(`best: untyped ${Math.round(best.untyped).toLocaleString('en')}, typed ${Math.round(best.typed).toLocaleString('en')} records/core-s; ratio ${(best.typed / best.untyped).toFixed(2)}x`);
