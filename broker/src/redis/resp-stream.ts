// An incremental RESP2 reply parser that never re-assembles a bulk string:
// a bulk arrives as `Pieces`, the subarrays of the socket chunks it was
// received in (no concat, no copy). Chunks may split a reply anywhere: inside
// a type/length line, inside a payload, inside the CRLF that ends it. A reply
// that breaks the framing (a bulk not followed by CRLF, a length that is not
// a number, an unknown type byte, an over-long line) throws RespError; the
// connection is then unusable and must be dropped.

/** A bulk string as the slices of the received chunks that hold it, in order. */
export class Pieces {
  constructor(readonly parts: Buffer[], readonly length: number) {}

  /** The byte at `i` (0 <= i < length). */
  byteAt(i: number): number {
    for (const p of this.parts) {
      if (i < p.length) return p[i]!;
      i -= p.length;
    }
    throw new RangeError(`byte ${i} past the end of a ${this.length}-byte bulk`);
  }

  /** Big-endian int32 at `at`, read across piece boundaries. */
  int32At(at: number): number {
    const first = this.parts[0];
    if (first && first.length >= at + 4) return first.readInt32BE(at);
    return ((this.byteAt(at) << 24) | (this.byteAt(at + 1) << 16) | (this.byteAt(at + 2) << 8) | this.byteAt(at + 3)) | 0;
  }

  /** For short bulks (ids, field names): the text. */
  toString(): string {
    return this.parts.length === 1 ? this.parts[0]!.toString('latin1') : Buffer.concat(this.parts, this.length).toString('latin1');
  }
}

export type RespValue = string | number | null | Error | Pieces | RespValue[];

export class RespError extends Error {}

/** A type/length line longer than this is not a reply this client sent a command for. */
const MAX_LINE = 64 * 1024;
/** Arrays nest at most this deep (XRANGE: 3). */
const MAX_DEPTH = 8;
/** A bulk larger than Redis's proto-max-bulk-len ceiling (512 MB) is a broken length. */
const MAX_BULK = 512 * 1024 * 1024;

interface Frame { items: RespValue[]; left: number }

const CR = 0x0d;
const LF = 0x0a;

export class RespStreamParser {
  /** Bytes of the current type/length line received so far (lines are short: copied). */
  private line: number[] = [];
  /** The line's CR was seen; its LF may come in the next chunk. */
  private sawCR = false;
  /** Bulk being received: its pieces and the bytes still missing; null while reading a line. */
  private bulk: { parts: Buffer[]; length: number; left: number } | null = null;
  /** CRLF bytes still expected after a complete bulk payload (2, 1 or 0). */
  private crlfLeft = 0;
  private readonly stack: Frame[] = [];

  /** Feeds one chunk; calls `onReply` for every top-level reply it completes, in order. */
  push(chunk: Buffer, onReply: (v: RespValue) => void): void {
    let at = 0;
    const n = chunk.length;
    while (at < n) {
      if (this.crlfLeft > 0) {
        const want = this.crlfLeft === 2 ? CR : LF;
        if (chunk[at] !== want) throw new RespError('bulk string not followed by CRLF (wrong length in the reply)');
        at++;
        if (--this.crlfLeft === 0) {
          const b = this.bulk!;
          this.bulk = null;
          this.complete(new Pieces(b.parts, b.length), onReply);
        }
        continue;
      }
      if (this.bulk) {
        const take = Math.min(this.bulk.left, n - at);
        // subarray: a view of the chunk, not a copy
        this.bulk.parts.push(chunk.subarray(at, at + take));
        this.bulk.left -= take;
        at += take;
        if (this.bulk.left === 0) this.crlfLeft = 2;
        continue;
      }
      // A type/length line: scan to LF.
      if (this.sawCR) {
        if (chunk[at] !== LF) throw new RespError('CR not followed by LF in a reply line');
        at++;
        this.sawCR = false;
        this.endLine(onReply);
        continue;
      }
      const cr = chunk.indexOf(CR, at);
      const end = cr < 0 ? n : cr;
      if (this.line.length + (end - at) > MAX_LINE) throw new RespError(`reply line longer than ${MAX_LINE} bytes`);
      for (let i = at; i < end; i++) this.line.push(chunk[i]!);
      at = end;
      if (cr >= 0) {
        at++;
        this.sawCR = true;
      }
    }
  }

  /** True between replies (nothing partial held). */
  get idle(): boolean {
    return this.line.length === 0 && !this.sawCR && !this.bulk && this.crlfLeft === 0 && this.stack.length === 0;
  }

  private endLine(onReply: (v: RespValue) => void): void {
    const line = this.line;
    this.line = [];
    if (line.length === 0) throw new RespError('empty reply line');
    const type = line[0]!;
    const text = String.fromCharCode(...line.slice(1));
    switch (type) {
      case 0x2b: // +
        return this.complete(text, onReply);
      case 0x2d: // -
        return this.complete(new Error(text), onReply);
      case 0x3a: // :
        return this.complete(this.int(text, -Infinity, Infinity), onReply);
      case 0x24: { // $
        const len = this.int(text, -1, MAX_BULK);
        if (len === -1) return this.complete(null, onReply);
        this.bulk = { parts: [], length: len, left: len };
        if (len === 0) this.crlfLeft = 2;
        return;
      }
      case 0x2a: { // *
        const len = this.int(text, -1, 0x7fffffff);
        if (len === -1) return this.complete(null, onReply);
        if (len === 0) return this.complete([], onReply);
        if (this.stack.length >= MAX_DEPTH) throw new RespError(`reply arrays nested deeper than ${MAX_DEPTH}`);
        this.stack.push({ items: [], left: len });
        return;
      }
      default:
        throw new RespError(`unexpected RESP reply type 0x${type.toString(16)}`);
    }
  }

  private int(text: string, min: number, max: number): number {
    if (!/^-?\d+$/.test(text)) throw new RespError(`reply length or integer "${text.slice(0, 40)}" is not a number`);
    const v = Number(text);
    if (v < min || v > max) throw new RespError(`reply length ${v} outside ${min}..${max}`);
    return v;
  }

  /** A value is complete: it fills its enclosing array, or is a top-level reply. */
  private complete(v: RespValue, onReply: (v: RespValue) => void): void {
    for (;;) {
      const top = this.stack[this.stack.length - 1];
      if (!top) {
        onReply(v);
        return;
      }
      top.items.push(v);
      if (--top.left > 0) return;
      this.stack.pop();
      v = top.items;
    }
  }
}
