// Length-prefixed framing as a pure function of bytes: feed chunks in, get
// whole frames out. A prefix above the limit (or negative) is an error.

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
        if (size < 0 || size > this.maxFrameBytes) return { kind: 'error', reason: `frame length ${size} outside 0..${this.maxFrameBytes}` };
        this.take(4);
        this.need = size;
      }
      if (this.pendingBytes < this.need) break;
      frames.push(this.take(this.need));
      this.need = -1;
    }
    return { kind: 'frames', frames };
  }

  private peekInt32(): number {
    const head = this.pending[0]!;
    if (head.length >= 4) return head.readInt32BE(0);
    return this.join().readInt32BE(0);
  }

  private join(): Buffer {
    const all = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [all];
    return all;
  }

  private take(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0);
    let head = this.pending[0]!;
    if (head.length < n) head = this.join();
    const out = head.subarray(0, n);
    if (head.length === n) this.pending.shift();
    else this.pending[0] = head.subarray(n);
    this.pendingBytes -= n;
    return out;
  }
}
