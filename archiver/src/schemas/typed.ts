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
import { mapAvro, parseAvro, retype, type DeltaField, type Mapped } from './avro-arrow.js';

/** The raw columns, and the typed columns' own names: a value field with one of these names gets the prefix `value_`. */
export const RESERVED = new Set(['partition', 'offset', 'timestamp', 'timestamp_type', 'key', 'value', 'headers', 'date', 'decode_error', 'key_fields', 'value_fields']);
export const DECODE_ERROR = 'decode_error';

/** What the encode job needs to build typed columns. */
export interface TypedSpec {
  value: boolean;
  key: boolean;
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
export async function ensureSchemas(cols: RawColumn[], lookup: SchemaLookup): Promise<void> {
  tmpUnknown.clear();
  const need = new Set<number>();
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
  builder: arrow.Builder;
}

type Decoded = { id: number; v: unknown } | { error: string; reason: DecodeReason };

function decodeOne(c: RawColumn, i: number): Decoded {
  const s = c.offsets[i]!;
  const e = c.offsets[i + 1]!;
  const id = wireId(c, i);
  if (id < 0) {
    const first = e > s ? `first byte 0x${c.buf[s]!.toString(16).padStart(2, '0')}` : 'empty';
    return { error: `not the Confluent wire format (${first}, ${e - s} bytes)`, reason: 'not_wire_format' };
  }
  const entry = compiled.get(id) ?? tmpUnknown.get(id) ?? { error: `schema id ${id} is not in the registry`, reason: 'unknown_schema' as const };
  if (!('type' in entry)) return entry;
  const body = Buffer.from(c.buf.buffer, c.buf.byteOffset + s + 5, e - s - 5);
  let r: { value: unknown; offset: number };
  try {
    r = entry.type.decode(body, 0) as { value: unknown; offset: number };
  } catch (err) {
    return { error: `Avro body does not decode with schema id ${id}: ${(err as Error).message}`, reason: 'corrupt' };
  }
  if (r.offset < 0) return { error: `Avro body does not decode with schema id ${id}: truncated (${body.length} bytes)`, reason: 'corrupt' };
  if (r.offset !== body.length) return { error: `Avro body does not decode with schema id ${id}: ${body.length - r.offset} bytes left after the record`, reason: 'corrupt' };
  return { id, v: r.value };
}

/**
 * Builds the typed columns of one file's rows. The caller has run ensureSchemas
 * on the same columns.
 */
export function typedColumns(spec: TypedSpec, value: RawColumn, key: RawColumn): TypedResult {
  const n = value.n;
  const cols: Column[] = [];
  const byName = new Map<string, Column>();
  /** per `part:id`: the column index of each field (or of the whole value) */
  const plans = new Map<string, number[]>();
  const errors: Record<string, number> = {};
  const decodeError = new arrow.Utf8();
  const errB = arrow.makeBuilder({ type: decodeError, nullValues: [null] });

  const column = (base: string, id: number, m: Mapped): number => {
    const json = JSON.stringify(m.delta);
    let name = base;
    const have = spec.table[name] ?? byName.get(name)?.deltaJson;
    if (have !== undefined && have !== json) name = `${base}__v${id}`;
    let c = byName.get(name);
    if (!c) {
      c = { name, deltaJson: json, m, builder: arrow.makeBuilder({ type: m.build, nullValues: [null, undefined] }) };
      byName.set(name, c);
      cols.push(c);
    }
    return cols.indexOf(c);
  };
  const plan = (part: 'key' | 'value', id: number, ce: Compiled): number[] => {
    const k = `${part}:${id}`;
    let p = plans.get(k);
    if (p) return p;
    if (part === 'key') p = [column('key_fields', id, ce.fields ? mapRecordWhole(ce) : ce.whole!)];
    else if (ce.fields) p = ce.fields.map((f) => column(RESERVED.has(f.name) ? `value_${f.name}` : f.name, id, f.m));
    else p = [column('value_fields', id, ce.whole!)];
    plans.set(k, p);
    return p;
  };

  const row: unknown[] = [];
  for (let i = 0; i < n; i++) {
    row.length = 0;
    let err: string | null = null;
    const one = (part: 'key' | 'value', c: RawColumn) => {
      if (!c.valid[i]) return; // a null key or a tombstone has no typed columns, and is no error
      const d = decodeOne(c, i);
      if ('error' in d) {
        err = err ? `${err}; ${part}: ${d.error}` : `${part}: ${d.error}`;
        const k = `${part}:${d.reason}`;
        errors[k] = (errors[k] ?? 0) + 1;
        return;
      }
      const ce = compiled.get(d.id) as Compiled;
      const p = plan(part, d.id, ce);
      if (part === 'key' || !ce.fields) {
        const m = part === 'key' && ce.fields ? mapRecordWhole(ce) : ce.whole!;
        row[p[0]!] = m.conv(d.v);
        return;
      }
      const rec = d.v as Record<string, unknown>;
      for (let f = 0; f < ce.fields.length; f++) {
        const x = rec[ce.fields[f]!.name];
        row[p[f]!] = x === null || x === undefined ? null : ce.fields[f]!.m.conv(x);
      }
    };
    if (spec.value) one('value', value);
    if (spec.key) one('key', key);
    for (let j = 0; j < cols.length; j++) {
      const c = cols[j]!;
      // a column first seen at row i: the rows before it are null
      while (c.builder.length < i) c.builder.append(null);
      c.builder.append(row[j] ?? null);
    }
    errB.append(err);
  }
  const fields: arrow.Field[] = [];
  const data: arrow.Data[] = [];
  const delta: DeltaField[] = [];
  for (const c of cols) {
    while (c.builder.length < n) c.builder.append(null);
    fields.push(new arrow.Field(c.name, c.m.arrow, true));
    data.push(retype(c.builder.finish().flush(), c.m.arrow));
    delta.push({ name: c.name, type: c.m.delta, nullable: true, metadata: {} });
  }
  fields.push(new arrow.Field(DECODE_ERROR, decodeError, true));
  data.push(errB.finish().flush());
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
