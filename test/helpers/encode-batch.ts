// Kafka RecordBatch v2 encoder for tests: byte-exact batches like real producers
// write them (codecs, control and transactional batches, offset gaps). The
// archiver only decodes (common/record-batch); this lives with the tests.
import { compress } from '../../common/record-batch/compress.js';
import { writeCrc } from '../../common/record-batch/header.js';

export interface EncodeRecord {
  key?: Uint8Array | null;
  value?: Uint8Array | null;
  headers?: { key: string; value: Uint8Array | null }[];
  timestamp?: number; // ms; defaults to the batch base timestamp
}

export interface EncodeBatchOptions {
  baseOffset?: number;
  codec?: number;
  xerial?: boolean; // snappy only: xerial framing
  logAppendTime?: boolean;
  transactional?: boolean;
  control?: boolean;
  producerId?: bigint;
  producerEpoch?: number;
  baseSequence?: number;
  partitionLeaderEpoch?: number;
  baseTimestamp?: number;
  offsetDeltas?: number[]; // for compacted-style gaps
}

function zigzag(n: number): number {
  return n >= 0 ? n * 2 : -n * 2 - 1;
}

class Writer {
  buf = Buffer.allocUnsafe(1024);
  pos = 0;
  ensure(n: number) {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const nb = Buffer.allocUnsafe(size);
    this.buf.copy(nb, 0, 0, this.pos);
    this.buf = nb;
  }
  varint(v: number) {
    this.ensure(10);
    if (Math.abs(v) >= 2 ** 51) {
      // zigzag of a timestamp delta this large exceeds 2^53: exact in BigInt (varlong)
      let zb = v >= 0 ? BigInt(v) * 2n : -BigInt(v) * 2n - 1n;
      while (zb >= 0x80n) {
        this.buf[this.pos++] = Number(zb & 0x7fn) | 0x80;
        zb >>= 7n;
      }
      this.buf[this.pos++] = Number(zb);
      return;
    }
    let z = zigzag(v);
    while (z >= 0x80) {
      this.buf[this.pos++] = (z % 128) | 0x80;
      z = Math.floor(z / 128);
    }
    this.buf[this.pos++] = z;
  }
  bytes(b: Uint8Array) {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
  int8(v: number) {
    this.ensure(1);
    this.buf.writeInt8(v, this.pos++);
  }
  result() {
    return this.buf.subarray(0, this.pos);
  }
}

function encodeRecords(records: EncodeRecord[], baseTs: number, deltas: number[]): Buffer {
  const out = new Writer();
  const rec = new Writer();
  records.forEach((r, i) => {
    rec.pos = 0;
    rec.int8(0);
    rec.varint((r.timestamp ?? baseTs) - baseTs);
    rec.varint(deltas[i]!);
    if (r.key == null) rec.varint(-1);
    else {
      rec.varint(r.key.length);
      rec.bytes(r.key);
    }
    if (r.value == null) rec.varint(-1);
    else {
      rec.varint(r.value.length);
      rec.bytes(r.value);
    }
    const hs = r.headers ?? [];
    rec.varint(hs.length);
    for (const h of hs) {
      const k = Buffer.from(h.key, 'utf8');
      rec.varint(k.length);
      rec.bytes(k);
      if (h.value == null) rec.varint(-1);
      else {
        rec.varint(h.value.length);
        rec.bytes(h.value);
      }
    }
    const body = rec.result();
    out.varint(body.length);
    out.bytes(body);
  });
  return Buffer.from(out.result());
}

export function encodeBatch(records: EncodeRecord[], o: EncodeBatchOptions = {}): Buffer {
  const codec = o.codec ?? 0;
  const baseTs = o.baseTimestamp ?? records[0]?.timestamp ?? Date.now();
  const deltas = o.offsetDeltas ?? records.map((_, i) => i);
  const raw = encodeRecords(records, baseTs, deltas);
  const payload = codec === 0 ? raw : compress(codec, raw, { xerial: o.xerial });
  let maxTs = baseTs;
  for (const r of records) maxTs = Math.max(maxTs, r.timestamp ?? baseTs);
  const attrs =
    codec | (o.logAppendTime ? 0x08 : 0) | (o.transactional ? 0x10 : 0) | (o.control ? 0x20 : 0);
  const h = Buffer.alloc(61);
  h.writeBigInt64BE(BigInt(o.baseOffset ?? 0), 0);
  h.writeInt32BE(61 - 12 + payload.length, 8);
  h.writeInt32BE(o.partitionLeaderEpoch ?? 0, 12);
  h.writeInt8(2, 16);
  h.writeInt16BE(attrs, 21);
  h.writeInt32BE(deltas.length ? deltas[deltas.length - 1]! : 0, 23);
  h.writeBigInt64BE(BigInt(baseTs), 27);
  h.writeBigInt64BE(BigInt(maxTs), 35);
  h.writeBigInt64BE(o.producerId ?? -1n, 43);
  h.writeInt16BE(o.producerEpoch ?? -1, 51);
  h.writeInt32BE(o.baseSequence ?? -1, 53);
  h.writeInt32BE(records.length, 57);
  const batch = Buffer.concat([h, payload]);
  writeCrc(batch);
  return batch;
}

/** Rewrite baseOffset the way the broker does before storing (not covered by the CRC). */
export function setBaseOffset(batch: Buffer, baseOffset: number): Buffer {
  batch.writeBigInt64BE(BigInt(baseOffset), 0);
  return batch;
}
