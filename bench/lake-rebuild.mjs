// The remote tier's rebuild cost and the lake's storage cost, for the
// decision the tiered-storage issue asks for: rebuild batches from the
// Parquet columns, or keep the original batch bytes in the lake too.
//
//   npm run build && node bench/lake-rebuild.mjs [--records 100000] [--value 1024] [--batch 100] [--files 4] [--workers W] [--payload text|random] [--no-read-ahead] [--inline 5]
//
// Writes one topic partition of N records (1 KiB values by default) as
// producer batches of --batch records, into --files ZSTD Parquet data files with
// the archiver's encoder, committed to a Delta table in a temp folder. Then
// replays it with the broker's lake reader (Fetch-sized reads of 1 MiB from
// offset 0): a cold pass (read the file, decode Parquet and rebuild the
// batches in the worker) and a pass served from the decoded-file cache.
// Prints records/s, MB/s of record bytes and the process's CPU per record
// (all threads: user + system) for both, and the bytes the lake
// holds for the records vs the bytes of the producer batches (uncompressed
// and zstd), which keeping the original batches in the lake would add.
// --inline R: also R rebuilds of each data file on this thread (rebuild.ts
// alone, no reader, worker or cache), median us per record.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '..');
const dist = (p) => import(path.join(ROOT, 'dist', p));
const { encodeBatch } = await dist('common/record-batch/encode.js');
const { compress } = await dist('common/record-batch/compress.js');
const { encodeDataFiles } = await dist('archiver/src/parquet/jobs.js');
const { deltaStats, DELTA_SCHEMA } = await dist('archiver/src/parquet/file-stats.js');
const { DeltaTable } = await dist('common/lake/delta/table.js');
const { LocalStore } = await dist('common/lake/local.js');
const { encodePartitionRanges, PARTITION_RANGES_TAG } = await dist('common/lake/partition-ranges.js');
const { openLakeRemoteLog } = await dist('broker/src/lake/remote-log.js');
const { createLogger } = await dist('common/logger/logger.js');

const { values: a } = parseArgs({
  allowPositionals: false,
  strict: false,
  options: {
    records: { type: 'string', default: '100000' },
    value: { type: 'string', default: '1024' },
    batch: { type: 'string', default: '100' },
    payload: { type: 'string', default: 'text' },
    'max-bytes': { type: 'string', default: String(1 << 20) },
    files: { type: 'string', default: '4' },
    workers: { type: 'string' },
    inline: { type: 'string', default: '0' },
  },
});
const N = Number(a.records);
const VALUE = Number(a.value);
const PER_BATCH = Number(a.batch);
const MAX_BYTES = Number(a['max-bytes']);
const FILES = Number(a.files);
const ZSTD = 4;

// 'text': JSON-ish events (repetitive, as most topics); 'random': incompressible bytes
function value(i) {
  if (a.payload === 'random') return randomBytes(VALUE);
  const s = JSON.stringify({ id: i, user: `user-${i % 5000}`, event: ['view', 'click', 'buy'][i % 3], at: 1764000000000 + i, pad: '' });
  const pad = randomBytes(Math.max(0, (VALUE - s.length) >> 2)).toString('hex');
  return Buffer.from((s.slice(0, -2) + pad + '"}').padEnd(VALUE, ' ').slice(0, VALUE));
}

const t0ms = Date.UTC(2026, 11, 1, 10);
const batches = [];
let recordBytes = 0;
for (let off = 0; off < N; off += PER_BATCH) {
  const recs = [];
  for (let i = off; i < Math.min(N, off + PER_BATCH); i++) {
    const v = value(i);
    const k = Buffer.from(`key-${i % 1000}`);
    recs.push({ key: k, value: v, timestamp: t0ms + i, headers: [{ key: 'trace', value: Buffer.from(`t${i}`) }] });
    recordBytes += k.length + v.length + 5 + `t${i}`.length;
  }
  batches.push(encodeBatch(recs, { baseOffset: off }));
}
const batchBytes = batches.reduce((s, b) => s + b.length, 0);
let zstdBatchBytes = 0;
for (const b of batches) zstdBatchBytes += 61 + compress(ZSTD, b.subarray(61)).length;

const lake = mkdtempSync(path.join(tmpdir(), 'rn-lake-bench-'));
try {
  const store = new LocalStore(lake);
  const t = new DeltaTable(store, 'bench');
  await t.load();
  await t.commit(
    () => [
      { protocol: { minReaderVersion: 1, minWriterVersion: 2 } },
      { metaData: { id: randomUUID(), name: 'bench', format: { provider: 'parquet', options: {} }, schemaString: JSON.stringify(DELTA_SCHEMA), partitionColumns: ['date'], configuration: { 'runnel.topicId': 'bench-id' }, createdTime: Date.now() } },
    ],
    'CREATE TABLE',
  );
  // --files data files of consecutive offsets, as the archiver's commits leave them
  const adds = [];
  let encodeMs = 0;
  let parquetBytes = 0;
  const per = Math.ceil(batches.length / FILES);
  for (let k = 0; k < FILES; k++) {
    const part = batches.slice(k * per, (k + 1) * per);
    if (!part.length) break;
    const meta = new Float64Array(part.length * 2);
    part.forEach((_, i) => meta.set([0, -1], i * 2));
    const te = performance.now();
    const enc = encodeDataFiles({ batches: part.map((b) => new Uint8Array(b)), meta, verifyCrc: false });
    encodeMs += performance.now() - te;
    for (const f of enc.files) {
      const add = {
        path: `date=${f.date}/part-${randomUUID()}.zstd.parquet`,
        partitionValues: { date: f.date },
        size: f.bytes.length,
        modificationTime: Date.now(),
        dataChange: true,
        stats: deltaStats(f.stats),
        tags: {
          [PARTITION_RANGES_TAG]: encodePartitionRanges([{ partition: 0, minOffset: f.stats.minOffset, maxOffset: f.stats.maxOffset, records: f.stats.numRecords, minTimestampMs: f.stats.minTimestampMs, maxTimestampMs: f.stats.maxTimestampMs, bytes: f.bytes.length }]),
        },
      };
      await store.put(`bench/${add.path}`, f.bytes);
      parquetBytes += f.bytes.length;
      adds.push({ add });
    }
  }
  await t.commit(() => adds, 'WRITE');
  // a one-record table: its read starts a reader's worker before the measured passes
  const w = new DeltaTable(store, 'warm');
  await w.load();
  const wf = encodeDataFiles({ batches: [new Uint8Array(encodeBatch([{ value: Buffer.from('w'), timestamp: t0ms }], { baseOffset: 0 }))], meta: Float64Array.from([0, -1]), verifyCrc: false }).files[0];
  await store.put(`warm/${wf.date}.parquet`, wf.bytes);
  await w.commit(() => [{ protocol: { minReaderVersion: 1, minWriterVersion: 2 } }, { metaData: { id: randomUUID(), format: { provider: 'parquet', options: {} }, schemaString: JSON.stringify(DELTA_SCHEMA), partitionColumns: [], configuration: {} } }, { add: { path: `${wf.date}.parquet`, partitionValues: {}, size: wf.bytes.length, modificationTime: Date.now(), dataChange: true, stats: deltaStats(wf.stats) } }], 'WRITE');

  const tp = { topic: 'bench', partition: 0 };
  async function pass(reader) {
    const start = performance.now();
    const cpu0 = process.cpuUsage();
    let from = 0;
    let records = 0;
    let bytes = 0;
    for (;;) {
      const got = await reader.read(tp, 'bench-id', from, N, MAX_BYTES);
      if (!got.length) break;
      for (const b of got) {
        records += b.pieces[0].readInt32BE(57);
        bytes += b.size;
      }
      const last = got[got.length - 1];
      from = last.baseOffset + last.lastOffsetDelta + 1;
    }
    if (records !== N) throw new Error(`replayed ${records} of ${N} records`);
    const cpu = process.cpuUsage(cpu0);
    return { ms: performance.now() - start, cpuUs: cpu.user + cpu.system, records, bytes };
  }
  // three rounds, each on a fresh reader (empty cache) whose worker has started
  const rounds = [];
  for (let k = 0; k < 3; k++) {
    const decodes = [];
    const reader = openLakeRemoteLog({
      lake,
      readAhead: !process.argv.includes('--no-read-ahead'),
      workers: a.workers === undefined ? undefined : Number(a.workers),
      cacheBytes: 4 * batchBytes,
      refreshIntervalMs: 60_000,
      logger: createLogger('warn', 'bench'),
      observe: (e) => e.op === 'decode' && decodes.push(e),
    });
    if ((await reader.read({ topic: 'warm', partition: 0 }, 'any', 0, 1, MAX_BYTES)).length !== 1) throw new Error('warm-up read found nothing');
    decodes.length = 0;
    const cold = await pass(reader);
    const hot = await pass(reader);
    await reader.close();
    rounds.push({ cold, hot, decodes });
  }
  const median = (xs) => [...xs].sort((x, y) => x.ms - y.ms)[1];
  const cold = median(rounds.map((r) => r.cold));
  const best = median(rounds.map((r) => r.hot));
  const decodes = rounds[1].decodes;
  const mb = (b) => (b / 1e6).toFixed(1);
  const rate = (p) => `${Math.round(p.records / (p.ms / 1000)).toLocaleString('en-US')} records/s, ${(recordBytes / 1e6 / (p.ms / 1000)).toFixed(0)} MB/s of records (${p.ms.toFixed(0)} ms), CPU ${(p.cpuUs / p.records).toFixed(2)} us/record`;
  console.log(`lake-rebuild: ${N} records in ${adds.length} files, ${VALUE} B values (${a.payload}), ${PER_BATCH} records per producer batch, reads of ${MAX_BYTES} B`);
  console.log(`  archiver encode (Parquet ZSTD, inline): ${encodeMs.toFixed(0)} ms`);
  console.log(`  cold read, median of 3 (file read + Parquet decode + rebuild in the worker): ${rate(cold)}`);
  console.log(`    decode jobs (one round): ${decodes.map((d) => d.ms.toFixed(0)).join(', ')} ms for ${mb(decodes.reduce((s, d) => s + d.bytes, 0))} MB of Parquet (${((1000 * decodes.reduce((s, d) => s + d.ms, 0)) / N).toFixed(2)} us/record)`);
  console.log(`  cache-hit read, median of 3: ${rate(best)}`);
  if (Number(a.inline) > 0) {
    const { rebuild } = await dist('broker/src/lake/rebuild.js');
    const files = await Promise.all(adds.map(({ add }) => store.get(`bench/${add.path}`)));
    const runs = [];
    for (let k = 0; k < Number(a.inline); k++) {
      const start = performance.now();
      let got = 0;
      for (const f of files) for (const p of rebuild({ files: [new Uint8Array(f)], partition: -1, targetBatchBytes: 1 << 20 })) got += p.records;
      if (got !== N) throw new Error(`rebuilt ${got} of ${N} records`);
      runs.push(performance.now() - start);
    }
    const us = runs.map((ms) => (1000 * ms) / N).sort((x, y) => x - y);
    console.log(`  inline rebuild (this thread, one file at a time), ${us.length} runs: median ${us[us.length >> 1].toFixed(2)} us/record (${us.map((x) => x.toFixed(2)).join(', ')})`);
  }
  console.log(`  storage: records ${mb(recordBytes)} MB; Parquet file ${mb(parquetBytes)} MB (${((100 * parquetBytes) / recordBytes).toFixed(0)}% of records)`);
  console.log(`           producer batches: uncompressed ${mb(batchBytes)} MB, zstd ${mb(zstdBatchBytes)} MB; rebuilt batches ${mb(cold.bytes)} MB`);
  console.log(`           keeping the original batches too: +${mb(batchBytes)} MB uncompressed (+${((100 * batchBytes) / parquetBytes).toFixed(0)}% of the lake) or +${mb(zstdBatchBytes)} MB zstd (+${((100 * zstdBatchBytes) / parquetBytes).toFixed(0)}%)`);
} finally {
  rmSync(lake, { recursive: true, force: true });
}
