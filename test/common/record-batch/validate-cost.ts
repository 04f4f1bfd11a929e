// Micro-measure of produce-side validation cost (a script, not a test):
//   node --import ./bench/lib/ts-loader.mjs test/common/record-batch/validate-cost.ts
// Prints ms per MiB of batch bytes (as stored, i.e. compressed size for
// compressed batches) and per MiB of uncompressed records, for:
//   uncompressed batches of 1 KiB records, zstd and lz4 batches of 100 B records.
import { randomBytes } from 'node:crypto';
import { Codec } from '../../../common/record-batch/layout.js';
import { validateBatch } from '../../../common/record-batch/validate.js';
import { checkCrc } from '../../../common/record-batch/header.js';
import { decompress } from '../../../common/record-batch/codecs.js';
import { encodeBatch, type EncodeRecord } from '../../helpers/encode-batch.js';

function records(n: number, size: number): EncodeRecord[] {
  // half random, half repeated: compresses roughly 2:1 like typical JSON payloads
  return Array.from({ length: n }, (_, i) => ({
    key: Buffer.from(`key-${i % 1000}`),
    value: Buffer.concat([randomBytes(size / 2), Buffer.alloc(size / 2, 0x61)]),
  }));
}

function measure(name: string, batch: Buffer, rawBytes: number, fn: (b: Buffer) => void): void {
  const targetMs = 1500;
  for (let i = 0; i < 50; i++) fn(batch); // warm up
  let n = 0;
  const t0 = process.hrtime.bigint();
  let el = 0;
  while (el < targetMs) {
    for (let i = 0; i < 20; i++) fn(batch);
    n += 20;
    el = Number(process.hrtime.bigint() - t0) / 1e6;
  }
  const perBatchUs = (el * 1000) / n;
  const mibStored = (batch.length * n) / 2 ** 20;
  const mibRaw = (rawBytes * n) / 2 ** 20;
  console.log(
    `${name.padEnd(44)} batch ${String(batch.length).padStart(7)} B  ${perBatchUs.toFixed(1).padStart(8)} us/batch  ` +
      `${(el / mibStored).toFixed(3).padStart(7)} ms/MiB stored  ${(el / mibRaw).toFixed(3).padStart(7)} ms/MiB records  ` +
      `(${(mibRaw / (el / 1000)).toFixed(0)} MiB/s of records)`,
  );
}

const cases: [string, number, number, number][] = [
  // name, codec, records per batch, record value size
  ['uncompressed, 1 KiB records, 256 KiB batch', Codec.NONE, 256, 1024],
  ['uncompressed, 1 KiB records, 16 KiB batch', Codec.NONE, 16, 1024],
  ['zstd, 100 B records, ~64 KiB raw', Codec.ZSTD, 600, 100],
  ['lz4, 100 B records, ~64 KiB raw', Codec.LZ4, 600, 100],
];

for (const [name, codec, n, size] of cases) {
  const recs = records(n, size);
  const raw = encodeBatch(recs);
  const batch = encodeBatch(recs, { codec });
  const rawBytes = raw.length - 61;
  measure(`${name}: CRC only`, batch, rawBytes, checkCrc);
  if (codec !== Codec.NONE) measure(`${name}: decompress only`, batch, rawBytes, (b) => decompress(codec, b.subarray(61)));
  measure(`${name}: full`, batch, rawBytes, (b) => validateBatch(b, 'client'));
}
