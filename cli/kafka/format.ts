// How `runnel consume` prints a record. Text: kafka-console-consumer's
// DefaultMessageFormatter, columns joined by the key separator in this order:
// CreateTime:ts | Partition:p | Offset:o | headers (k:v,k2:v2 or NO_HEADERS) |
// key | value, each present when asked for; a null key or value prints as
// "null"; bytes are written as they are. JSON: one object per line with
// topic, partition, offset, timestamp, timestampType, key, value and headers;
// a key or value is null, a string (valid UTF-8), or {"base64": "..."}.
import { isUtf8 } from 'node:buffer';

export interface TextFormat {
  keySeparator: Buffer;
  printKey: boolean;
  printHeaders: boolean;
  printPartition: boolean;
  printOffset: boolean;
  printTimestamp: boolean;
}

/** A record's fields as slices of `buf` ([start, start + len), len -1 = null); headers as [keyStart, keyLen, valueStart, valueLen]... */
export interface RecordView {
  topic: string;
  partition: number;
  offset: number;
  timestamp: number;
  timestampType: 0 | 1;
  buf: Buffer;
  keyStart: number;
  keyLen: number;
  valueStart: number;
  valueLen: number;
  headers: number[];
}

const NULL = Buffer.from('null');
const NO_HEADERS = Buffer.from('NO_HEADERS');
const COLON = Buffer.from(':');
const COMMA = Buffer.from(',');
const NEWLINE = Buffer.from('\n');

/** Output bytes gathered in one growing buffer (written to stdout in one go per fetch response). */
export class Output {
  private buf = Buffer.allocUnsafe(1 << 16);
  private pos = 0;

  get bytes(): number {
    return this.pos;
  }

  get empty(): boolean {
    return this.pos === 0;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  push(b: Buffer): void {
    this.ensure(b.length);
    if (b.length < 32) {
      const d = this.buf;
      let at = this.pos;
      for (let i = 0; i < b.length; i++) d[at++] = b[i]!;
    } else b.copy(this.buf, this.pos);
    this.pos += b.length;
  }

  text(s: string): void {
    this.ensure(s.length * 3);
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  /** The bytes so far, a view valid until the next push (write it out and wait for the write first). */
  take(): Buffer {
    const b = this.buf.subarray(0, this.pos);
    this.pos = 0;
    if (this.buf.length > 64 << 20) this.buf = Buffer.allocUnsafe(1 << 16);
    return b;
  }
}

function slice(o: Output, buf: Buffer, start: number, len: number): void {
  o.push(len < 0 ? NULL : buf.subarray(start, start + len));
}

export function writeText(o: Output, r: RecordView, f: TextFormat): void {
  let first = true;
  const col = (): void => {
    if (!first) o.push(f.keySeparator);
    first = false;
  };
  if (f.printTimestamp) { col(); o.text(`${r.timestampType === 1 ? 'LogAppendTime' : 'CreateTime'}:${r.timestamp}`); }
  if (f.printPartition) { col(); o.text(`Partition:${r.partition}`); }
  if (f.printOffset) { col(); o.text(`Offset:${r.offset}`); }
  if (f.printHeaders) {
    col();
    if (r.headers.length === 0) o.push(NO_HEADERS);
    for (let i = 0; i < r.headers.length; i += 4) {
      if (i > 0) o.push(COMMA);
      slice(o, r.buf, r.headers[i]!, r.headers[i + 1]!);
      o.push(COLON);
      slice(o, r.buf, r.headers[i + 2]!, r.headers[i + 3]!);
    }
  }
  if (f.printKey) { col(); slice(o, r.buf, r.keyStart, r.keyLen); }
  col();
  slice(o, r.buf, r.valueStart, r.valueLen);
  o.push(NEWLINE);
}

export type JsonBytes = string | { base64: string } | null;

export function jsonBytes(buf: Buffer, start: number, len: number): JsonBytes {
  if (len < 0) return null;
  const b = buf.subarray(start, start + len);
  return isUtf8(b) ? b.toString('utf8') : { base64: b.toString('base64') };
}

/** The bytes a JsonBytes stands for (null stays null). */
export function fromJsonBytes(j: JsonBytes): Buffer | null {
  if (j === null) return null;
  return typeof j === 'string' ? Buffer.from(j, 'utf8') : Buffer.from(j.base64, 'base64');
}

export function writeJson(o: Output, r: RecordView): void {
  const headers: Array<{ key: JsonBytes; value: JsonBytes }> = [];
  for (let i = 0; i < r.headers.length; i += 4) headers.push({ key: jsonBytes(r.buf, r.headers[i]!, r.headers[i + 1]!), value: jsonBytes(r.buf, r.headers[i + 2]!, r.headers[i + 3]!) });
  o.text(`${JSON.stringify({
    topic: r.topic, partition: r.partition, offset: r.offset, timestamp: r.timestamp, timestampType: r.timestampType === 1 ? 'LogAppendTime' : 'CreateTime',
    key: jsonBytes(r.buf, r.keyStart, r.keyLen), value: jsonBytes(r.buf, r.valueStart, r.valueLen), headers,
  })}\n`);
}
