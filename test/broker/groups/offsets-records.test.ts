// __consumer_offsets record encoding: byte layouts of Kafka's OffsetCommitKey
// v1 and OffsetCommitValue v3, and the batch that carries them.
import { describe, expect, it } from 'vitest';
import {
  buildInternalBatch, decodeOffsetCommitKey, decodeOffsetCommitValue, encodeOffsetCommitKey, encodeOffsetCommitValue,
} from '../../../broker/src/groups/offsets-records.js';
import { decodeBatch } from '../../../common/record-batch/decode.js';
import { readBatchHeader } from '../../../common/record-batch/header.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

describe('offset commit records', () => {
  it('encodes the key as version 1, group, topic, partition (int16-length strings)', () => {
    const k = encodeOffsetCommitKey({ group: 'g1', topic: 'orders', partition: 7 });
    expect(k).toEqual(hex('0001 0002 6731 0006 6f7264657273 00000007'));
    expect(decodeOffsetCommitKey(k)).toEqual({ group: 'g1', topic: 'orders', partition: 7 });
  });

  it('encodes the value as version 3: offset, leaderEpoch, metadata, commitTimestamp', () => {
    const v = encodeOffsetCommitValue({ offset: 42, leaderEpoch: -1, metadata: 'm', commitTimestamp: 1_700_000_000_000 });
    expect(v).toEqual(hex('0003 000000000000002a ffffffff 0001 6d 0000018bcfe56800'));
    expect(decodeOffsetCommitValue(v)).toEqual({ offset: 42, leaderEpoch: -1, metadata: 'm', commitTimestamp: 1_700_000_000_000 });
  });

  it('counts UTF-8 bytes, not characters, in string lengths', () => {
    const k = encodeOffsetCommitKey({ group: 'é', topic: 't', partition: 0 });
    expect(k.readInt16BE(2)).toBe(2);
    expect(decodeOffsetCommitKey(k)?.group).toBe('é');
  });

  it('ignores group metadata keys (version 2)', () => {
    expect(decodeOffsetCommitKey(hex('0002 0001 67'))).toBeNull();
  });

  it('builds a valid uncompressed batch with one record per commit and null values for tombstones', () => {
    const records = [
      { key: encodeOffsetCommitKey({ group: 'g', topic: 't', partition: 0 }), value: encodeOffsetCommitValue({ offset: 5, leaderEpoch: 0, metadata: '', commitTimestamp: 1000 }) },
      { key: encodeOffsetCommitKey({ group: 'g', topic: 't', partition: 1 }), value: null },
    ];
    const batch = buildInternalBatch(records, 1234);
    const h = readBatchHeader(batch);
    expect(h.lastOffsetDelta).toBe(1);
    expect(h.producerId).toBe(-1);
    const seen: Array<{ offset: number; ts: number; key: Buffer; value: Buffer | null }> = [];
    decodeBatch(batch, {
      record: (offset, ts, _type, buf, ks, kl, vs, vl) => seen.push({ offset, ts, key: Buffer.from(buf.subarray(ks, ks + kl)), value: vl < 0 ? null : Buffer.from(buf.subarray(vs, vs + vl)) }),
      header: () => undefined,
    });
    expect(seen.map((r) => [r.offset, r.ts])).toEqual([[0, 1234], [1, 1234]]);
    expect(decodeOffsetCommitKey(seen[1]!.key)).toEqual({ group: 'g', topic: 't', partition: 1 });
    expect(decodeOffsetCommitValue(seen[0]!.value!).offset).toBe(5);
    expect(seen[1]!.value).toBeNull();
  });
});
