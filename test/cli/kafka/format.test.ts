// How consume prints records: kafka-console-consumer's text columns and the JSON lines.
import { describe, expect, it } from 'vitest';
import { fromJsonBytes, Output, writeJson, writeText, type RecordView, type TextFormat } from '../../../cli/kafka/format.js';

const buf = Buffer.concat([Buffer.from('keyvalueh1v1h2'), Buffer.from([0xc3, 0x28])]);
const rec: RecordView = {
  topic: 't', partition: 2, offset: 41, timestamp: 1700000000000, timestampType: 0, buf,
  keyStart: 0, keyLen: 3, valueStart: 3, valueLen: 5, headers: [8, 2, 10, 2, 12, 2, 14, 2],
};
const plain: TextFormat = { keySeparator: Buffer.from('\t'), printKey: false, printHeaders: false, printPartition: false, printOffset: false, printTimestamp: false };

function text(r: RecordView, f: TextFormat): Buffer {
  const o = new Output();
  writeText(o, r, f);
  return o.take();
}

describe('writeText', () => {
  it('prints the value alone by default', () => {
    expect(text(rec, plain).toString()).toBe('value\n');
  });

  it('prints every column in Kafka\'s order, joined by the separator, bytes unchanged', () => {
    const all = { ...plain, keySeparator: Buffer.from(' | '), printKey: true, printHeaders: true, printPartition: true, printOffset: true, printTimestamp: true };
    expect(text(rec, all)).toEqual(Buffer.concat([Buffer.from('CreateTime:1700000000000 | Partition:2 | Offset:41 | h1:v1,h2:'), Buffer.from([0xc3, 0x28]), Buffer.from(' | key | value\n')]));
  });

  it('prints null for a null key or value and NO_HEADERS without headers', () => {
    const r = { ...rec, keyLen: -1, valueLen: -1, headers: [] };
    expect(text(r, { ...plain, printKey: true, printHeaders: true }).toString()).toBe('NO_HEADERS\tnull\tnull\n');
  });
});

describe('writeJson', () => {
  it('writes strings for UTF-8 and base64 for other bytes, which read back to the same bytes', () => {
    const o = new Output();
    writeJson(o, rec);
    const line = o.take().toString();
    expect(line.endsWith('\n')).toBe(true);
    const j = JSON.parse(line);
    expect(j).toEqual({
      topic: 't', partition: 2, offset: 41, timestamp: 1700000000000, timestampType: 'CreateTime', key: 'key', value: 'value',
      headers: [{ key: 'h1', value: 'v1' }, { key: 'h2', value: { base64: 'wyg=' } }],
    });
    expect(fromJsonBytes(j.headers[1].value)).toEqual(Buffer.from([0xc3, 0x28]));
    expect(fromJsonBytes(null)).toBeNull();
  });
});
