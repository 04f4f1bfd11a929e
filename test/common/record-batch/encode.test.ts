// The product RecordBatch v2 encoder: Kafka's record layout byte for byte, and
// batches that the stored-batch decoder (CRC, framing, offset deltas) accepts.
import { describe, expect, it } from 'vitest';
import { encodeBatch, encodeRecords, RecordsWriter } from '../../../common/record-batch/encode.js';
import { decodeBatch } from '../../../common/record-batch/decode.js';
import { readBatchHeader } from '../../../common/record-batch/header.js';

interface Got {
  offset: number;
  ts: number;
  type: number;
  key: string | null;
  value: string | null;
  headers: [string, string | null][];
}
function decode(b: Buffer): Got[] {
  const out: Got[] = [];
  const s = (buf: Buffer, st: number, l: number) => (l < 0 ? null : buf.toString('latin1', st, st + l));
  decodeBatch(
    b,
    {
      record(offset, ts, type, buf, kS, kL, vS, vL) {
        out.push({ offset, ts, type, key: s(buf, kS, kL), value: s(buf, vS, vL), headers: [] });
      },
      header(buf, kS, kL, vS, vL) {
        out.at(-1)!.headers.push([buf.toString('utf8', kS, kS + kL), s(buf, vS, vL)]);
      },
    },
    { verifyCrc: true },
  );
  return out;
}

describe('record batch encoder', () => {
  it("writes Kafka's record layout: length, attributes, zigzag deltas, key, value, headers", () => {
    const raw = encodeRecords([{ key: Buffer.from('k'), value: Buffer.from('v'), timestamp: 5 }], 5, [0]);
    expect([...raw]).toEqual([0x10, 0x00, 0x00, 0x00, 0x02, 0x6b, 0x02, 0x76, 0x00]);
    const nulls = encodeRecords([{ key: null, value: null, timestamp: 4, headers: [{ key: 'h', value: null }] }], 5, [3]);
    // length 9 -> 0x12, ts delta -1 -> 0x01, offset delta 3 -> 0x06, null key/value -> 0x01, one header, key "h", null value
    expect([...nulls]).toEqual([0x12, 0x00, 0x01, 0x06, 0x01, 0x01, 0x02, 0x02, 0x68, 0x01]);
  });

  it('batches decode to the same records: gaps, nulls, header order, negative and huge timestamp deltas', () => {
    const base = 1_764_000_000_000;
    const recs = [
      { key: Buffer.from('a'), value: Buffer.from('1'), timestamp: base, headers: [{ key: 'x', value: Buffer.from('1') }, { key: 'x', value: null }, { key: 'é', value: Buffer.alloc(0) }] },
      { key: null, value: Buffer.from('2'), timestamp: base - 10 },
      { key: Buffer.from('c'), value: null, timestamp: base + 2 ** 52 },
    ];
    const b = encodeBatch(recs, { baseOffset: 1000, offsetDeltas: [0, 4, 9] });
    const h = readBatchHeader(b);
    expect(h).toMatchObject({ baseOffset: 1000, lastOffsetDelta: 9, recordCount: 3, baseTimestamp: base, maxTimestamp: base + 2 ** 52, timestampType: 0, partitionLeaderEpoch: -1, producerId: -1, producerEpoch: -1, baseSequence: -1, codec: 0, size: b.length });
    expect(decode(b)).toEqual([
      { offset: 1000, ts: base, type: 0, key: 'a', value: '1', headers: [['x', '1'], ['x', null], ['é', '']] },
      { offset: 1004, ts: base - 10, type: 0, key: null, value: '2', headers: [] },
      { offset: 1009, ts: base + 2 ** 52, type: 0, key: 'c', value: null, headers: [] },
    ]);
  });

  it('LogAppendTime batches carry the attribute; their records read the max timestamp', () => {
    const b = encodeBatch([{ value: Buffer.from('x'), timestamp: 77 }, { value: Buffer.from('y'), timestamp: 77 }], { baseOffset: 0, logAppendTime: true });
    expect(readBatchHeader(b).timestampType).toBe(1);
    expect(decode(b).map((r) => [r.offset, r.ts, r.type])).toEqual([
      [0, 77, 1],
      [1, 77, 1],
    ]);
  });

  it('length prefixes of 1 to 4 bytes (records of 60 B to 3 MB) close the reserved gap exactly', () => {
    for (const n of [60, 200, 20_000, 3_000_000]) {
      const value = Buffer.alloc(n, 0x61 + (n % 26));
      const b = encodeBatch([{ key: Buffer.from('k'), value, timestamp: 1 }, { key: null, value: Buffer.from('z'), timestamp: 2 }], { baseOffset: 7 });
      const got = decode(b);
      expect(got.map((r) => r.value?.length)).toEqual([n, 1]);
      expect(got[0]!.value).toBe(value.toString('latin1'));
    }
  });

  it('RecordsWriter.skip reserves room that stays in place as the buffer grows', () => {
    const w = new RecordsWriter(64);
    const at = w.skip(61);
    w.buf.fill(0xab, at, at + 61); // a header written into the reserved room before the buffer grows
    w.beginRecord(0, 0, null, 0, -1, Buffer.alloc(5000, 1), 0, 5000, 0);
    w.endRecord();
    expect(at).toBe(0);
    expect(w.buf.subarray(at, at + 61).every((x) => x === 0xab)).toBe(true);
    expect(w.count).toBe(1);
    expect(w.pos).toBeGreaterThan(5061);
  });
});
