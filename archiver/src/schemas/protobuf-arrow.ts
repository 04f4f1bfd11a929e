// Protobuf messages -> Arrow / Delta column types (docs/lake.md, "Typed columns").
// A body is decoded with protobufjs into a message object, whose fields are then
// put into the column builders (put-columns.ts).
//
//   message                  struct (every field nullable; oneof members each their own field)
//   repeated T               list<T>
//   map<K, V>                map<K, V>
//   enum                     string (the value's name; a number the enum lacks: its digits)
//   double float             float64 float32
//   int32 sint32 sfixed32    int32
//   uint32 fixed32           int64 (Delta has no unsigned types)
//   int64 sint64 sfixed64    int64 (exact)
//   uint64 fixed64           decimal(20,0) (exact over the whole unsigned range)
//   bool string bytes        boolean string binary
//   google.protobuf.Timestamp        timestamp (microseconds, UTC)
//   google.protobuf.*Value wrappers  their scalar, null when unset
//   recursive messages       string: the message as protobuf JSON (Delta cannot express recursion)
//
// A field with presence (proto3 `optional`, proto2 optional, messages, oneof
// members) that is unset reads null; a proto3 field without presence that is
// unset reads its default (0, "", false, the enum's first value), as every
// protobuf reader sees it.
import * as arrow from 'apache-arrow';
import type * as PB from 'protobufjs';
import { pb } from '../../../common/schemas/protobuf-schema.js';
import { BoolCol, BytesCol, DecimalCol, F32Col, F64Col, I32Col, I64Col, ListCol, StructCol, type Col } from './avro-columns.js';
import { jsonTextColumn, mismatch, putInt64, type PutMapped } from './put-columns.js';

/** A protobufjs Long (long.js), as int64 values decode. */
interface LongLike { low: number; high: number; unsigned: boolean }
const isLong = (v: unknown): v is LongLike => typeof v === 'object' && v !== null && typeof (v as LongLike).low === 'number';

/** A 64-bit protobuf value (Long or number) as a number when exact, else a bigint. */
function int64(v: unknown, unsigned: boolean): number | bigint {
  if (typeof v === 'number') return v;
  if (!isLong(v)) return mismatch('a 64-bit integer', v);
  const big = (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0);
  const x = unsigned ? big : BigInt.asIntN(64, big);
  return x >= -9007199254740991n && x <= 9007199254740991n ? Number(x) : x;
}

const col = <C extends Col>(a: arrow.DataType, delta: PutMapped['delta'], make: () => C, put: (v: unknown, c: C) => void): PutMapped =>
  ({ arrow: a, delta, make, put: (v, c) => (v === null || v === undefined ? c.appendNull() : put(v, c as C)) });

const TIMESTAMP = 'google.protobuf.Timestamp';
const WRAPPERS = new Set(['Double', 'Float', 'Int64', 'UInt64', 'Int32', 'UInt32', 'Bool', 'String', 'Bytes'].map((w) => `google.protobuf.${w}Value`));

/** A scalar protobuf type (its protobufjs name). */
function scalar(type: string): PutMapped {
  switch (type) {
    case 'double':
      return col(new arrow.Float64(), 'double', () => new F64Col(), (v, c) => c.push(v as number));
    case 'float':
      return col(new arrow.Float32(), 'float', () => new F32Col(), (v, c) => c.push(v as number));
    case 'int32': case 'sint32': case 'sfixed32':
      return col(new arrow.Int32(), 'integer', () => new I32Col(), (v, c) => c.push(v as number));
    case 'uint32': case 'fixed32':
      return col(new arrow.Int64(), 'long', () => new I64Col(), (v, c) => c.pushNumber(v as number));
    case 'int64': case 'sint64': case 'sfixed64':
      return col(new arrow.Int64(), 'long', () => new I64Col(), (v, c) => putInt64(c, int64(v, false)));
    case 'uint64': case 'fixed64':
      return col(new arrow.Decimal(0, 20, 128), 'decimal(20,0)', () => new DecimalCol(), (v, c) => c.pushBig(BigInt(int64(v, true))));
    case 'bool':
      return col(new arrow.Bool(), 'boolean', () => new BoolCol(), (v, c) => c.push(v as boolean));
    case 'string':
      return col(new arrow.Utf8(), 'string', () => new BytesCol(), (v, c) => c.pushString(v as string));
    case 'bytes':
      return col(new arrow.Binary(), 'binary', () => new BytesCol(), (v, c) => {
        const b = v as Uint8Array;
        c.push(b, 0, b.length);
      });
    default:
      throw new Error(`unknown protobuf scalar type ${type}`);
  }
}

/** A map key as protobufjs keeps it (a string; 64-bit keys as 8-char hashes) -> its typed value. */
function mapKey(type: string): (k: string) => unknown {
  switch (type) {
    case 'bool':
      return (k) => k === 'true';
    case 'string':
      return (k) => k;
    case 'int64': case 'sint64': case 'sfixed64': case 'uint64': case 'fixed64': {
      const unsigned = type === 'uint64' || type === 'fixed64';
      return (k) => {
        const bits = pb.util.LongBits.fromHash(k);
        return { low: bits.lo | 0, high: bits.hi | 0, unsigned };
      };
    }
    default:
      return (k) => Number(k);
  }
}

/** A field's value type (without its repeated / map label). */
function fieldType(f: PB.Field, stack: string[]): PutMapped {
  const t = f.resolvedType;
  if (t instanceof pb.Enum) {
    const names = new Map<number, Buffer>(Object.entries(t.values).map(([name, n]) => [n, Buffer.from(name, 'utf8')]));
    return col(new arrow.Utf8(), 'string', () => new BytesCol(), (v, c) => {
      const name = names.get(v as number);
      if (name) c.push(name, 0, name.length);
      else c.pushString(String(v));
    });
  }
  if (t instanceof pb.Type) return mapMessage(t, stack);
  return scalar(f.type);
}

/** An unset field: null when the field tracks presence, else its default. */
function absent(f: PB.Field): unknown {
  return f.hasPresence ? null : f.typeDefault;
}

function mapField(f: PB.Field, stack: string[]): PutMapped {
  if (f instanceof pb.MapField) {
    const k = scalar(f.keyType);
    const toKey = mapKey(f.keyType);
    const v = fieldType(f, stack);
    const entries = new arrow.Field('key_value', new arrow.Struct([new arrow.Field('key', k.arrow, false), new arrow.Field('value', v.arrow, true)]), false);
    return col(new arrow.Map_(entries), { type: 'map', keyType: k.delta, valueType: v.delta, valueContainsNull: true }, () => new ListCol(new StructCol([k.make(), v.make()])), (m, c) => {
      const kv = c.child as StructCol;
      for (const [key, value] of Object.entries(m as Record<string, unknown>)) {
        k.put(toKey(key), kv.children[0]!);
        v.put(value, kv.children[1]!);
        kv.pushValid();
      }
      c.pushValid();
    });
  }
  const e = fieldType(f, stack);
  if (!f.repeated) return e;
  return col(new arrow.List(new arrow.Field('element', e.arrow, true)), { type: 'array', elementType: e.delta, containsNull: true }, () => new ListCol(e.make()), (a, c) => {
    for (const x of a as unknown[]) e.put(x, c.child);
    c.pushValid();
  });
}

/** The fields of a message as columns: name, column type, and how its value is read from a decoded message. */
export function messageFields(t: PB.Type, stack: string[] = []): { name: string; m: PutMapped; get: (msg: Record<string, unknown>) => unknown }[] {
  const inner = [...stack, t.fullName];
  return t.fieldsArray.map((f) => {
    f.resolve();
    const name = f.name;
    const unset = absent(f);
    return { name, m: mapField(f, inner), get: (msg) => (Object.hasOwn(msg, name) ? msg[name] : unset) };
  });
}

/** A message type as one column. */
export function mapMessage(t: PB.Type, stack: string[] = []): PutMapped {
  const name = t.fullName.replace(/^\./, '');
  if (stack.includes(t.fullName)) return jsonTextColumn((v) => JSON.stringify(t.toObject(v as PB.Message, { longs: String, enums: String, bytes: String })));
  if (name === TIMESTAMP) {
    return col(new arrow.TimestampMicrosecond('UTC'), 'timestamp', () => new I64Col(), (v, c) => {
      const m = v as { seconds?: unknown; nanos?: number };
      const s = int64(m.seconds ?? 0, false);
      const us = Math.trunc((m.nanos ?? 0) / 1000);
      if (typeof s === 'number' && Number.isSafeInteger(s * 1e6 + us)) c.pushNumber(s * 1e6 + us);
      else c.pushBig(BigInt(s) * 1000000n + BigInt(us));
    });
  }
  if (WRAPPERS.has(name)) {
    const inner = scalar(t.fields['value']!.type);
    const unset = t.fields['value']!.typeDefault;
    return { ...inner, put: (v, c) => (v === null || v === undefined ? c.appendNull() : inner.put(Object.hasOwn(v as object, 'value') ? (v as { value: unknown }).value : unset, c)) };
  }
  const fields = messageFields(t, stack);
  return col(
    new arrow.Struct(fields.map((f) => new arrow.Field(f.name, f.m.arrow, true))),
    { type: 'struct', fields: fields.map((f) => ({ name: f.name, type: f.m.delta, nullable: true, metadata: {} })) },
    () => new StructCol(fields.map((f) => f.m.make())),
    (v, c) => {
      const msg = v as Record<string, unknown>;
      for (let i = 0; i < fields.length; i++) fields[i]!.m.put(fields[i]!.get(msg), c.children[i]!);
      c.pushValid();
    },
  );
}
