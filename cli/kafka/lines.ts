// One record per input line, as kafka-console-producer's LineMessageReader
// reads them, at the byte level (values are never decoded, so any bytes but a
// newline pass unchanged). A line is
//   [headers <headers-delimiter>] [key <key-separator>] value
// where headers are `k<headers-key-separator>v` pairs joined by
// <headers-separator> (parse.headers, headers.delimiter, headers.separator,
// headers.key.separator; key.separator with parse.key).

export interface LineFormat {
  keySeparator: Buffer | null;
  headers: { delimiter: Buffer; separator: Buffer; keySeparator: Buffer } | null;
}

/** A record as slices of the input buffer: [start, end), start -1 = null. */
export interface LineRecord {
  keyStart: number;
  keyEnd: number;
  valueStart: number;
  valueEnd: number;
  /** [keyStart, keyEnd, valueStart, valueEnd] per header */
  headers: number[];
}

export class LineError extends Error {}

/** Backslash escapes in a separator argument: \t \n \r \0 \\. */
export function separator(s: string): Buffer {
  const out = s.replace(/\\([tnr0\\])/g, (_, c: string) => ({ t: '\t', n: '\n', r: '\r', '0': '\0', '\\': '\\' } as Record<string, string>)[c]!);
  if (out === '') throw new LineError('a separator cannot be empty');
  return Buffer.from(out, 'utf8');
}

/** Splits `buf[start, end)` (one line, newline excluded) into a record; `lineNo` names the line in errors. */
export function parseLine(buf: Buffer, start: number, end: number, f: LineFormat, lineNo: number): LineRecord {
  const rec: LineRecord = { keyStart: -1, keyEnd: -1, valueStart: start, valueEnd: end, headers: [] };
  let at = start;
  if (f.headers) {
    const d = indexIn(buf, f.headers.delimiter, at, end);
    if (d < 0) throw new LineError(`no headers delimiter on line ${lineNo}`);
    if (d > at) {
      let h = at;
      while (h <= d) {
        const next = indexIn(buf, f.headers.separator, h, d);
        const pairEnd = next < 0 ? d : next;
        const ks = indexIn(buf, f.headers.keySeparator, h, pairEnd);
        if (ks < 0) throw new LineError(`no header key separator in a header of line ${lineNo}`);
        rec.headers.push(h, ks, ks + f.headers.keySeparator.length, pairEnd);
        h = pairEnd + f.headers.separator.length;
        if (next < 0) break;
      }
    }
    at = d + f.headers.delimiter.length;
  }
  if (f.keySeparator) {
    const k = indexIn(buf, f.keySeparator, at, end);
    if (k < 0) throw new LineError(`no key separator on line ${lineNo}`);
    rec.keyStart = at;
    rec.keyEnd = k;
    at = k + f.keySeparator.length;
  }
  rec.valueStart = at;
  return rec;
}

/** The first `needle` in `buf[from, to)` (wholly inside), or -1. */
function indexIn(buf: Buffer, needle: Buffer, from: number, to: number): number {
  if (needle.length === 1) {
    const i = buf.indexOf(needle[0]!, from);
    return i >= 0 && i < to ? i : -1;
  }
  const i = buf.indexOf(needle, from);
  return i >= 0 && i + needle.length <= to ? i : -1;
}

/** Splits input into lines across chunks: complete lines go to `line`, the tail waits for the next chunk. */
export class LineSplitter {
  private carry: Buffer | null = null;
  lineNo = 0;

  /** Calls `line(buf, start, end)` for every complete line of `chunk`. */
  push(chunk: Buffer, line: (buf: Buffer, start: number, end: number) => void): void {
    const buf = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    let at = 0;
    for (let nl = buf.indexOf(10, at); nl >= 0; nl = buf.indexOf(10, at)) {
      this.lineNo++;
      line(buf, at, nl);
      at = nl + 1;
    }
    this.carry = at < buf.length ? Buffer.from(buf.subarray(at)) : null;
  }

  /** The last line when the input does not end with a newline. */
  end(line: (buf: Buffer, start: number, end: number) => void): void {
    if (!this.carry) return;
    this.lineNo++;
    const b = this.carry;
    this.carry = null;
    line(b, 0, b.length);
  }
}
