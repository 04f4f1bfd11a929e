// JSON Schemas -> Arrow / Delta column types (docs/lake.md, "Typed columns"). A
// body is parsed with JSON.parse; each value is then put into its column builder
// (put-columns.ts).
//
//   object with properties            struct (one field per property, in the schema's order)
//   object with only additionalProperties: S   map<string, S>
//   array with one items schema       list<items>
//   integer number boolean string     int64 float64 boolean string
//   string with format date-time      timestamp (microseconds, UTC; RFC 3339 with an offset)
//   {"type": [T, "null"]}, anyOf / oneOf of T and {"type": "null"}   T
//   local $ref (#/definitions/..., #/$defs/...)   the schema it points to
//   anything else (several types, no type, other combinators, tuples,
//   external or recursive $refs)     string: the value as JSON text
//
// Every column is nullable (a property not required, or a row that does not
// decode, reads null). A value of the wrong type for its column (a document
// the schema does not allow) makes the record a decode error. Integers above
// 2^53 are as exact as JSON.parse reads them (not exact).
import * as arrow from 'apache-arrow';
import { AvroDecodeError, BoolCol, BytesCol, F64Col, I64Col, ListCol, StructCol, type Col } from './avro-columns.js';
import { jsonTextColumn, mismatch, putInt64, type PutMapped } from './put-columns.js';

type Schema = boolean | Record<string, unknown>;

const col = <C extends Col>(a: arrow.DataType, delta: PutMapped['delta'], make: () => C, put: (v: unknown, c: C) => void): PutMapped =>
  ({ arrow: a, delta, make, put: (v, c) => (v === null || v === undefined ? c.appendNull() : put(v, c as C)) });

const RFC3339 = /^(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:([Zz])|([+-])(\d\d):(\d\d))$/;

/** An RFC 3339 date-time -> microseconds since the epoch (UTC); null when it is not one. */
export function dateTimeMicros(s: string): number | null {
  const m = RFC3339.exec(s);
  if (!m) return null;
  const [y, mo, d, h, mi, se] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]));
  const ms = Date.UTC(y!, mo! - 1, d!, h!, mi!, se!);
  const back = new Date(ms);
  if (Number.isNaN(ms) || back.getUTCDate() !== d || back.getUTCMonth() !== mo! - 1 || h! > 23 || mi! > 59 || se! > 60) return null;
  const frac = Number((m[7] ?? '').slice(0, 6).padEnd(6, '0'));
  const off = m[8] ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) * 60_000;
  return (ms - off) * 1000 + frac;
}

const TEXT = jsonTextColumn();

/** The JSON pointer `ref` (#/...) in `root`, or undefined. */
function resolve(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let cur: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const k = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return typeof cur === 'boolean' || (cur !== null && typeof cur === 'object' && !Array.isArray(cur)) ? (cur as Schema) : undefined;
}

const isNull = (s: unknown) => typeof s === 'object' && s !== null && (s as Record<string, unknown>).type === 'null';

/** The one type a schema node has (null: none, or several), with "null" dropped. */
function typeOf(s: Record<string, unknown>): string | null {
  const t = s.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) {
    const rest = t.filter((x) => x !== 'null');
    return rest.length === 1 ? (rest[0] as string) : null;
  }
  if (s.properties !== undefined) return 'object';
  return null;
}

/**
 * Maps a JSON Schema node; `root` resolves local $refs, `refs` holds the
 * $refs being mapped (a recursive one falls back to JSON text).
 */
export function mapJson(s: Schema, root: Schema = s, refs: string[] = []): PutMapped {
  if (typeof s === 'boolean') return TEXT;
  if (typeof s.$ref === 'string') {
    const target = refs.includes(s.$ref) ? undefined : resolve(root, s.$ref);
    return target === undefined ? TEXT : mapJson(target, root, [...refs, s.$ref]);
  }
  for (const k of ['anyOf', 'oneOf']) {
    const alts = s[k];
    if (Array.isArray(alts)) {
      const rest = alts.filter((a) => !isNull(a));
      return rest.length === 1 && alts.length === 2 && s.type === undefined ? mapJson(rest[0] as Schema, root, refs) : TEXT;
    }
  }
  if (s.allOf !== undefined || s.not !== undefined || s.if !== undefined) return TEXT;
  switch (typeOf(s)) {
    case 'integer':
      return col(new arrow.Int64(), 'long', () => new I64Col(), (v, c) => (Number.isInteger(v) ? putInt64(c, v as number) : mismatch('an integer', v)));
    case 'number':
      return col(new arrow.Float64(), 'double', () => new F64Col(), (v, c) => (typeof v === 'number' ? c.push(v) : mismatch('a number', v)));
    case 'boolean':
      return col(new arrow.Bool(), 'boolean', () => new BoolCol(), (v, c) => (typeof v === 'boolean' ? c.push(v) : mismatch('a boolean', v)));
    case 'string':
      if (s.format === 'date-time') {
        return col(new arrow.TimestampMicrosecond('UTC'), 'timestamp', () => new I64Col(), (v, c) => {
          const us = typeof v === 'string' ? dateTimeMicros(v) : null;
          if (us === null) mismatch('an RFC 3339 date-time', v);
          c.pushNumber(us);
        });
      }
      return col(new arrow.Utf8(), 'string', () => new BytesCol(), (v, c) => (typeof v === 'string' ? c.pushString(v) : mismatch('a string', v)));
    case 'array': {
      const items = s.items ?? s.additionalItems;
      if (Array.isArray(items) || s.prefixItems !== undefined) return TEXT;
      const e = items === undefined ? TEXT : mapJson(items as Schema, root, refs);
      return col(new arrow.List(new arrow.Field('element', e.arrow, true)), { type: 'array', elementType: e.delta, containsNull: true }, () => new ListCol(e.make()), (v, c) => {
        if (!Array.isArray(v)) mismatch('an array', v);
        for (const x of v) e.put(x, c.child);
        c.pushValid();
      });
    }
    case 'object': {
      const props = s.properties as Record<string, Schema> | undefined;
      if (props && Object.keys(props).length) return struct(props, root, refs);
      const extra = s.additionalProperties;
      if (extra === undefined || typeof extra === 'boolean') return TEXT;
      const v = mapJson(extra as Schema, root, refs);
      const entries = new arrow.Field('key_value', new arrow.Struct([new arrow.Field('key', new arrow.Utf8(), false), new arrow.Field('value', v.arrow, true)]), false);
      return col(new arrow.Map_(entries), { type: 'map', keyType: 'string', valueType: v.delta, valueContainsNull: true }, () => new ListCol(new StructCol([new BytesCol(), v.make()])), (o, c) => {
        if (o === null || typeof o !== 'object' || Array.isArray(o)) mismatch('an object', o);
        const kv = c.child as StructCol;
        for (const [k, x] of Object.entries(o as Record<string, unknown>)) {
          (kv.children[0] as BytesCol).pushString(k);
          v.put(x, kv.children[1]!);
          kv.pushValid();
        }
        c.pushValid();
      });
    }
    default:
      return TEXT;
  }
}

/** An object's properties as columns. */
export function jsonFields(props: Record<string, Schema>, root: Schema, refs: string[] = []): { name: string; m: PutMapped }[] {
  return Object.entries(props).map(([name, p]) => ({ name, m: mapJson(p, root, refs) }));
}

function struct(props: Record<string, Schema>, root: Schema, refs: string[]): PutMapped {
  const fields = jsonFields(props, root, refs);
  return col(
    new arrow.Struct(fields.map((f) => new arrow.Field(f.name, f.m.arrow, true))),
    { type: 'struct', fields: fields.map((f) => ({ name: f.name, type: f.m.delta, nullable: true, metadata: {} })) },
    () => new StructCol(fields.map((f) => f.m.make())),
    (o, c) => {
      if (o === null || typeof o !== 'object' || Array.isArray(o)) mismatch('an object', o);
      const doc = o as Record<string, unknown>;
      for (let i = 0; i < fields.length; i++) fields[i]!.m.put(doc[fields[i]!.name], c.children[i]!);
      c.pushValid();
    },
  );
}

/** The top-level object properties of a schema (resolving a local $ref at the root), or null when it is not an object with properties. */
export function jsonTopFields(s: Schema): { name: string; m: PutMapped }[] | null {
  let node: Schema | undefined = s;
  const seen: string[] = [];
  while (typeof node === 'object' && typeof node.$ref === 'string' && !seen.includes(node.$ref)) {
    seen.push(node.$ref);
    node = resolve(s, node.$ref);
  }
  if (typeof node !== 'object' || typeOf(node) !== 'object') return null;
  const props = node.properties as Record<string, Schema> | undefined;
  return props && Object.keys(props).length ? jsonFields(props, s, seen) : null;
}

/** Parses a JSON body; throws AvroDecodeError when it is not JSON. */
export function parseJsonBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new AvroDecodeError(`not JSON (${(e as Error).message})`);
  }
}
