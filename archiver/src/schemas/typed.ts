// Typed columns of one data file (docs/lake.md, "Typed columns"): the values (and
// keys) of a topic with archive.value.schema=id (archive.key.schema=id) are in the
// Confluent wire format (magic byte 0, 4-byte big-endian schema id, then the
// body: Avro binary; for Protobuf the message-index array, then the protobuf
// message; for JSON Schema the JSON text); each is decoded with its registry
// schema into Arrow columns next to the raw ones, which stay as they are.
//
// - a value schema that is a record (Avro), a message (Protobuf) or an object
//   with properties (JSON Schema): one column per top-level field (a name that
//   is a metadata column gets the prefix `value_`); any other value schema: one
//   column `value_fields`. A schema'd key: one column `key_fields`.
// - a field whose type differs from the column of that name already in the table
//   (or earlier in this file) goes to `<name>__v<schema id>`: Delta cannot change a
//   column's type.
// - a record that does not decode (not the wire format, unknown id, a schema that
//   that does not parse, truncated or corrupt body) gets null typed columns and its reason
//   in `decode_error`; it is archived like every other record.
import type avro from 'avsc';
import * as arrow from 'apache-arrow';
import type * as PB from 'protobufjs';
import { mapAvro, parseAvro, type DeltaField, type Mapped } from './avro-arrow.js';
import { genReader } from './avro-codegen.js';
import { AvroDecodeError, BytesCol, readInt, withCapacity, type Col, type Cursor } from './avro-columns.js';
import { parseProtobuf, protobufMessageAt, type ParsedProtobuf } from '../../../common/schemas/protobuf-schema.js';
import { mapMessage, messageFields } from './protobuf-arrow.js';
import { jsonTopFields, mapJson, parseJsonBody } from './json-arrow.js';

/** The raw columns, and the typed columns' own names: a value field with one of these names gets the prefix `value_`. */
export const RESERVED = new Set(['partition', 'offset', 'timestamp', 'timestamp_type', 'key', 'value', 'headers', 'date', 'decode_error', 'key_fields', 'value_fields']);
export const DECODE_ERROR = 'decode_error';

/**
 * How one part (value or key) is decoded: false = not at all; 'id' = Confluent
 * wire format, by the id in each record; a number = every body (no prefix) with
 * that schema id, the subject's latest (archive.*.schema=latest); -1 = latest
 * asked for but the subject has no schema.
 */
export type PartMode = false | 'id' | number;

/** What the encode job needs to build typed columns. */
export interface TypedSpec {
  value: PartMode;
  key: PartMode;
  /** typed columns the table has now: name -> JSON of its Delta type */
  table: Record<string, string>;
}

/** A registry schema as the lookup returns it: its type, text, and the texts of its references (in dependency order). */
export interface SchemaText {
  schemaType: string;
  schema: string;
  refs: string[];
  /** the references' names (Confluent's: the import path or $ref that uses each), parallel to `refs` */
  refNames?: string[];
  /** the schema cannot be used (its references do not resolve): its records get this as decode_error */
  error?: string;
}
export type SchemaLookup = (ids: number[]) => Promise<Record<number, SchemaText | null>>;

/** A column type: what a typed column is written as. */
type ColumnType = Pick<Mapped, 'arrow' | 'delta' | 'make'>;
/** Reads one body (the cursor spans it) into builders: a record's fields' columns, or the one whole column. */
type RowReader = (cur: Cursor, builders: Col[]) => void;

/** A schema (for Protobuf: one message of it) compiled to columns and readers. */
interface Compiled {
  /** how a body is named in decode errors */
  format: 'Avro' | 'Protobuf' | 'JSON';
  /** a record / message / object with properties: its top-level fields as columns; else null */
  fields: { name: string; m: ColumnType }[] | null;
  /** the value as one column (a key; a value without fields) */
  whole(): ColumnType;
  /** the reader into `fields`' columns (split) or the whole column */
  reader(split: boolean): RowReader;
}
/** A Protobuf schema: its message is chosen per record by the message indexes after the id. */
interface ProtobufSchema {
  parsed: ParsedProtobuf;
  /** by index path ("0", "1.0"): the compiled message */
  byPath: Map<string, Compiled | Failure>;
}
type Entry = Compiled | ProtobufSchema | Failure;
export type DecodeReason = 'not_wire_format' | 'unknown_schema' | 'unsupported_schema' | 'corrupt';
type Failure = { error: string; reason: DecodeReason };
const isFailure = (e: Entry): e is Failure => 'error' in e;

/**
 * Schemas compiled in this thread, by id (a registry id always names the same
 * schema, so they are kept for the life of the process). Unknown ids are not
 * kept: the next job asks again (the main thread rate-limits those lookups).
 */
const compiled = new Map<number, Entry>();

function compileAvro(type: avro.Type): Compiled {
  const rt = type.typeName === 'record' ? (type as avro.types.RecordType) : null;
  const fields = rt ? rt.fields.map((f) => ({ name: f.name, m: mapAvro(f.type, [rt.name ?? '']) })) : null;
  let whole: Mapped | undefined;
  const wholeOf = () => (whole ??= mapAvro(type));
  return {
    format: 'Avro', fields, whole: wholeOf,
    // one generated function per schema (avro-codegen.ts): the fields' readers inlined
    reader: (split) => genReader(split && fields ? fields.map((f) => f.m) : [wholeOf()]),
  };
}

function compileMessage(t: PB.Type): Compiled {
  const fields = messageFields(t);
  let whole: ReturnType<typeof mapMessage> | undefined;
  const wholeOf = () => (whole ??= mapMessage(t));
  const decode = (cur: Cursor): Record<string, unknown> => {
    try {
      return t.decode(cur.buf.subarray(cur.pos, cur.end)) as unknown as Record<string, unknown>;
    } catch (e) {
      throw new AvroDecodeError((e as Error).message);
    }
  };
  return {
    format: 'Protobuf', fields, whole: wholeOf,
    reader: (split) => {
      if (split) {
        return (cur, builders) => {
          const msg = decode(cur);
          for (let f = 0; f < fields.length; f++) fields[f]!.m.put(fields[f]!.get(msg), builders[f]!);
        };
      }
      const put = wholeOf().put;
      return (cur, builders) => put(decode(cur), builders[0]!);
    },
  };
}

function compileJson(text: string): Compiled {
  const schema = JSON.parse(text) as boolean | Record<string, unknown>;
  const fields = jsonTopFields(schema);
  let whole: ReturnType<typeof mapJson> | undefined;
  const wholeOf = () => (whole ??= mapJson(schema));
  const parse = (cur: Cursor) => parseJsonBody(cur.buf.toString('utf8', cur.pos, cur.end));
  return {
    format: 'JSON', fields, whole: wholeOf,
    reader: (split) => {
      if (split && fields) {
        return (cur, builders) => {
          const doc = parse(cur);
          if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new AvroDecodeError(`expected an object, got ${doc === null ? 'null' : Array.isArray(doc) ? 'an array' : typeof doc}`);
          for (let f = 0; f < fields.length; f++) fields[f]!.m.put((doc as Record<string, unknown>)[fields[f]!.name], builders[f]!);
        };
      }
      const put = wholeOf().put;
      return (cur, builders) => {
        const doc = parse(cur);
        // a null document (JSON `null`) is a null column
        put(doc, builders[0]!);
      };
    },
  };
}

function compile(id: number, s: SchemaText | null): Entry {
  if (!s) return { error: `schema id ${id} is not in the registry`, reason: 'unknown_schema' };
  if (s.error) return { error: s.error, reason: 'unsupported_schema' };
  try {
    switch (s.schemaType) {
      case 'AVRO':
        return compileAvro(parseAvro(s.schema, s.refs));
      case 'PROTOBUF':
        return { parsed: parseProtobuf(s.schema, s.refs.map((schema, i) => ({ name: s.refNames?.[i] ?? `ref${i}`, schema }))), byPath: new Map() };
      case 'JSON':
        return compileJson(s.schema);
      default:
        return { error: `schema id ${id} is ${s.schemaType}, which has no typed columns`, reason: 'unsupported_schema' };
    }
  } catch (e) {
    return { error: `schema id ${id} does not parse: ${(e as Error).message}`, reason: 'unsupported_schema' };
  }
}

/**
 * Confluent's Protobuf message indexes at the cursor (advanced past them): a
 * zig-zag varint count, then that many zig-zag varint indexes; a single 0 byte
 * is the path [0] (the first message).
 */
export function readMessageIndexes(cur: Cursor): number[] {
  const n = readInt(cur);
  if (n === 0) return [0];
  if (n < 0 || n > 64) throw new AvroDecodeError(`message index count ${n}`);
  const path: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = readInt(cur);
    if (x < 0) throw new AvroDecodeError(`negative message index ${x}`);
    path.push(x);
  }
  return path;
}

/** The compiled message of a Protobuf schema that an index path names. */
function messageOf(id: number, ps: ProtobufSchema, path: number[]): Compiled | Failure {
  const key = path.join('.');
  let c = ps.byPath.get(key);
  if (!c) {
    const t = protobufMessageAt(ps.parsed, path);
    c = t ? compileMessage(t) : { error: `Protobuf schema id ${id} has no message at index [${path.join(', ')}]`, reason: 'corrupt' };
    ps.byPath.set(key, c);
  }
  return c;
}

/** Raw bytes of one binary column (the ColumnSet's key or value). */
export interface RawColumn {
  buf: Uint8Array;
  offsets: Int32Array;
  valid: Uint8Array;
  n: number;
}

/** The schema id of a wire-format value, or -1 when it is not in the wire format. */
export function wireId(c: RawColumn, i: number): number {
  const s = c.offsets[i]!;
  const e = c.offsets[i + 1]!;
  if (!c.valid[i] || e - s < 5 || c.buf[s] !== 0) return -1;
  return ((c.buf[s + 1]! << 24) | (c.buf[s + 2]! << 16) | (c.buf[s + 3]! << 8) | c.buf[s + 4]!) >>> 0;
}

/** Fetches (through `lookup`) and compiles the schemas of the ids in these columns that this thread has not compiled yet. */
export async function ensureSchemas(cols: RawColumn[], lookup: SchemaLookup, latest: number[] = []): Promise<void> {
  tmpUnknown.clear();
  const need = new Set<number>(latest.filter((id) => id >= 0 && !compiled.has(id)));
  for (const c of cols) {
    for (let i = 0; i < c.n; i++) {
      const id = wireId(c, i);
      if (id >= 0 && !compiled.has(id)) need.add(id);
    }
  }
  if (!need.size) return;
  const got = await lookup([...need]);
  for (const id of need) {
    const e = compile(id, got[id] ?? null);
    // unknown ids are asked again by a later job (the schema may be registered by then)
    if (!isFailure(e) || (e.reason !== 'unknown_schema' && !got[id]?.error)) compiled.set(id, e);
    else tmpUnknown.set(id, e);
  }
}
/** Unknown ids of the current job only. */
const tmpUnknown = new Map<number, Entry>();

export interface TypedResult {
  fields: arrow.Field[];
  data: arrow.Data[];
  delta: DeltaField[];
  /** `part:reason` -> records */
  errors: Record<string, number>;
}

interface Column {
  name: string;
  deltaJson: string;
  m: ColumnType;
  col: Col;
}

/** A schema's columns (a failed body truncates them back to the row). */
interface Plan {
  cols: Column[];
  read: RowReader;
  builders: Col[];
}

/**
 * Builds the typed columns of one file's rows. The caller has run ensureSchemas
 * on the same columns. Avro bodies are read straight into the column builders
 * (avro-arrow.ts readers), Protobuf and JSON bodies decoded and then put
 * (protobuf-arrow.ts, json-arrow.ts); a body that fails is cut off again and its
 * row gets null typed columns.
 */
export function typedColumns(spec: TypedSpec, value: RawColumn, key: RawColumn): TypedResult {
  const n = value.n;
  const cols: Column[] = [];
  const byName = new Map<string, Column>();
  /** per `part:id[:message path]`: the columns of each field (or of the whole value) */
  const plans = new Map<string, Plan>();
  const errors: Record<string, number> = {};
  /** rows that did not decode, and why (most files have none: decode_error is then all null) */
  const errRows: number[] = [];
  const errTexts: string[] = [];
  let row = 0;
  /** columns the current row wrote (value and key plans have no column in common) */
  let wrote = 0;

  const column = (base: string, id: number, m: ColumnType): Column => {
    const json = JSON.stringify(m.delta);
    let name = base;
    const have = spec.table[name] ?? byName.get(name)?.deltaJson;
    if (have !== undefined && have !== json) name = `${base}__v${id}`;
    let c = byName.get(name);
    if (!c) {
      c = { name, deltaJson: json, m, col: withCapacity(n, () => m.make()) };
      for (let k = 0; k < row; k++) c.col.appendNull(); // the rows before its first value
      byName.set(name, c);
      cols.push(c);
    }
    return c;
  };
  const plan = (part: 'key' | 'value', id: number, ce: Compiled, k: string): Plan => {
    let p = plans.get(k);
    if (p) return p;
    const split = part === 'value' && ce.fields !== null;
    const pc = split
      ? ce.fields!.map((f) => column(RESERVED.has(f.name) ? `value_${f.name}` : f.name, id, f.m))
      : [column(part === 'key' ? 'key_fields' : 'value_fields', id, ce.whole())];
    p = { cols: pc, read: ce.reader(split), builders: pc.map((c) => c.col) };
    plans.set(k, p);
    return p;
  };

  const cur: Cursor = { buf: Buffer.alloc(0), pos: 0, end: 0 };
  const lastId = [-1, -1];
  const lastEntry: (Entry | undefined)[] = [undefined, undefined];
  const lastPlan: (Plan | undefined)[] = [undefined, undefined];
  const valueBuf = Buffer.from(value.buf.buffer, value.buf.byteOffset, value.buf.byteLength);
  const keyBuf = Buffer.from(key.buf.buffer, key.buf.byteOffset, key.buf.byteLength);
  /** decodes one part of row i into the columns; returns why not, or null */
  const one = (part: 'key' | 'value', c: RawColumn, i: number): Failure | null => {
    const s = c.offsets[i]!;
    const e = c.offsets[i + 1]!;
    const mode = part === 'value' ? spec.value : spec.key;
    // latest: the whole value is the body (no prefix)
    const skip = mode === 'id' ? 5 : 0;
    const id = mode === 'id' ? wireId(c, i) : (mode as number);
    if (mode !== 'id' && id < 0) return { error: `the subject of archive.${part}.schema=latest has no schema`, reason: 'unknown_schema' };
    if (id < 0) {
      const first = e > s ? `first byte 0x${c.buf[s]!.toString(16).padStart(2, '0')}` : 'empty';
      return { error: `not the Confluent wire format (${first}, ${e - s} bytes)`, reason: 'not_wire_format' };
    }
    // the body in place: the column's bytes, from after the 5-byte prefix to the row's end
    cur.buf = c === value ? valueBuf : keyBuf;
    cur.pos = s + skip;
    cur.end = e;
    // consecutive records mostly share a schema: the last one's plan is kept per part
    const k = part === 'value' ? 0 : 1;
    let entry: Entry;
    let p: Plan | undefined;
    if (lastId[k] === id) {
      entry = lastEntry[k]!;
      p = lastPlan[k];
    } else {
      entry = compiled.get(id) ?? tmpUnknown.get(id) ?? { error: `schema id ${id} is not in the registry`, reason: 'unknown_schema' as const };
      if (isFailure(entry)) return entry;
      // Protobuf: each record's message indexes pick its plan
      p = 'parsed' in entry ? undefined : plan(part, id, entry, `${part}:${id}`);
      lastId[k] = id;
      lastEntry[k] = entry;
      lastPlan[k] = p;
    }
    if (isFailure(entry)) return entry;
    const format = 'parsed' in entry ? 'Protobuf' : entry.format;
    try {
      if ('parsed' in entry) {
        // with `latest` there is no prefix: the schema's first message
        const path = skip ? readMessageIndexes(cur) : [0];
        const m = messageOf(id, entry, path);
        if (isFailure(m)) return m;
        p = plan(part, id, m, `${part}:${id}:${path.join('.')}`);
      }
      p!.read(cur, p!.builders);
    } catch (err) {
      for (const c of p?.cols ?? []) c.col.truncate(i); // each held exactly i values before this row
      const why = err instanceof AvroDecodeError && err.message === 'truncated' ? `truncated (${e - s - skip} bytes)` : (err as Error).message;
      return { error: `${format} body does not decode with schema id ${id}: ${why}`, reason: 'corrupt' };
    }
    wrote += p!.cols.length;
    return null;
  };

  for (let i = 0; i < n; i++) {
    row = i;
    wrote = 0;
    let err: string | null = null;
    // a null key or a tombstone has no typed columns, and is no error
    const fv = spec.value !== false && value.valid[i] ? one('value', value, i) : null;
    const fk = spec.key !== false && key.valid[i] ? one('key', key, i) : null;
    if (fv) {
      err = `value: ${fv.error}`;
      errors[`value:${fv.reason}`] = (errors[`value:${fv.reason}`] ?? 0) + 1;
    }
    if (fk) {
      err = err ? `${err}; key: ${fk.error}` : `key: ${fk.error}`;
      errors[`key:${fk.reason}`] = (errors[`key:${fk.reason}`] ?? 0) + 1;
    }
    // columns this row did not write (other schemas' fields, a failed body, a column first seen later) are null
    if (wrote !== cols.length) for (let j = 0; j < cols.length; j++) {
      const col = cols[j]!.col;
      while (col.n <= i) col.appendNull();
    }
    if (err !== null) {
      errRows.push(i);
      errTexts.push(err);
    }
  }
  const fields: arrow.Field[] = [];
  const data: arrow.Data[] = [];
  const delta: DeltaField[] = [];
  for (const c of cols) {
    fields.push(new arrow.Field(c.name, c.m.arrow, true));
    data.push(c.col.finish(c.m.arrow));
    delta.push({ name: c.name, type: c.m.delta, nullable: true, metadata: {} });
  }
  const utf8 = new arrow.Utf8();
  fields.push(new arrow.Field(DECODE_ERROR, utf8, true));
  data.push(errorColumn(n, errRows, errTexts, utf8));
  delta.push({ name: DECODE_ERROR, type: 'string', nullable: true, metadata: {} });
  return { fields, data, delta, errors };
}

/** The decode_error column: null except at `rows`. */
function errorColumn(n: number, rows: number[], texts: string[], utf8: arrow.Utf8): arrow.Data {
  if (!rows.length) return arrow.makeData({ type: utf8, length: n, nullCount: n, nullBitmap: new Uint8Array((n + 7) >> 3), valueOffsets: new Int32Array(n + 1), data: new Uint8Array(0) });
  const col = new BytesCol();
  let next = 0;
  for (let i = 0; i < n; i++) {
    if (rows[next] === i) col.pushString(texts[next++]!);
    else col.appendNull();
  }
  return col.finish(utf8);
}
