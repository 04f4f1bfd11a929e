// Typed columns of one data file (docs/lake.md, "Typed columns"): the values (and
// keys) of a topic with archive.value.schema=id (archive.key.schema=id) are in the
// Confluent wire format (magic byte 0, 4-byte big-endian schema id, Avro body);
// each is decoded with its registry schema into Arrow columns next to the raw
// ones, which stay as they are.
//
// - a value schema that is a record: one column per top-level field (a name that
//   is a metadata column gets the prefix `value_`); any other value schema: one
//   column `value_fields`. A schema'd key: one column `key_fields`.
// - a field whose type differs from the column of that name already in the table
//   (or earlier in this file) goes to `<name>__v<schema id>`: Delta cannot change a
//   column's type.
// - a record that does not decode (not the wire format, unknown id, a schema that
//   is not AVRO, truncated or corrupt body) gets null typed columns and its reason
//   in `decode_error`; it is archived like every other record.
import type avro from 'avsc';
import * as arrow from 'apache-arrow';
import { mapAvro, parseAvro, type DeltaField, type Mapped } from './avro-arrow.js';
import { AvroDecodeError, BytesCol, type Col, type Cursor } from './avro-columns.js';

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
  /** the schema cannot be used (its references do not resolve): its records get this as decode_error */
  error?: string;
}
export type SchemaLookup = (ids: number[]) => Promise<Record<number, SchemaText | null>>;

interface Compiled {
  type: avro.Type;
  /** record schema: its fields; other: null */
  fields: { name: string; m: Mapped }[] | null;
  whole: Mapped | null;
}
type Entry = Compiled | { error: string; reason: DecodeReason };
export type DecodeReason = 'not_wire_format' | 'unknown_schema' | 'unsupported_schema' | 'corrupt';

/**
 * Schemas compiled in this thread, by id (a registry id always names the same
 * schema, so they are kept for the life of the process). Unknown ids are not
 * kept: the next job asks again (the main thread rate-limits those lookups).
 */
const compiled = new Map<number, Entry>();

function compile(id: number, s: SchemaText | null): Entry {
  if (!s) return { error: `schema id ${id} is not in the registry`, reason: 'unknown_schema' };
  if (s.error) return { error: s.error, reason: 'unsupported_schema' };
  if (s.schemaType !== 'AVRO') return { error: `schema id ${id} is ${s.schemaType}; only AVRO is decoded into typed columns yet`, reason: 'unsupported_schema' };
  try {
    const type = parseAvro(s.schema, s.refs);
    if (type.typeName === 'record') {
      const rt = type as avro.types.RecordType;
      return { type, fields: rt.fields.map((f) => ({ name: f.name, m: mapAvro(f.type, [rt.name ?? '']) })), whole: null };
    }
    return { type, fields: null, whole: mapAvro(type) };
  } catch (e) {
    return { error: `schema id ${id} does not parse: ${(e as Error).message}`, reason: 'unsupported_schema' };
  }
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
    if ('type' in e || (e.reason !== 'unknown_schema' && !got[id]?.error)) compiled.set(id, e);
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
  m: Mapped;
  col: Col;
}

/** A schema's columns (a failed body truncates them back to the row). */
interface Plan {
  cols: Column[];
  /** per column of `cols`: its reader and builder (flat arrays for the hot loop) */
  readers: Mapped['read'][];
  builders: Col[];
}

type Failure = { error: string; reason: DecodeReason };

/**
 * Builds the typed columns of one file's rows. The caller has run ensureSchemas
 * on the same columns. Each body is read straight into the column builders
 * (avro-arrow.ts readers); a body that fails is cut off again and its row gets
 * null typed columns.
 */
export function typedColumns(spec: TypedSpec, value: RawColumn, key: RawColumn): TypedResult {
  const n = value.n;
  const cols: Column[] = [];
  const byName = new Map<string, Column>();
  /** per `part:id`: the columns of each field (or of the whole value) */
  const plans = new Map<string, Plan>();
  const errors: Record<string, number> = {};
  const errCol = new BytesCol();
  let row = 0;
  /** columns the current row wrote (value and key plans have no column in common) */
  let wrote = 0;

  const column = (base: string, id: number, m: Mapped): Column => {
    const json = JSON.stringify(m.delta);
    let name = base;
    const have = spec.table[name] ?? byName.get(name)?.deltaJson;
    if (have !== undefined && have !== json) name = `${base}__v${id}`;
    let c = byName.get(name);
    if (!c) {
      c = { name, deltaJson: json, m, col: m.make() };
      for (let k = 0; k < row; k++) c.col.appendNull(); // the rows before its first value
      byName.set(name, c);
      cols.push(c);
    }
    return c;
  };
  const plan = (part: 'key' | 'value', id: number, ce: Compiled): Plan => {
    const k = `${part}:${id}`;
    let p = plans.get(k);
    if (p) return p;
    let pc: Column[];
    if (part === 'key') pc = [column('key_fields', id, ce.fields ? mapRecordWhole(ce) : ce.whole!)];
    else if (ce.fields) pc = ce.fields.map((f) => column(RESERVED.has(f.name) ? `value_${f.name}` : f.name, id, f.m));
    else pc = [column('value_fields', id, ce.whole!)];
    const readers = part === 'key' || !ce.fields ? [(part === 'key' && ce.fields ? mapRecordWhole(ce) : ce.whole!).read] : ce.fields.map((f) => f.m.read);
    p = { cols: pc, readers, builders: pc.map((c) => c.col) };
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
    // latest: the whole value is the Avro body (no prefix)
    const skip = mode === 'id' ? 5 : 0;
    const id = mode === 'id' ? wireId(c, i) : (mode as number);
    if (mode !== 'id' && id < 0) return { error: `the subject of archive.${part}.schema=latest has no schema`, reason: 'unknown_schema' };
    if (id < 0) {
      const first = e > s ? `first byte 0x${c.buf[s]!.toString(16).padStart(2, '0')}` : 'empty';
      return { error: `not the Confluent wire format (${first}, ${e - s} bytes)`, reason: 'not_wire_format' };
    }
    // consecutive records mostly share a schema: the last one's plan is kept per part
    const k = part === 'value' ? 0 : 1;
    let entry: Entry;
    let p: Plan;
    if (lastId[k] === id) {
      entry = lastEntry[k]!;
      p = lastPlan[k]!;
    } else {
      entry = compiled.get(id) ?? tmpUnknown.get(id) ?? { error: `schema id ${id} is not in the registry`, reason: 'unknown_schema' as const };
      if (!('type' in entry)) return entry;
      p = plan(part, id, entry);
      lastId[k] = id;
      lastEntry[k] = entry;
      lastPlan[k] = p;
    }
    if (!('type' in entry)) return entry;
    // the body in place: the column's bytes, from after the 5-byte prefix to the row's end
    cur.buf = c === value ? valueBuf : keyBuf;
    cur.pos = s + skip;
    cur.end = e;
    try {
      const { readers, builders } = p;
      for (let f = 0; f < readers.length; f++) readers[f]!(cur, builders[f]!);
      if (cur.pos !== cur.end) throw new AvroDecodeError(`${cur.end - cur.pos} bytes left after the record`);
    } catch (err) {
      for (const c of p.cols) c.col.truncate(i); // each held exactly i values before this row
      const why = err instanceof AvroDecodeError && err.message === 'truncated' ? `truncated (${e - s - skip} bytes)` : (err as Error).message;
      return { error: `Avro body does not decode with schema id ${id}: ${why}`, reason: 'corrupt' };
    }
    wrote += p.cols.length;
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
    if (err === null) errCol.appendNull();
    else errCol.pushString(err);
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
  data.push(errCol.finish(utf8));
  delta.push({ name: DECODE_ERROR, type: 'string', nullable: true, metadata: {} });
  return { fields, data, delta, errors };
}

const wholeOf = new WeakMap<Compiled, Mapped>();
/** A record key schema as one struct column. */
function mapRecordWhole(ce: Compiled): Mapped {
  let m = wholeOf.get(ce);
  if (!m) wholeOf.set(ce, (m = mapAvro(ce.type)));
  return m;
}
