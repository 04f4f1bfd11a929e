// Column types for schemas whose records are decoded into JS values first
// (Protobuf with protobufjs, JSON with JSON.parse) and then put into the column
// builders (avro-columns.ts), as opposed to Avro, which is read from its binary
// straight into the builders (avro-arrow.ts).
import * as arrow from 'apache-arrow';
import { AvroDecodeError, BytesCol, I64Col, type Col } from './avro-columns.js';
import type { DeltaType } from './avro-arrow.js';

/** One schema type mapped to a column, and how a decoded value is appended. */
export interface PutMapped {
  arrow: arrow.DataType;
  delta: DeltaType;
  make(): Col;
  /** appends `v` (null / undefined: a null) to `col`, a builder from make(); throws AvroDecodeError when it does not fit */
  put(v: unknown, col: Col): void;
}

/** A decoded value that does not fit its column. */
export function mismatch(what: string, v: unknown): never {
  const shown = typeof v === 'string' ? JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v) : Array.isArray(v) ? 'an array' : v !== null && typeof v === 'object' ? 'an object' : String(v);
  throw new AvroDecodeError(`expected ${what}, got ${shown}`);
}

/** An int64 that is a JS number (exact below 2^53) or a bigint. */
export function putInt64(col: I64Col, v: number | bigint): void {
  if (typeof v === 'bigint') col.pushBig(v);
  else if (Number.isSafeInteger(v)) col.pushNumber(v);
  else col.pushBig(BigInt(v));
}

/** A string column holding each value as JSON text (what no column type expresses). */
export function jsonTextColumn(stringify: (v: unknown) => string = (v) => JSON.stringify(v)): PutMapped {
  return {
    arrow: new arrow.Utf8(), delta: 'string', make: () => new BytesCol(),
    put: (v, col) => (v === null || v === undefined ? col.appendNull() : (col as BytesCol).pushString(stringify(v))),
  };
}
