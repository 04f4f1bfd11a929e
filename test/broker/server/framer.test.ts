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

/** A chunk with its own ArrayBuffer (not a slice of Node's shared pool), so "same buffer" means "not copied". */
const own = (b: Buffer): Buffer => Buffer.from(new Uint8Array(b).buffer);

describe('Framer copies', () => {
  it('hands out a frame that arrived in one chunk as a view of that chunk (no copy)', () => {
    const chunk = own(Buffer.concat([frame(Buffer.from('first')), frame(Buffer.from('second'))]));
    const r = new Framer(1024).push(chunk);
    expect(r.kind).toBe('frames');
    const frames = r.kind === 'frames' ? r.frames : [];
    expect(frames.map((f) => f.toString())).toEqual(['first', 'second']);
    for (const f of frames) expect(f.buffer).toBe(chunk.buffer);
  });

  it('copies a frame spread over chunks into one buffer of its size; the next frame stays a view of its chunk', () => {
    const big = Buffer.from(Array.from({ length: 3000 }, (_, i) => i & 0xff));
    const bytes = Buffer.concat([frame(big), frame(Buffer.from('next'))]);
    const f = new Framer(1 << 20);
    // the prefix split 2+2, the body over three chunks, the last holding the next frame too
    const cuts = [0, 2, 1000, 2500, bytes.length];
    const out: Buffer[] = [];
    const chunks = cuts.slice(1).map((end, i) => own(bytes.subarray(cuts[i]!, end)));
    for (const c of chunks) {
      const r = f.push(c);
      if (r.kind === 'frames') out.push(...r.frames);
    }
    expect(out.map((x) => x.length)).toEqual([3000, 4]);
    expect(out[0]!.equals(big)).toBe(true);
    for (const c of chunks) expect(out[0]!.buffer).not.toBe(c.buffer);
    expect(out[1]!.toString()).toBe('next');
    expect(out[1]!.buffer).toBe(chunks[chunks.length - 1]!.buffer);
    expect(f.pendingBytes).toBe(0);
  });
});
