// Offset commits in Kafka's `__consumer_offsets` record format, so tools that
// read the topic (Burrow, kafka-console-consumer with the offsets formatter)
// decode them. Layouts, from Kafka's group-coordinator message definitions
// (OffsetCommitKey.json, OffsetCommitValue.json); every field big-endian,
// strings are int16 length + UTF-8, each message prefixed by its int16 version:
//   OffsetCommitKey v1:   version=1, group string, topic string, partition int32
//   OffsetCommitValue v3: version=3, offset int64, leaderEpoch int32,
//                         metadata string, commitTimestamp int64
// Key versions 0 and 1 share this layout (Kafka writes 1; 2 is group metadata).
// A deleted or expired offset is a tombstone: the key with a null value.
import { crc32c } from '@node-rs/crc32';
import { Writer } from '../protocol/writer.js';

export const OFFSET_COMMIT_KEY_VERSION = 1;
export const OFFSET_COMMIT_VALUE_VERSION = 3;

export interface OffsetCommitKey { group: string; topic: string; partition: number }
export interface OffsetCommitValue { offset: number; leaderEpoch: number; metadata: string; commitTimestamp: number }

function str(w: Writer, s: string): Writer {
  const n = Buffer.byteLength(s, 'utf8');
  return w.int16(n).utf8(s, n);
}

export function encodeOffsetCommitKey(k: OffsetCommitKey): Buffer {
  return Buffer.from(str(str(new Writer(64).int16(OFFSET_COMMIT_KEY_VERSION), k.group), k.topic).int32(k.partition).toBuffer());
}

export function encodeOffsetCommitValue(v: OffsetCommitValue): Buffer {
  const w = new Writer(64).int16(OFFSET_COMMIT_VALUE_VERSION).int64(v.offset).int32(v.leaderEpoch);
  return Buffer.from(str(w, v.metadata).int64(v.commitTimestamp).toBuffer());
}

/** Reads an int16-length string at `at`; returns it and the position after it. */
function readStr(b: Buffer, at: number): [string, number] {
  const n = b.readInt16BE(at);
  if (n < 0) throw new Error('null string in offset commit record');
  return [b.toString('utf8', at + 2, at + 2 + n), at + 2 + n];
}

/** Decodes an offset commit key (versions 0 and 1); null for other key kinds (group metadata, version 2). */
export function decodeOffsetCommitKey(b: Buffer): OffsetCommitKey | null {
  const version = b.readInt16BE(0);
  if (version !== 0 && version !== 1) return null;
  const [group, a] = readStr(b, 2);
  const [topic, c] = readStr(b, a);
  return { group, topic, partition: b.readInt32BE(c) };
}

/** Decodes an offset commit value of version 3 (the one written here). */
export function decodeOffsetCommitValue(b: Buffer): OffsetCommitValue {
  const version = b.readInt16BE(0);
  if (version !== OFFSET_COMMIT_VALUE_VERSION) throw new Error(`unsupported offset commit value version ${version}`);
  const offset = Number(b.readBigInt64BE(2));
  const leaderEpoch = b.readInt32BE(10);
  const [metadata, at] = readStr(b, 14);
  return { offset, leaderEpoch, metadata, commitTimestamp: Number(b.readBigInt64BE(at)) };
}

export interface InternalRecord { key: Buffer; value: Buffer | null }

/**
 * One uncompressed RecordBatch (magic 2) holding `records`, all with timestamp
 * `ts`; no producer id (-1) and base offset/leader epoch 0, which the append
 * stamps. Records: attributes, timestampDelta, offsetDelta, key, value, no headers.
 */
export function buildInternalBatch(records: InternalRecord[], ts: number): Buffer {
  const body = new Writer(256);
  records.forEach((r, i) => {
    const rec = new Writer(64).int8(0).varlong(0).varint(i).varint(r.key.length).bytes(r.key);
    if (r.value === null) rec.varint(-1); else rec.varint(r.value.length).bytes(r.value);
    const rb = Buffer.from(rec.varint(0).toBuffer());
    body.varint(rb.length).bytes(rb);
  });
  const recs = Buffer.from(body.toBuffer());
  const w = new Writer(61 + recs.length);
  w.int64(0).int32(0).int32(0).int8(2).uint32(0).int16(0).int32(records.length - 1)
    .int64(ts).int64(ts).int64(-1).int16(-1).int32(-1).int32(records.length).bytes(recs);
  const out = Buffer.from(w.toBuffer());
  out.writeInt32BE(out.length - 12, 8); // batchLength: everything after the length field
  out.writeUInt32BE(crc32c(out.subarray(21)), 17); // CRC-32C over attributes..end
  return out;
}
