// The `runnel.partitions` tag codec: what the archiver writes decodes to the same
// ranges, and a value not in the format reads as "no ranges" (null), never as wrong ranges.
import { describe, expect, it } from 'vitest';
import {
  decodePartitionRanges,
  encodePartitionRanges,
  mergePartitionRanges,
  type PartitionRange,
} from '../../../common/lake/partition-ranges.js';

const r = (partition: number, minOffset: number, maxOffset: number, records: number, bytes = 100): PartitionRange => ({
  partition,
  minOffset,
  maxOffset,
  records,
  minTimestampMs: 1_700_000_000_000 + minOffset,
  maxTimestampMs: 1_700_000_000_000 + maxOffset,
  bytes,
});

describe('partition ranges tag', () => {
  it('encodes sorted by partition and decodes to the same ranges', () => {
    const ranges = [r(2, 10, 19, 10), r(0, 0, 4, 5), r(1, 7, 7, 1, 0)];
    const text = encodePartitionRanges(ranges);
    expect(JSON.parse(text)[0]).toEqual([0, 0, 4, 5, 1_700_000_000_000, 1_700_000_000_004, 100]);
    expect(decodePartitionRanges(text)).toEqual([...ranges].sort((a, b) => a.partition - b.partition));
    expect(decodePartitionRanges('[]')).toEqual([]);
  });

  it('reads an absent tag as null', () => {
    expect(decodePartitionRanges(undefined)).toBeNull();
    expect(decodePartitionRanges(null)).toBeNull();
  });

  it.each([
    ['not JSON', '[[0,0,1,2,0,0,5]'],
    ['a JSON object', '{"0":[0,0,1,2,0,0,5]}'],
    ['a JSON string', '"[[0,0,1,2,0,0,5]]"'],
    ['an entry that is not an array', '[{"partition":0}]'],
    ['an entry with 6 fields', '[[0,0,1,2,0,0]]'],
    ['a field that is a string', '[[0,"0",1,2,0,0,5]]'],
    ['a field that is null', '[[0,0,1,2,null,0,5]]'],
    ['a fractional field', '[[0,0,1.5,2,0,0,5]]'],
    ['an integer beyond 2^53', '[[0,0,9007199254740993,2,0,0,5]]'],
    ['a negative partition', '[[-1,0,1,2,0,0,5]]'],
    ['a negative offset', '[[0,-1,1,2,0,0,5]]'],
    ['maxOffset below minOffset', '[[0,5,4,1,0,0,5]]'],
    ['no records', '[[0,0,1,0,0,0,5]]'],
    ['one bad entry among good ones', '[[0,0,1,2,0,0,5],[1,3,2,1,0,0,5]]'],
  ])('refuses %s', (_what, value) => {
    expect(decodePartitionRanges(value)).toBeNull();
  });

  it('merges per partition: union of offsets and times, sums of records and bytes', () => {
    const merged = mergePartitionRanges([
      [r(0, 0, 9, 10, 300), r(1, 0, 4, 5, 50)],
      [r(0, 10, 14, 5, 20)],
      [r(2, 3, 3, 1, 7), r(1, 5, 9, 5, 60)],
    ]);
    expect(merged).toEqual([
      { ...r(0, 0, 14, 15), bytes: 320 },
      { ...r(1, 0, 9, 10), bytes: 110 },
      r(2, 3, 3, 1, 7),
    ]);
  });
});
