// What the produce path's per-record rules (Kafka's LogValidator:
// message.timestamp.before/after.max.ms on CreateTime topics, keys on
// compacted ones) add to the validation every batch already gets (CRC,
// decompression, a walk over every record). Builds one batch of N records of
// S bytes (uncompressed and zstd) and times validateRecords with no rules,
// with the timestamp bounds, and with bounds plus keys. Uses dist/ (npm run build).
//
//   node bench/validate-records.mjs [--records 1000] [--size 100] [--rounds 3000]
import { parseArgs } from 'node:util';
import { validateRecords } from '../dist/broker/src/log/log-validator.js';
import { recompressBatch } from '../dist/common/record-batch/rebuild.js';
import { writeCrc } from '../dist/common/record-batch/header.js';

const { values } = parseArgs({ options: { records: { type: 'string', default: '1000' }, size: { type: 'string', default: '100' }, rounds: { type: 'string', default: '3000' } } });
const n = Number(values.records);
const rounds = Number(values.rounds);
const now = Date.now();
const bounds = { now, beforeMaxMs: 9223372036854775807n, afterMaxMs: 3600000n };
const topic = { partitionName: 't-0', compacted: false, createTimeBounds: null, compressionType: 'producer', maxMessageBytes: 2 ** 31 - 1 };
const cases = { none: topic, timestamps: { ...topic, createTimeBounds: bounds }, 'timestamps+keys': { ...topic, createTimeBounds: bounds, compacted: true } };

/** zigzag varint (the values here stay far below 2^31). */
const varint = (v) => {
  let z = (v << 1) ^ (v >> 31);
  const out = [];
  while (z > 0x7f) { out.push((z & 0x7f) | 0x80); z >>>= 7; }
  out.push(z);
  return Buffer.from(out);
};

/** One uncompressed v2 batch: record i has key k<i>, `size` value bytes, timestamp base + i. */
function batchOf(count, size, base) {
  const recs = [];
  for (let i = 0; i < count; i++) {
    const key = Buffer.from(`k${i}`);
    const body = Buffer.concat([Buffer.from([0]), varint(i), varint(i), varint(key.length), key, varint(size), Buffer.alloc(size, 97), varint(0)]);
    recs.push(varint(body.length), body);
  }
  const records = Buffer.concat(recs);
  const h = Buffer.alloc(61);
  h.writeInt32BE(49 + records.length, 8);
  h.writeInt32BE(-1, 12);
  h.writeInt8(2, 16);
  h.writeInt32BE(count - 1, 23);
  h.writeBigInt64BE(BigInt(base), 27);
  h.writeBigInt64BE(BigInt(base + count - 1), 35);
  h.writeBigInt64BE(-1n, 43);
  h.writeInt16BE(-1, 51);
  h.writeInt32BE(-1, 53);
  h.writeInt32BE(count, 57);
  const batch = Buffer.concat([h, records]);
  writeCrc(batch);
  return batch;
}

for (const codec of ['none', 'zstd']) {
  const plain = batchOf(n, Number(values.size), now);
  const batch = codec === 'zstd' ? recompressBatch(plain, 4) : plain;
  for (const [name, policy] of Object.entries(cases)) {
    if (!validateRecords(batch, policy).ok) throw new Error(`${codec} ${name}: the batch is refused`);
    for (let i = 0; i < 200; i++) validateRecords(batch, policy); // warm-up
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < rounds; i++) validateRecords(batch, policy);
    const us = Number(process.hrtime.bigint() - t0) / 1000 / rounds;
    console.log(`${codec.padEnd(5)} ${String(n).padStart(5)} records  ${name.padEnd(16)} ${us.toFixed(1)} us/batch  ${(us * 1000 / n).toFixed(1)} ns/record`);
  }
}
