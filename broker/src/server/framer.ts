// Length-prefixed framing as a pure function of bytes: feed chunks in, get
// whole frames out. A prefix above the limit (or negative) is an error (RN1002).
import { RunnelError } from '../../../common/errors.js';

export type FrameResult =
  | { kind: 'frames'; frames: Buffer[] }
  | { kind: 'error'; reason: string };

export class Framer {
  private pending: Buffer[] = [];
  /** Bytes received that belong to no complete frame yet (a partial frame or prefix). */
  pendingBytes = 0;
  private need = -1; // body length of the frame being assembled, -1 while reading a prefix

  /** May change between pushes (a SASL connection's limit rises once it is authenticated). */
  constructor(public maxFrameBytes: number) {}

  push(chunk: Buffer): FrameResult {
    if (chunk.length > 0) {
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
    }
    const frames: Buffer[] = [];
    for (;;) {
      if (this.need < 0) {
        if (this.pendingBytes < 4) break;
        const size = this.peekInt32();
        if (size < 0 || size > this.maxFrameBytes) return { kind: 'error', reason: new RunnelError('PROTOCOL_FRAME_TOO_LARGE', `frame length ${size} outside 0..${this.maxFrameBytes}`).message };
        this.take(4);
        this.need = size;
      }
      if (this.pendingBytes < this.need) break;
      frames.push(this.take(this.need));
      this.need = -1;
    }
    return { kind: 'frames', frames };
  }

  /** The length prefix, read across chunks when the first is shorter than 4 bytes (no join). */
  private peekInt32(): number {
    const head = this.pending[0]!;
    if (head.length >= 4) return head.readInt32BE(0);
    let v = 0;
    let got = 0;
    for (const c of this.pending) {
      for (let i = 0; i < c.length && got < 4; i++, got++) v = (v << 8) | c[i]!;
      if (got === 4) break;
    }
    return v | 0;
  }

  /**
   * The next `n` bytes. A frame inside one received chunk is a view of it (no
   * copy); one spread over chunks is copied once into a buffer of exactly its
   * size: the bytes after it stay views of their chunk, so the next frame
   * neither gets copied with this one nor keeps it alive.
   */
  private take(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0);
    const head = this.pending[0]!;
    this.pendingBytes -= n;
    if (head.length >= n) {
      if (head.length === n) this.pending.shift();
      else this.pending[0] = head.subarray(n);
      return head.subarray(0, n);
    }
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const c = this.pending[0]!;
      const k = Math.min(c.length, n - filled);
      c.copy(out, filled, 0, k);
      filled += k;
      if (k === c.length) this.pending.shift();
      else this.pending[0] = c.subarray(k);
    }
    return out;
  }
}
