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

/** Appends output to a list of buffers (written to stdout in one go per fetch). */
export class Output {
  parts: Buffer[] = [];
  bytes = 0;
  private scratch = '';

  push(b: Buffer): void {
    this.flushText();
    this.parts.push(b);
    this.bytes += b.length;
  }

  text(s: string): void {
    this.scratch += s;
    if (this.scratch.length > 4096) this.flushText();
  }

  private flushText(): void {
    if (this.scratch === '') return;
    const b = Buffer.from(this.scratch, 'utf8');
    this.scratch = '';
    this.parts.push(b);
    this.bytes += b.length;
  }

  get empty(): boolean {
    return this.parts.length === 0 && this.scratch === '';
  }

  take(): Buffer {
    this.flushText();
    const b = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.bytes);
    this.parts = [];
    this.bytes = 0;
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
