// Response builder. Small values go into a growing scratch buffer; large byte
// payloads (record batches) are appended as separate chunks, so stored batches
// reach the socket without being copied.

const ZERO_COPY_MIN = 4096;

export class Writer {
  private chunks: Buffer[] = [];
  private buf: Buffer;
  private pos = 0;
  private flushed = 0; // total bytes in this.chunks

  constructor(initial = 256) {
    this.buf = Buffer.allocUnsafe(initial);
  }

  get length(): number { return this.flushed + this.pos; }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const size = Math.max(this.buf.length * 2, this.pos + n);
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  int8(v: number): this { this.ensure(1); this.buf.writeInt8(v, this.pos); this.pos += 1; return this; }
  int16(v: number): this { this.ensure(2); this.buf.writeInt16BE(v, this.pos); this.pos += 2; return this; }
  uint16(v: number): this { this.ensure(2); this.buf.writeUInt16BE(v, this.pos); this.pos += 2; return this; }
  int32(v: number): this { this.ensure(4); this.buf.writeInt32BE(v, this.pos); this.pos += 4; return this; }
  uint32(v: number): this { this.ensure(4); this.buf.writeUInt32BE(v >>> 0, this.pos); this.pos += 4; return this; }
  float64(v: number): this { this.ensure(8); this.buf.writeDoubleBE(v, this.pos); this.pos += 8; return this; }
  bool(v: boolean): this { return this.int8(v ? 1 : 0); }

  int64(v: number | bigint): this {
    this.ensure(8);
    this.buf.writeBigInt64BE(typeof v === 'bigint' ? v : BigInt(Math.trunc(v)), this.pos);
    this.pos += 8;
    return this;
  }

  uvarint(v: number): this {
    this.ensure(5);
    let x = v >>> 0;
    while (x >= 0x80) {
      this.buf[this.pos++] = (x & 0x7f) | 0x80;
      x >>>= 7;
    }
    this.buf[this.pos++] = x;
    return this;
  }

  varint(v: number): this { return this.uvarint(((v << 1) ^ (v >> 31)) >>> 0); }

  varlong(v: number): this {
    let x = BigInt.asUintN(64, (BigInt(v) << 1n) ^ (BigInt(v) >> 63n));
    this.ensure(10);
    while (x >= 0x80n) {
      this.buf[this.pos++] = Number(x & 0x7fn) | 0x80;
      x >>= 7n;
    }
    this.buf[this.pos++] = Number(x);
    return this;
  }

  bytes(b: Uint8Array): this {
    if (b.length >= ZERO_COPY_MIN) {
      this.cut();
      this.chunks.push(Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.length));
      this.flushed += b.length;
      return this;
    }
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
    return this;
  }

  utf8(s: string, byteLength: number): this {
    this.ensure(byteLength);
    this.buf.write(s, this.pos, byteLength, 'utf8');
    this.pos += byteLength;
    return this;
  }

  private cut(): void {
    if (this.pos === 0) return;
    this.chunks.push(this.buf.subarray(0, this.pos));
    this.flushed += this.pos;
    this.buf = this.buf.subarray(this.pos);
    this.pos = 0;
    if (this.buf.length < 64) this.buf = Buffer.allocUnsafe(256);
  }

  /** The encoded message as a list of chunks, in order. */
  toChunks(): Buffer[] {
    this.cut();
    return this.chunks;
  }

  /** The encoded message as one contiguous buffer (copies if chunked). */
  toBuffer(): Buffer {
    const chunks = this.toChunks();
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.flushed);
  }
}
