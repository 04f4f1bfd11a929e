// Avro schemas -> Arrow / Delta column types, and for each type a reader of its
// Avro binary into a column builder (avro-columns.ts; docs/lake.md, "Typed columns").
// avsc parses the schemas (names, references, logical-type attributes) and decodes
// only the values that fall back to JSON text.
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
// Avro longs stay exact over the whole int64 range (an id above 2^53 too). Every typed column
// and nested field is nullable: a row whose value does not decode has null
// typed columns, and older data files lack newer columns.
import avro from 'avsc';
import * as arrow from 'apache-arrow';
import { genValue, intInto, longInto, type GenCtx } from './avro-codegen.js';
import { AvroDecodeError, BoolCol, BytesCol, checkUtf8, Col, DecimalCol, F32Col, F64Col, I32Col, I64Col, ListCol, need, readInt, readLen, readLongInto, StructCol, type Cursor } from './avro-columns.js';

/** A Delta schema type (PROTOCOL.md "Schema Serialization Format"). */
export type DeltaType = string | { type: 'struct'; fields: DeltaField[] } | { type: 'array'; elementType: DeltaType; containsNull: boolean } | { type: 'map'; keyType: DeltaType; valueType: DeltaType; valueContainsNull: boolean };
export interface DeltaField { name: string; type: DeltaType; nullable: boolean; metadata: Record<string, unknown> }

/** One Avro type mapped to a column, and its reader: Avro binary straight into the column (avro-columns.ts). */
export interface Mapped {
  /** the Arrow type written to Parquet */
  arrow: arrow.DataType;
  delta: DeltaType;
  /** a new empty builder for this type */
  make(): Col;
  /** reads one value at the cursor and appends it (or null) to `col`, a builder from make() */
  read(c: Cursor, col: Col): void;
  /** the same as code, for generated readers (avro-codegen.ts); absent: `read` is called */
  gen?: (b: string, ctx: GenCtx) => string;
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

/** Avro's JSON encoding of a value read with avsc: the fallback column's text. */
function jsonOf(t: avro.Type, v: unknown): string {
  try {
    return t.toString(v);
  } catch {
    // a value holding exact (BigInt) longs: plain JSON, longs as numbers (as strings beyond 2^53)
    return JSON.stringify(v, (_k, x: unknown) =>
      typeof x === 'bigint' ? (x >= -9007199254740991n && x <= 9007199254740991n ? Number(x) : x.toString()) : x);
  }
}

/** A string column holding the value's Avro JSON (unions of several types, recursive records): read by avsc. */
function jsonColumn(t: avro.Type): Mapped {
  return {
    arrow: new arrow.Utf8(), delta: 'string', make: () => new BytesCol(),
    read: (c, col) => {
      let r: { value: unknown; offset: number };
      try {
        r = t.decode(c.buf as Buffer, c.pos) as { value: unknown; offset: number };
      } catch (e) {
        throw new AvroDecodeError((e as Error).message);
      }
      if (r.offset < 0 || r.offset > c.end) throw new AvroDecodeError('truncated');
      c.pos = r.offset;
      (col as BytesCol).pushString(jsonOf(t, r.value));
    },
  };
}

const fixedWidth = <C extends Col>(a: arrow.DataType, delta: DeltaType, make: () => C, read: (c: Cursor, col: C) => void, gen?: Mapped['gen']): Mapped =>
  ({ arrow: a, delta, make, read: read as (c: Cursor, col: Col) => void, ...(gen ? { gen } : {}) });

/** Scratch bytes for generated float / double reads on little-endian hosts (others use Buffer#readDoubleLE). */
const SCRATCH_F64 = new Float64Array(1);
const SCRATCH_U8 = new Uint8Array(SCRATCH_F64.buffer);
const SCRATCH_F32 = new Float32Array(SCRATCH_F64.buffer, 0, 1);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** generated code of an Avro int into an I32Col */
const genInt: Mapped['gen'] = (b, ctx) => {
  const v = ctx.id();
  return `{ let ${v}; ${intInto(v)} if (${v} > 2147483647 || ${v} < -2147483648) throw new E('int ' + ${v} + ' out of range'); ${b}.push(${v}); }`;
};
/** generated code of Avro bytes / string (checked UTF-8) into a BytesCol */
const genBytes = (utf8: boolean): Mapped['gen'] => (b, ctx) => {
  const n = ctx.id();
  return `{ let ${n}; ${intInto(n)} if (${n} < 0) throw new E('negative length ' + ${n}); if (pos + ${n} > end) T(); ${b}.${utf8 ? 'pushUtf8' : 'push'}(buf, pos, ${n}); pos += ${n}; }`;
};

const readString = (check: boolean) => (c: Cursor, col: BytesCol) => {
  const n = readLen(c);
  if (check) checkUtf8(c.buf, c.pos, n);
  col.push(c.buf, c.pos, n);
  c.pos += n;
};

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

function nullable(t: avro.Type): { inner: avro.Type; nullIdx: number } | null {
  if (!(t instanceof avro.types.UnwrappedUnionType)) return null;
  const ts = t.types;
  if (ts.length !== 2) return null;
  if (ts[0]!.typeName === 'null') return { inner: ts[1]!, nullIdx: 0 };
  if (ts[1]!.typeName === 'null') return { inner: ts[0]!, nullIdx: 1 };
  return null;
}

/** Maps an Avro type; `stack` holds the record names being mapped (recursion falls back to JSON text). */
export function mapAvro(t: avro.Type, stack: string[] = []): Mapped {
  if (t instanceof Tagged) return mapLogical(t, stack);
  const nu = nullable(t);
  if (nu) {
    const m = mapAvro(nu.inner, stack);
    const other = 1 - nu.nullIdx;
    return {
      ...m,
      gen: (b, ctx) => {
        const i = ctx.id();
        return `{ let ${i}; ${intInto(i)} if (${i} === ${nu.nullIdx}) ${b}.appendNull(); else if (${i} === ${other}) { ${genValue(m, b, ctx)} } else throw new E('union index ' + ${i} + ' out of range'); }`;
      },
      read: (c, col) => {
        const idx = readInt(c);
        if (idx === nu.nullIdx) col.appendNull();
        else if (idx === other) m.read(c, col);
        else throw new AvroDecodeError(`union index ${idx} out of range`);
      },
    };
  }
  switch (t.typeName) {
    case 'boolean':
      return fixedWidth(new arrow.Bool(), 'boolean', () => new BoolCol(), (c, col) => {
        need(c, 1);
        const b = c.buf[c.pos++]!;
        if (b > 1) throw new AvroDecodeError(`boolean byte ${b}`);
        col.push(b === 1);
      }, (b, ctx) => {
        const x = ctx.id();
        return `{ if (pos >= end) T(); const ${x} = buf[pos++]; if (${x} > 1) throw new E('boolean byte ' + ${x}); ${b}.push(${x} === 1); }`;
      });
    case 'int':
      return fixedWidth(new arrow.Int32(), 'integer', () => new I32Col(), (c, col) => {
        const v = readInt(c);
        if (v > 2147483647 || v < -2147483648) throw new AvroDecodeError(`int ${v} out of range`);
        col.push(v);
      }, genInt);
    case 'long':
      return fixedWidth(new arrow.Int64(), 'long', () => new I64Col(), (c, col) => readLongInto(c, col, 1), (b, ctx) => longInto(b, 1, ctx));
    case 'float':
      return fixedWidth(new arrow.Float32(), 'float', () => new F32Col(), (c, col) => {
        need(c, 4);
        col.push((c.buf as Buffer).readFloatLE(c.pos));
        c.pos += 4;
      }, (b, ctx) => {
        if (!LITTLE_ENDIAN) return `{ if (pos + 4 > end) T(); ${b}.push(buf.readFloatLE(pos)); pos += 4; }`;
        const [u8, f32] = [ctx.k(SCRATCH_U8), ctx.k(SCRATCH_F32)];
        return `{ if (pos + 4 > end) T(); ${[0, 1, 2, 3].map((i) => `${u8}[${i}] = buf[pos + ${i}];`).join(' ')} ${b}.push(${f32}[0]); pos += 4; }`;
      });
    case 'double':
      return fixedWidth(new arrow.Float64(), 'double', () => new F64Col(), (c, col) => {
        need(c, 8);
        col.push((c.buf as Buffer).readDoubleLE(c.pos));
        c.pos += 8;
      }, (b, ctx) => {
        if (!LITTLE_ENDIAN) return `{ if (pos + 8 > end) T(); ${b}.push(buf.readDoubleLE(pos)); pos += 8; }`;
        // little-endian bytes through a scratch Float64Array (cheaper than Buffer#readDoubleLE's checks)
        const [u8, f64] = [ctx.k(SCRATCH_U8), ctx.k(SCRATCH_F64)];
        return `{ if (pos + 8 > end) T(); ${[0, 1, 2, 3, 4, 5, 6, 7].map((i) => `${u8}[${i}] = buf[pos + ${i}];`).join(' ')} ${b}.push(${f64}[0]); pos += 8; }`;
      });
    case 'string':
      return fixedWidth(new arrow.Utf8(), 'string', () => new BytesCol(), readString(true), genBytes(true));
    case 'bytes':
      return fixedWidth(new arrow.Binary(), 'binary', () => new BytesCol(), readString(false), genBytes(false));
    case 'fixed': {
      const size = (t as avro.types.FixedType).size;
      return fixedWidth(new arrow.Binary(), 'binary', () => new BytesCol(), (c, col) => {
        need(c, size);
        col.push(c.buf, c.pos, size);
        c.pos += size;
      }, (b) => `{ if (pos + ${size} > end) T(); ${b}.push(buf, pos, ${size}); pos += ${size}; }`);
    }
    case 'enum': {
      const symbols = (t as avro.types.EnumType).symbols.map((x) => Buffer.from(x, 'utf8'));
      return fixedWidth(new arrow.Utf8(), 'string', () => new BytesCol(), (c, col) => {
        const i = readInt(c);
        const sym = symbols[i];
        if (!sym) throw new AvroDecodeError(`enum index ${i} out of range`);
        col.push(sym, 0, sym.length);
      }, (b, ctx) => {
        const [i, sym, syms] = [ctx.id(), ctx.id(), ctx.k(symbols)];
        return `{ let ${i}; ${intInto(i)} const ${sym} = ${syms}[${i}]; if (!${sym}) throw new E('enum index ' + ${i} + ' out of range'); ${b}.push(${sym}, 0, ${sym}.length); }`;
      });
    }
    case 'array': {
      const e = mapAvro((t as avro.types.ArrayType).itemsType, stack);
      return {
        arrow: new arrow.List(new arrow.Field('element', e.arrow, true)),
        delta: { type: 'array', elementType: e.delta, containsNull: true },
        make: () => new ListCol(e.make()),
        read: (c, col) => {
          const l = col as ListCol;
          readBlocks(c, () => e.read(c, l.child));
          l.pushValid();
        },
        gen: (b, ctx) => {
          const [ch, n, sz, j] = [ctx.id(), ctx.id(), ctx.id(), ctx.id()];
          return `{ const ${ch} = ${b}.child; let ${n};
            for (;;) {
              ${intInto(n)}
              if (${n} === 0) break;
              if (${n} < 0) { ${n} = -${n}; let ${sz}; ${intInto(sz)} }
              if (${n} > end - pos + 1 && ${n} > 1048576) throw new E('block of ' + ${n} + ' items in ' + (end - pos) + ' bytes');
              for (let ${j} = 0; ${j} < ${n}; ${j}++) { ${genValue(e, ch, ctx)} }
            }
            ${b}.pushValid(); }`;
        },
      };
    }
    case 'map': {
      const e = mapAvro((t as avro.types.MapType).valuesType, stack);
      const entries = new arrow.Field('key_value', new arrow.Struct([new arrow.Field('key', new arrow.Utf8(), false), new arrow.Field('value', e.arrow, true)]), false);
      const key = readString(true);
      return {
        arrow: new arrow.Map_(entries),
        delta: { type: 'map', keyType: 'string', valueType: e.delta, valueContainsNull: true },
        make: () => new ListCol(new StructCol([new BytesCol(), e.make()])),
        read: (c, col) => {
          const l = col as ListCol;
          const kv = l.child as StructCol;
          readBlocks(c, () => {
            key(c, kv.children[0] as BytesCol);
            e.read(c, kv.children[1]!);
            kv.pushValid();
          });
          l.pushValid();
        },
      };
    }
    case 'record':
    case 'error': {
      const rt = t as avro.types.RecordType;
      const name = rt.name ?? '';
      if (name && stack.includes(name)) return jsonColumn(t);
      const fields = rt.fields.map((f) => ({ name: f.name, m: mapAvro(f.type, [...stack, name]) }));
      return {
        arrow: new arrow.Struct(fields.map((f) => new arrow.Field(f.name, f.m.arrow, true))),
        delta: { type: 'struct', fields: fields.map((f) => ({ name: f.name, type: f.m.delta, nullable: true, metadata: {} })) },
        make: () => new StructCol(fields.map((f) => f.m.make())),
        read: (c, col) => {
          const st = col as StructCol;
          for (let i = 0; i < fields.length; i++) fields[i]!.m.read(c, st.children[i]!);
          st.pushValid();
        },
        gen: (b, ctx) => {
          const ch = fields.map(() => ctx.id());
          return `{ ${ch.map((v, i) => `const ${v} = ${b}.children[${i}];`).join(' ')}
            ${fields.map((f, i) => genValue(f.m, ch[i]!, ctx)).join('\n')}
            ${b}.pushValid(); }`;
        },
      };
    }
    default:
      // unions of several non-null branches (and anything else): Avro's JSON text
      return jsonColumn(t);
  }
}

/** Avro array / map blocks: count, items, ..., 0 (a negative count is followed by the block's byte size). */
function readBlocks(c: Cursor, item: () => void): void {
  for (let n = readInt(c); n !== 0; n = readInt(c)) {
    if (n < 0) {
      n = -n;
      readInt(c);
    }
    // every item takes at least one byte unless its type is empty (null): bound the count by the body
    if (n > c.end - c.pos + 1 && n > 1 << 20) throw new AvroDecodeError(`block of ${n} items in ${c.end - c.pos} bytes`);
    for (let i = 0; i < n; i++) item();
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
      const size = u.typeName === 'fixed' ? (u as avro.types.FixedType).size : -1;
      const len = (c: Cursor) => {
        if (size >= 0) {
          need(c, size);
          return size;
        }
        return readLen(c);
      };
      if (precision > 38) {
        return fixedWidth(new arrow.Utf8(), 'string', () => new BytesCol(), (c, col) => {
          const n = len(c);
          col.pushString(decimalText(c.buf.subarray(c.pos, c.pos + n), scale));
          c.pos += n;
        });
      }
      return fixedWidth(new arrow.Decimal(scale, precision, 128), `decimal(${precision},${scale})`, () => new DecimalCol(), (c, col) => {
        const n = len(c);
        col.push(c.buf, c.pos, n);
        c.pos += n;
      });
    }
    case 'date':
      if (u.typeName !== 'int') return base();
      return { ...base(), arrow: new arrow.DateDay(), delta: 'date' }; // base(): int, with its gen
    case 'timestamp-millis':
    case 'timestamp-micros': {
      if (u.typeName !== 'long') return base();
      const scale = a['logicalType'] === 'timestamp-millis' ? 1000 : 1;
      return fixedWidth(new arrow.TimestampMicrosecond('UTC'), 'timestamp', () => new I64Col(), (c, col) => readLongInto(c, col, scale), (b, ctx) => longInto(b, scale, ctx));
    }
    case EXACT_LONG:
      return base();
    default:
      // uuid (a string): the underlying type
      return base();
  }
}
