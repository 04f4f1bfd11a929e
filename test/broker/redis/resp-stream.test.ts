import { describe, expect, it } from 'vitest';
import { Pieces, RespError, RespStreamParser, type RespValue } from '../../../broker/src/redis/resp-stream.js';

const bulk = (b: Buffer | string): Buffer => {
  const x = Buffer.isBuffer(b) ? b : Buffer.from(b);
  return Buffer.concat([Buffer.from(`$${x.length}\r\n`), x, Buffer.from('\r\n')]);
};

/** A record batch-like payload whose bytes differ by position (so a misplaced slice shows). */
const payload = (n: number, seed: number): Buffer => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7 + seed) & 0xff));

/** An XRANGE reply of entries [id, [b, batch]] followed by other reply types. */
function wire(batches: Buffer[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${batches.length}\r\n`)];
  batches.forEach((b, i) => parts.push(Buffer.from('*2\r\n'), bulk(`${i * 10}-1`), Buffer.from('*2\r\n'), bulk('b'), bulk(b)));
  parts.push(Buffer.from('+OK\r\n-MOVED 12 10.0.0.1:7000\r\n:-42\r\n$-1\r\n*0\r\n$0\r\n\r\n'));
  return Buffer.concat(parts);
}

/** Replies with every bulk flattened to its bytes (Pieces joined), for comparison. */
const plain = (v: RespValue): unknown => (v instanceof Pieces ? Buffer.concat(v.parts) : Array.isArray(v) ? v.map(plain) : v instanceof Error ? `ERR:${v.message}` : v);

function parseChunks(chunks: Buffer[]): RespValue[] {
  const p = new RespStreamParser();
  const out: RespValue[] = [];
  for (const c of chunks) p.push(c, (v) => out.push(v));
  expect(p.idle).toBe(true);
  return out;
}

describe('RESP streaming parser', () => {
  const batches = [payload(61, 1), payload(300, 2), payload(1, 3)];
  const b = wire(batches);
  const expected = [
    batches.map((x, i) => [Buffer.from(`${i * 10}-1`), [Buffer.from('b'), x]]),
    'OK', 'ERR:MOVED 12 10.0.0.1:7000', -42, null, [], Buffer.alloc(0),
  ];

  it('parses a reply in one chunk into views of that chunk (no copy)', () => {
    const out = parseChunks([b]);
    expect(out.map(plain)).toEqual(expected);
    const entries = out[0] as RespValue[][];
    const batch = (entries[1]![1] as RespValue[])[1] as Pieces;
    expect(batch.parts).toHaveLength(1);
    expect(batch.parts[0]!.buffer).toBe(b.buffer); // a subarray of the received chunk
    expect(batch.length).toBe(300);
  });

  it('gives the same replies for a split at every byte position (length prefixes, payloads, CRLFs)', () => {
    for (let cut = 1; cut < b.length; cut++) {
      expect(parseChunks([b.subarray(0, cut), b.subarray(cut)]).map(plain), `split at ${cut}`).toEqual(expected);
    }
  });

  it('gives the same replies when every byte is its own chunk, and reads int32s across pieces', () => {
    const out = parseChunks(Array.from(b, (_, i) => b.subarray(i, i + 1)));
    expect(out.map(plain)).toEqual(expected);
    const batch = ((out[0] as RespValue[][])[1]![1] as RespValue[])[1] as Pieces;
    expect(batch.parts).toHaveLength(300);
    expect(batch.int32At(23)).toBe(batches[1]!.readInt32BE(23));
  });

  it('fails clearly on a bulk whose length is wrong (no CRLF where the length says)', () => {
    for (const bad of ['$5\r\nabc\r\n+OK\r\n', '$2\r\nabc\r\n', '*1\r\n$3\r\nabcd\r\n']) {
      expect(() => new RespStreamParser().push(Buffer.from(bad), () => undefined), bad).toThrow(/not followed by CRLF/);
    }
  });

  it('fails clearly on broken lengths, types and lines', () => {
    const cases: Array<[string, RegExp]> = [
      ['$abc\r\n', /not a number/],
      ['$-5\r\n', /outside/],
      ['*1x\r\n', /not a number/],
      ['!3\r\nabc\r\n', /unexpected RESP reply type 0x21/],
      ['+OK\rX', /CR not followed by LF/],
      ['\r\n', /empty reply line/],
      [`$${'9'.repeat(20)}\r\n`, /outside/],
    ];
    for (const [bad, err] of cases) {
      expect(() => new RespStreamParser().push(Buffer.from(bad), () => undefined), bad).toThrow(RespError);
      expect(() => new RespStreamParser().push(Buffer.from(bad), () => undefined), bad).toThrow(err);
    }
    expect(() => new RespStreamParser().push(Buffer.alloc(70_000, 0x2b), () => undefined)).toThrow(/longer than/);
    expect(() => new RespStreamParser().push(Buffer.from('*1\r\n'.repeat(9)), () => undefined)).toThrow(/nested deeper/);
  });

  it('holds an incomplete reply without answering it (the connection watchdog ends the wait)', () => {
    const p = new RespStreamParser();
    const out: RespValue[] = [];
    p.push(Buffer.from('*2\r\n$3\r\nab'), (v) => out.push(v));
    expect(out).toEqual([]);
    expect(p.idle).toBe(false);
  });
});
