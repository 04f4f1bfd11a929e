// Avro schemas -> Arrow / Delta column types, and Avro values -> what the Arrow
// builders take (docs/lake.md, "Typed columns").
//
//   record           struct (every field nullable)
//   array            list<element>
//   map              map<string, V> (entries struct "key_value" {key, value}, as Parquet names them)
//   ["null", T]      T, nullable (either order)
//   other unions     string: the value in Avro's JSON encoding (the documented fallback)
//   enum             string (the symbol)
//   fixed, bytes     binary
//   boolean int long float double string  boolean int32 int64 float32 float64 utf8
//   decimal (bytes or fixed), precision <= 38   decimal(precision, scale) (Arrow Decimal128)
//   decimal with precision > 38                  string (the exact decimal text)
//   date             date32
//   timestamp-millis, timestamp-micros           timestamp (microseconds, UTC): Delta's `timestamp`
//   local-timestamp-millis/micros                long (their integers: Delta's timestamp_ntz needs a table feature)
//   uuid             string
//   time-millis, time-micros                     int32 / int64 (Delta has no time type)
//   recursive types  string (Avro JSON of the value): Delta cannot express recursion
//
// Avro longs decode as BigInt (an id above 2^53 stays exact). Every typed column
// and nested field is nullable: a row whose value does not decode has null
// typed columns, and older data files lack newer columns.
import avro from 'avsc';
import * as arrow from 'apache-arrow';

/** A Delta schema type (PROTOCOL.md "Schema Serialization Format"). */
export type DeltaType = string | { type: 'struct'; fields: DeltaField[] } | { type: 'array'; elementType: DeltaType; containsNull: boolean } | { type: 'map'; keyType: DeltaType; valueType: DeltaType; valueContainsNull: boolean };
export interface DeltaField { name: string; type: DeltaType; nullable: boolean; metadata: Record<string, unknown> }

/** One Avro type mapped to a column. */
export interface Mapped {
  /** the Arrow type written to Parquet */
  arrow: arrow.DataType;
  /** the type the Arrow builder is made with (timestamps build as int64 and are re-typed after) */
  build: arrow.DataType;
  delta: DeltaType;
  /** the decoded Avro value (never null here) -> the builder's value */
  conv: (v: unknown) => unknown;
}

interface Tap { buf: Buffer; pos: number }

/**
 * An Avro long (zig-zag varint) as a BigInt: exact over the whole int64 range
 * (avsc's own long type refuses values beyond 2^53). A truncated varint moves
 * the position past the buffer, which avsc reports as a truncated body.
 */
export function readBigLong(tap: Tap): bigint {
  const buf = tap.buf;
  let pos = tap.pos;
  let b = buf[pos++]!;
  let n = b & 0x7f;
  let shift = 7;
  // up to 7 bytes (49 bits) in a double: exact
  while (b & 0x80 && shift < 49) {
    b = buf[pos++]!;
    n += (b & 0x7f) * 2 ** shift;
    shift += 7;
  }
  if (b & 0x80) {
    let big = BigInt(n);
    let s = 49n;
    do {
      b = buf[pos++]!;
      big |= BigInt(b & 0x7f) << s;
      s += 7n;
    } while (b & 0x80 && s < 70n);
    tap.pos = pos;
    big = BigInt.asUintN(64, big);
    return BigInt.asIntN(64, (big >> 1n) ^ -(big & 1n));
  }
  tap.pos = pos;
  return BigInt(n % 2 ? -(n + 1) / 2 : n / 2);
}

/** The logical type every plain `long` of a schema is rewritten to (avsc's types are frozen: a subclass reads them). */
const EXACT_LONG = 'runnel.exact-long';

/** The schema JSON with every plain long as EXACT_LONG (named-type references and other types unchanged). */
function exactLongs(s: unknown): unknown {
  if (s === 'long') return { type: 'long', logicalType: EXACT_LONG };
  if (Array.isArray(s)) return s.map(exactLongs);
  if (s === null || typeof s !== 'object') return s;
  const o = { ...(s as Record<string, unknown>) };
  if (o['type'] === 'long') {
    if (o['logicalType'] === undefined) o['logicalType'] = EXACT_LONG;
    return o;
  }
  if (typeof o['type'] === 'object') o['type'] = exactLongs(o['type']);
  if (o['type'] === 'record' || o['type'] === 'error') o['fields'] = (o['fields'] as Record<string, unknown>[] | undefined)?.map((f) => ({ ...f, type: exactLongs(f['type']) }));
  if (o['type'] === 'array') o['items'] = exactLongs(o['items']);
  if (o['type'] === 'map') o['values'] = exactLongs(o['values']);
  return o;
}

/** A logical type kept as its underlying value; the mapping reads its attributes. */
class Tagged extends avro.types.LogicalType {
  readonly attrs: Record<string, unknown>;
  constructor(attrs: avro.Schema, opts?: unknown) {
    super(attrs, opts);
    this.attrs = attrs as unknown as Record<string, unknown>;
  }
  override _fromValue(v: unknown) { return v; }
  override _toValue(v: unknown) { return v; }
  override _resolve(t: avro.Type) { return t.typeName === this.underlyingType.typeName ? (v: unknown) => v : undefined; }
  /** longs (plain, or under timestamp-*) read exactly, as BigInt */
  _read(tap: Tap): unknown {
    return this.underlyingType.typeName === 'long' ? readBigLong(tap) : (this.underlyingType as unknown as { _read(t: Tap): unknown })._read(tap);
  }
}
const LOGICAL = ['decimal', 'date', 'timestamp-millis', 'timestamp-micros', 'uuid', EXACT_LONG];

/**
 * Parses an Avro schema text; `refs` are the texts of the schemas it references
 * (Schema Registry references), parsed first into the same name registry.
 */
export function parseAvro(text: string, refs: string[] = []): avro.Type {
  const registry: Record<string, avro.Type> = {};
  const logicalTypes = Object.fromEntries(LOGICAL.map((n) => [n, Tagged]));
  const opts = { registry, logicalTypes, wrapUnions: 'auto' as const };
  for (const r of refs) avro.Type.forSchema(exactLongs(JSON.parse(r)) as avro.Schema, opts);
  return avro.Type.forSchema(exactLongs(JSON.parse(text)) as avro.Schema, opts);
}

const MICROS = (v: unknown) => v as bigint;
const MILLIS_TO_MICROS = (v: unknown) => (v as bigint) * 1000n;
const DAY_MS = 86_400_000;

/** Avro's JSON encoding of a value, the fallback column's text. */
function jsonOf(t: avro.Type): (v: unknown) => unknown {
  return (v) => {
    try {
      return t.toString(v);
    } catch {
      // a value holding exact (BigInt) longs: plain JSON, longs as numbers (as strings beyond 2^53), bytes as base64
      return JSON.stringify(v, (_k, x: unknown) =>
        typeof x === 'bigint' ? (x >= -9007199254740991n && x <= 9007199254740991n ? Number(x) : x.toString()) : x);
    }
  };
}
const utf8 = (): Mapped => ({ arrow: new arrow.Utf8(), build: new arrow.Utf8(), delta: 'string', conv: (v) => v });

/** Avro decimal bytes (big-endian two's complement) -> Arrow Decimal128 words (little-endian). */
export function decimalWords(b: Uint8Array): Uint32Array {
  let n = 0n;
  for (const x of b) n = (n << 8n) | BigInt(x);
  if (b.length && b[0]! & 0x80) n -= 1n << BigInt(8 * b.length);
  const out = new Uint32Array(4);
  let u = BigInt.asUintN(128, n);
  for (let i = 0; i < 4; i++) {
    out[i] = Number(u & 0xffffffffn);
    u >>= 32n;
  }
  return out;
}

/** Avro decimal bytes -> its exact decimal text (precision above Delta's 38). */
export function decimalText(b: Uint8Array, scale: number): string {
  let n = 0n;
  for (const x of b) n = (n << 8n) | BigInt(x);
  if (b.length && b[0]! & 0x80) n -= 1n << BigInt(8 * b.length);
  const neg = n < 0n;
  let s = (neg ? -n : n).toString().padStart(scale + 1, '0');
  if (scale > 0) s = `${s.slice(0, -scale)}.${s.slice(-scale)}`;
  return neg ? `-${s}` : s;
}

function nullable(t: avro.Type): avro.Type | null {
  if (!(t instanceof avro.types.UnwrappedUnionType)) return null;
  const ts = t.types;
  if (ts.length !== 2) return null;
  if (ts[0]!.typeName === 'null') return ts[1]!;
  if (ts[1]!.typeName === 'null') return ts[0]!;
  return null;
}

/** Maps an Avro type; `stack` holds the record names being mapped (recursion falls back to JSON text). */
export function mapAvro(t: avro.Type, stack: string[] = []): Mapped {
  if (t instanceof Tagged) return mapLogical(t, stack);
  const inner = nullable(t);
  if (inner) return mapAvro(inner, stack);
  switch (t.typeName) {
    case 'boolean': return { arrow: new arrow.Bool(), build: new arrow.Bool(), delta: 'boolean', conv: (v) => v };
    case 'int': return { arrow: new arrow.Int32(), build: new arrow.Int32(), delta: 'integer', conv: (v) => v };
    case 'long': return { arrow: new arrow.Int64(), build: new arrow.Int64(), delta: 'long', conv: (v) => v };
    case 'float': return { arrow: new arrow.Float32(), build: new arrow.Float32(), delta: 'float', conv: (v) => v };
    case 'double': return { arrow: new arrow.Float64(), build: new arrow.Float64(), delta: 'double', conv: (v) => v };
    case 'string':
    case 'enum': return utf8();
    case 'bytes':
    case 'fixed': return { arrow: new arrow.Binary(), build: new arrow.Binary(), delta: 'binary', conv: (v) => v };
    case 'array': {
      const e = mapAvro((t as avro.types.ArrayType).itemsType, stack);
      return {
        arrow: new arrow.List(new arrow.Field('element', e.arrow, true)),
        build: new arrow.List(new arrow.Field('element', e.build, true)),
        delta: { type: 'array', elementType: e.delta, containsNull: true },
        conv: (v) => (v as unknown[]).map((x) => (x === null ? null : e.conv(x))),
      };
    }
    case 'map': {
      const e = mapAvro((t as avro.types.MapType).valuesType, stack);
      const entries = (vt: arrow.DataType) =>
        new arrow.Field('key_value', new arrow.Struct([new arrow.Field('key', new arrow.Utf8(), false), new arrow.Field('value', vt, true)]), false);
      return {
        arrow: new arrow.Map_(entries(e.arrow)),
        build: new arrow.Map_(entries(e.build)),
        delta: { type: 'map', keyType: 'string', valueType: e.delta, valueContainsNull: true },
        conv: (v) => {
          const m = new Map<string, unknown>();
          for (const [k, x] of Object.entries(v as Record<string, unknown>)) m.set(k, x === null ? null : e.conv(x));
          return m;
        },
      };
    }
    case 'record':
    case 'error': {
      const rt = t as avro.types.RecordType;
      const name = rt.name ?? '';
      if (name && stack.includes(name)) return { ...utf8(), conv: jsonOf(t) };
      const fields = rt.fields.map((f) => ({ name: f.name, m: mapAvro(f.type, [...stack, name]) }));
      return {
        arrow: new arrow.Struct(fields.map((f) => new arrow.Field(f.name, f.m.arrow, true))),
        build: new arrow.Struct(fields.map((f) => new arrow.Field(f.name, f.m.build, true))),
        delta: { type: 'struct', fields: fields.map((f) => ({ name: f.name, type: f.m.delta, nullable: true, metadata: {} })) },
        conv: (v) => {
          const r = v as Record<string, unknown>;
          const o: Record<string, unknown> = {};
          for (const f of fields) {
            const x = r[f.name];
            o[f.name] = x === null || x === undefined ? null : f.m.conv(x);
          }
          return o;
        },
      };
    }
    default:
      // unions of several non-null branches (and anything else): Avro's JSON text
      return { ...utf8(), conv: jsonOf(t) };
  }
}

function mapLogical(t: Tagged, stack: string[]): Mapped {
  const a = t.attrs;
  const u = t.underlyingType;
  const base = () => mapAvro(u, stack);
  switch (a['logicalType']) {
    case 'decimal': {
      const precision = Number(a['precision']);
      const scale = Number(a['scale'] ?? 0);
      if (!(u.typeName === 'bytes' || u.typeName === 'fixed') || !Number.isInteger(precision) || precision < 1 || !Number.isInteger(scale) || scale < 0 || scale > precision) return base();
      if (precision > 38) return { ...utf8(), conv: (v) => decimalText(v as Uint8Array, scale) };
      const d = new arrow.Decimal(scale, precision, 128);
      return { arrow: d, build: d, delta: `decimal(${precision},${scale})`, conv: (v) => decimalWords(v as Uint8Array) };
    }
    case 'date':
      if (u.typeName !== 'int') return base();
      return { arrow: new arrow.DateDay(), build: new arrow.DateDay(), delta: 'date', conv: (v) => (v as number) * DAY_MS };
    case 'timestamp-millis':
    case 'timestamp-micros':
      if (u.typeName !== 'long') return base();
      return {
        arrow: new arrow.TimestampMicrosecond('UTC'),
        build: new arrow.Int64(),
        delta: 'timestamp',
        conv: a['logicalType'] === 'timestamp-millis' ? MILLIS_TO_MICROS : MICROS,
      };
    case EXACT_LONG:
      return { arrow: new arrow.Int64(), build: new arrow.Int64(), delta: 'long', conv: (v) => v };
    default:
      // uuid (a string): the underlying type
      return base();
  }
}

/**
 * The builder's data re-typed to the written type (same buffers): timestamps are
 * built as int64 and become Timestamp(MICROSECOND) here.
 */
export function retype(d: arrow.Data, to: arrow.DataType): arrow.Data {
  if (d.type === to) return d;
  const children = d.children.map((c, i) => retype(c, to.children[i]!.type as arrow.DataType));
  return d.clone(to, d.offset, d.length, d.nullCount, undefined, children);
}
