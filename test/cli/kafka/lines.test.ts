// Input lines to records at the byte level: keys, per-line headers, lines
// split across chunks, bytes that are not UTF-8.
import { describe, expect, it } from 'vitest';
import { LineError, LineSplitter, parseLine, separator, type LineFormat } from '../../../cli/kafka/lines.js';

const keyed: LineFormat = { keySeparator: Buffer.from('\t'), headers: null };
const withHeaders: LineFormat = { keySeparator: Buffer.from('::'), headers: { delimiter: Buffer.from('|'), separator: Buffer.from(','), keySeparator: Buffer.from('=') } };

function fields(buf: Buffer, f: LineFormat): { key: string | null; value: string; headers: string[][] } {
  const r = parseLine(buf, 0, buf.length, f, 1);
  const h: string[][] = [];
  for (let i = 0; i < r.headers.length; i += 4) h.push([buf.toString('utf8', r.headers[i], r.headers[i + 1]), buf.toString('utf8', r.headers[i + 2], r.headers[i + 3])]);
  return { key: r.keyStart < 0 ? null : buf.toString('utf8', r.keyStart, r.keyEnd), value: buf.toString('utf8', r.valueStart, r.valueEnd), headers: h };
}

describe('parseLine', () => {
  it('splits the key at the first separator; the value keeps later ones', () => {
    expect(fields(Buffer.from('k1\tv\t1'), keyed)).toEqual({ key: 'k1', value: 'v\t1', headers: [] });
    expect(fields(Buffer.from('\tv'), keyed)).toEqual({ key: '', value: 'v', headers: [] });
  });

  it('reads headers, then a multi-byte key separator, then the value', () => {
    expect(fields(Buffer.from('a=1,b=,c=x=y|key::val'), withHeaders)).toEqual({ key: 'key', value: 'val', headers: [['a', '1'], ['b', ''], ['c', 'x=y']] });
    expect(fields(Buffer.from('|k::'), withHeaders)).toEqual({ key: 'k', value: '', headers: [] });
  });

  it('refuses a line without its key separator or header key separator, naming the line', () => {
    expect(() => parseLine(Buffer.from('novalue'), 0, 7, keyed, 12)).toThrow(new LineError('no key separator on line 12'));
    expect(() => parseLine(Buffer.from('a|k::v'), 0, 6, withHeaders, 3)).toThrow(/header key separator .* line 3/);
  });

  it('takes backslash escapes in separators', () => {
    expect(separator('\\t')).toEqual(Buffer.from('\t'));
    expect(separator('\\\\|')).toEqual(Buffer.from('\\|'));
    expect(() => separator('')).toThrow(LineError);
  });
});

describe('LineSplitter', () => {
  it('joins lines split across chunks and keeps every byte but the newline', () => {
    const s = new LineSplitter();
    const got: Buffer[] = [];
    const take = (b: Buffer, start: number, end: number): void => { got.push(Buffer.from(b.subarray(start, end))); };
    const raw = Buffer.concat([Buffer.from('ab\ncd'), Buffer.from([0xff, 0xfe, 0x0d]), Buffer.from('\n\nlast')]);
    for (let i = 0; i < raw.length; i += 3) s.push(raw.subarray(i, i + 3), take);
    s.end(take);
    expect(got).toEqual([Buffer.from('ab'), Buffer.concat([Buffer.from('cd'), Buffer.from([0xff, 0xfe, 0x0d])]), Buffer.alloc(0), Buffer.from('last')]);
    expect(s.lineNo).toBe(4);
  });
});
