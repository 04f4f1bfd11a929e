import { describe, expect, it } from 'vitest';
import { Framer } from '../../../broker/src/server/framer.js';

const frame = (body: Buffer): Buffer => {
  const b = Buffer.alloc(4 + body.length);
  b.writeInt32BE(body.length, 0);
  body.copy(b, 4);
  return b;
};

describe('Framer', () => {
  it('reassembles frames split at every byte boundary', () => {
    const bytes = Buffer.concat([frame(Buffer.from('hello')), frame(Buffer.alloc(0)), frame(Buffer.from('world!'))]);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const f = new Framer(1024);
      const a = f.push(bytes.subarray(0, cut));
      const b = f.push(bytes.subarray(cut));
      const frames = [...(a.kind === 'frames' ? a.frames : []), ...(b.kind === 'frames' ? b.frames : [])];
      expect(frames.map((x) => x.toString())).toEqual(['hello', '', 'world!']);
    }
  });

  it('rejects a length prefix over the limit or negative', () => {
    expect(new Framer(100).push(frame(Buffer.alloc(101))).kind).toBe('error');
    const neg = Buffer.alloc(4);
    neg.writeInt32BE(-1, 0);
    expect(new Framer(100).push(neg).kind).toBe('error');
  });

  it('waits for a partial frame without producing output', () => {
    const f = new Framer(100);
    const r = f.push(frame(Buffer.from('abcdef')).subarray(0, 7));
    expect(r).toEqual({ kind: 'frames', frames: [] });
  });
});
