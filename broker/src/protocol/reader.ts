import { ProtocolError } from '../../../common/errors.js';

/** Bounds-checked cursor over one request frame. Never reads past `end`. */
export class Reader {
  offset: number;
  constructor(readonly buf: Buffer, offset = 0, readonly end = buf.length) {
    this.offset = offset;
  }

  remaining(): number { return this.end - this.offset; }

  private need(n: number): number {
    const at = this.offset;
    if (n < 0 || at + n > this.end) throw new ProtocolError(`truncated: need ${n} bytes at ${at}, have ${this.end - at}`);
    this.offset = at + n;
    return at;
  }

  int8(): number { return this.buf.readInt8(this.need(1)); }
  int16(): number { return this.buf.readInt16BE(this.need(2)); }
  uint16(): number { return this.buf.readUInt16BE(this.need(2)); }
  int32(): number { return this.buf.readInt32BE(this.need(4)); }
  uint32(): number { return this.buf.readUInt32BE(this.need(4)); }
  float64(): number { return this.buf.readDoubleBE(this.need(8)); }
  bool(): boolean { return this.buf[this.need(1)] !== 0; }

  /** int64 as a JS number: exact within +-2^53, which covers offsets, timestamps and ids. */
  int64(): number {
    const at = this.need(8);
    return this.buf.readInt32BE(at) * 4294967296 + this.buf.readUInt32BE(at + 4);
  }

  uvarint(): number {
    let value = 0;
    let shift = 0;
    for (let i = 0; i < 5; i++) {
      const b = this.buf[this.need(1)]!;
      value += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return value;
      shift += 7;
    }
    throw new ProtocolError('varint too long');
  }

  varint(): number {
    const u = this.uvarint();
    return u % 2 === 0 ? u / 2 : -(u + 1) / 2;
  }

  varlong(): number {
    let value = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      const b = this.buf[this.need(1)]!;
      value |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return Number((value >> 1n) ^ -(value & 1n));
      shift += 7n;
    }
    throw new ProtocolError('varlong too long');
  }

  uuid(): Buffer { return this.slice(16); }

  /** A zero-copy view of the next n bytes. */
  slice(n: number): Buffer {
    const at = this.need(n);
    return this.buf.subarray(at, at + n);
  }

  utf8(n: number): string {
    const at = this.need(n);
    return this.buf.toString('utf8', at, at + n);
  }
}
