// Protobuf values in the Confluent wire format (magic 0, schema id, message
// indexes, protobuf body) -> typed Parquet columns (archiver/src/schemas/typed.ts,
// protobuf-arrow.ts; docs/lake.md "Typed columns"). Bodies are written with
// protobufjs from the same .proto text the registry holds.
import { createRequire } from 'node:module';
import * as arrow from 'apache-arrow';
import type * as PB from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { encodeBatch } from '../../helpers/encode-batch.js';
import { encodeTypedFiles, readParquetTable } from '../../../archiver/src/parquet/jobs.js';
import type { SchemaText } from '../../../archiver/src/schemas/typed.js';
import { readMessageIndexes } from '../../../archiver/src/schemas/typed.js';

const pb = createRequire(import.meta.url)('protobufjs') as typeof PB;
const day = Date.UTC(2026, 0, 2, 3, 4, 5);

const V1 = `syntax = "proto3";
package acme;
import "google/protobuf/timestamp.proto";
import "google/protobuf/wrappers.proto";
message Order {
  int64 id = 1;
  double price = 2;
  int32 offset = 3;                 // collides with the metadata column
  Status status = 4;
  optional string note = 5;         // explicit presence: unset reads null
  repeated string tags = 6;
  map<string, int64> attrs = 7;
  Ship ship = 8;
  google.protobuf.Timestamp at = 9;
  uint64 big = 10;
  uint32 small = 11;
  bytes blob = 12;
  google.protobuf.Int32Value maybe = 13;
  oneof pay { string card = 14; int64 points = 15; }
  map<int64, bool> flags = 16;
  Node tree = 17;
  float ratio = 18;
  message Ship { string city = 1; optional int32 zip = 2; }
}
enum Status { NEW = 0; PAID = 1; }
message Node { int32 v = 1; Node next = 2; }
message Other { string name = 1; }
`;
const V2 = V1.replace('  float ratio = 18;', '  float ratio = 18;\n  optional string coupon = 19;');

const schemas: Record<number, SchemaText> = {
  1: { schemaType: 'PROTOBUF', schema: V1, refs: [] },
  2: { schemaType: 'PROTOBUF', schema: V2, refs: [] },
  3: { schemaType: 'PROTOBUF', schema: 'syntax = "proto3"; message Order { string price = 1; }', refs: [] },
};
const lookup = async (ids: number[]) => Object.fromEntries(ids.map((id) => [id, schemas[id] ?? null]));

/** a root with the schema and the well-known types it imports */
function rootOf(text: string): PB.Root {
  const root = new pb.Root();
  for (const f of ['timestamp', 'wrappers']) root.addJSON((pb.common.get(`google/protobuf/${f}.proto`) as { nested: Record<string, PB.AnyNestedObject> }).nested);
  pb.parse(text, root, { keepCase: true });
  root.resolveAll();
  return root;
}
const root1 = rootOf(V1);
const root2 = rootOf(V2);
const Order = root1.lookupType('acme.Order');
const Order2 = root2.lookupType('acme.Order');

/** zig-zag varints, as Confluent's serializers write the message indexes */
function indexes(path: number[]): Buffer {
  if (path.length === 1 && path[0] === 0) return Buffer.from([0]);
  return Buffer.from([path.length, ...path].map((n) => n * 2)); // all < 64: one byte each
}
function wire(id: number, path: number[], body: Uint8Array): Buffer {
  const h = Buffer.alloc(5);
  h.writeUInt32BE(id, 1);
  return Buffer.concat([h, indexes(path), body]);
}

const order = (i: number, t = Order, extra: Record<string, unknown> = {}) => Buffer.from(t.encode(t.fromObject({
  id: (2n ** 60n + BigInt(i)).toString(),
  price: 10.5 + i,
  offset: i,
  status: i % 2 ? 'PAID' : 'NEW',
  ...(i === 0 ? {} : { note: `n${i}` }),
  tags: ['a', `t${i}`],
  attrs: { q: i },
  ...(i === 1 ? {} : { ship: { city: 'Oslo', ...(i === 2 ? {} : { zip: 150 }) } }),
  at: { seconds: Math.floor(day / 1000) + i, nanos: 123456789 },
  big: '18446744073709551615',
  small: 4294967295,
  blob: Buffer.from([1, 2, 3]),
  ...(i === 0 ? {} : { maybe: { value: i === 2 ? 0 : 42 } }),
  ...(i % 2 ? { card: 'visa' } : { points: 7 }),
  flags: { '-5': true },
  tree: { v: 1, next: { v: 2 } },
  ratio: 0.5,
  ...extra,
})).finish());

function job(values: (Buffer | null)[], table: Record<string, string> = {}) {
  const b = encodeBatch(values.map((v) => ({ key: null, value: v, timestamp: day })), { baseOffset: 0 });
  return { batches: [new Uint8Array(b)], meta: Float64Array.from([0, -1]), verifyCrc: true, typed: { value: 'id' as const, key: false as const, table } };
}
const rowsOf = (t: arrow.Table) => t.toArray().map((x) => x.toJSON() as Record<string, unknown>);
const json = (v: unknown) => (v as { toJSON(): unknown } | null)?.toJSON() ?? null;

describe('typed columns (Protobuf)', () => {
  it('maps messages, repeated, maps, enums, oneofs, well-known types and 64-bit integers to Arrow types', async () => {
    const r = await encodeTypedFiles(job([0, 1, 2].map((i) => wire(1, [0], order(i)))), lookup);
    const t = readParquetTable(r.files[0]!.bytes);
    const type = (n: string) => String(t.schema.fields.find((f) => f.name === n)?.type);
    expect(t.schema.fields.map((f) => f.name).slice(7)).toEqual([
      'id', 'price', 'value_offset', 'status', 'note', 'tags', 'attrs', 'ship', 'at', 'big', 'small', 'blob', 'maybe', 'card', 'points', 'flags', 'tree', 'ratio', 'decode_error',
    ]);
    expect([type('id'), type('price'), type('value_offset'), type('status'), type('at'), type('small'), type('blob'), type('maybe'), type('ratio')])
      .toEqual(['Int64', 'Float64', 'Int32', 'Utf8', 'Timestamp<MICROSECOND, UTC>', 'Int64', 'Binary', 'Int32', 'Float32']);
    expect(t.schema.fields.find((f) => f.name === 'big')!.type).toMatchObject({ precision: 20, scale: 0 });
    const rows = rowsOf(t);
    expect(rows.map((x) => x['decode_error'])).toEqual([null, null, null]);
    expect(rows.map((x) => x['id'])).toEqual([0n, 1n, 2n].map((i) => 2n ** 60n + i));
    expect(rows.map((x) => x['price'])).toEqual([10.5, 11.5, 12.5]);
    expect(rows.map((x) => x['value_offset'])).toEqual([0, 1, 2]);
    expect(rows.map((x) => x['status'])).toEqual(['NEW', 'PAID', 'NEW']);
    expect(rows.map((x) => x['note'])).toEqual([null, 'n1', 'n2']); // `optional`: unset is null
    expect(rows.map((x) => [...(x['tags'] as arrow.Vector)])).toEqual([['a', 't0'], ['a', 't1'], ['a', 't2']]);
    expect(rows.map((x) => json(x['attrs']))).toEqual([{ q: 0n }, { q: 1n }, { q: 2n }]);
    expect(rows.map((x) => json(x['ship']))).toEqual([{ city: 'Oslo', zip: 150 }, null, { city: 'Oslo', zip: null }]);
    expect([...(t.getChild('at')!.data[0]!.values as BigInt64Array)]).toEqual([0, 1, 2].map((i) => BigInt(Math.floor(day / 1000) + i) * 1_000_000n + 123456n));
    expect(arrow.util.bigNumToString(t.getChild('big')!.get(0) as never)).toBe('18446744073709551615');
    expect(rows.map((x) => x['small'])).toEqual([4294967295n, 4294967295n, 4294967295n]);
    expect([...(rows[0]!['blob'] as Uint8Array)]).toEqual([1, 2, 3]);
    expect(rows.map((x) => x['maybe'])).toEqual([null, 42, 0]); // a wrapper: unset is null, a set 0 is 0
    expect(rows.map((x) => [x['card'], x['points']])).toEqual([[null, 7n], ['visa', null], [null, 7n]]);
    expect(json(rows[0]!['flags'])).toEqual({ '-5': true });
    // a recursive message: its fields as columns, the recursion as protobuf JSON text
    expect(json(rows[0]!['tree'])).toEqual({ v: 1, next: '{"v":2}' });
    expect(rows.map((x) => x['ratio'])).toEqual([0.5, 0.5, 0.5]);
  });

  it('a proto3 field without presence reads its default when unset; the message indexes pick the message', async () => {
    const empty = Buffer.alloc(0);
    const other = root1.lookupType('acme.Other');
    const r = await encodeTypedFiles(job([wire(1, [0], empty), wire(1, [2], other.encode({ name: 'x' }).finish() as Buffer), wire(1, [0, 0], Order.lookupType('Ship').encode({ city: 'Rome' }).finish() as Buffer)]), lookup);
    const rows = rowsOf(readParquetTable(r.files[0]!.bytes));
    expect(rows.map((x) => x['decode_error'])).toEqual([null, null, null]);
    expect(rows[0]).toMatchObject({ id: 0n, price: 0, status: 'NEW', note: null, ship: null, at: null, maybe: null, card: null, points: null });
    expect(rows.map((x) => x['name'])).toEqual([null, 'x', null]);
    expect(rows.map((x) => x['city'])).toEqual([null, null, 'Rome']);
  });

  it('v1 and v2 rows: the new optional field is a column, null for v1; a type change goes to <name>__v<id>', async () => {
    const r = await encodeTypedFiles(job([wire(1, [0], order(0)), wire(2, [0], order(1, Order2, { coupon: 'C1' })), wire(3, [0], pb.parse('syntax = "proto3"; message Order { string price = 1; }').root.lookupType('Order').encode({ price: 'cheap' }).finish() as Buffer)]), lookup);
    const rows = rowsOf(readParquetTable(r.files[0]!.bytes));
    expect(rows.map((x) => x['coupon'])).toEqual([null, 'C1', null]);
    expect(rows.map((x) => x['price'])).toEqual([10.5, 11.5, null]);
    expect(rows.map((x) => x['price__v3'])).toEqual([null, null, 'cheap']);
    expect(r.files[0]!.typed!.find((f) => f.name === 'coupon')).toEqual({ name: 'coupon', type: 'string', nullable: true, metadata: {} });
  });

  it('a body or message index that does not decode keeps its raw bytes, null typed columns and its reason', async () => {
    const good = order(1);
    const r = await encodeTypedFiles(job([
      wire(1, [0], good.subarray(0, 20)), // cut inside a field
      wire(1, [7], good), // no 8th message
      Buffer.from([0, 0, 0, 0, 1, 0x03]), // a negative index count
      wire(1, [0], good),
    ]), lookup);
    const rows = rowsOf(readParquetTable(r.files[0]!.bytes));
    expect(rows.map((x) => x['decode_error'])).toEqual([
      expect.stringMatching(/^value: Protobuf body does not decode with schema id 1: /),
      'value: Protobuf schema id 1 has no message at index [7]',
      'value: Protobuf body does not decode with schema id 1: message index count -2',
      null,
    ]);
    expect(rows.map((x) => x['price'])).toEqual([null, null, null, 11.5]);
    expect(rows.map((x) => (x['tags'] ? [...(x['tags'] as arrow.Vector)] : null))).toEqual([null, null, null, ['a', 't1']]);
    expect(r.decodeErrors).toEqual({ 'value:corrupt': 3 });
  });

  it('message indexes: a single 0 byte is the first message; otherwise a zig-zag count and indexes', () => {
    const read = (b: number[]) => {
      const cur = { buf: Buffer.from(b), pos: 0, end: b.length };
      return [readMessageIndexes(cur), cur.pos];
    };
    expect(read([0])).toEqual([[0], 1]);
    expect(read([2, 4])).toEqual([[2], 2]);
    expect(read([4, 2, 6])).toEqual([[1, 3], 3]);
  });

  it('a Protobuf key becomes key_fields (a struct); latest mode reads bare bodies as the first message', async () => {
    const ship = Order.lookupType('Ship');
    const b = encodeBatch([{ key: wire(1, [0, 0], ship.encode({ city: 'Rome', zip: 7 }).finish() as Buffer), value: wire(1, [0], order(1)), timestamp: day }], { baseOffset: 0 });
    const keyed = { batches: [new Uint8Array(b)], meta: Float64Array.from([0, -1]), verifyCrc: true, typed: { value: 'id' as const, key: 'id' as const, table: {} } };
    const rows = rowsOf(readParquetTable((await encodeTypedFiles(keyed, lookup)).files[0]!.bytes));
    expect(json(rows[0]!['key_fields'])).toEqual({ city: 'Rome', zip: 7 });
    expect(rows[0]!['price']).toBe(11.5);
    const bare = encodeBatch([{ key: null, value: order(2), timestamp: day }], { baseOffset: 0 });
    const latest = { batches: [new Uint8Array(bare)], meta: Float64Array.from([0, -1]), verifyCrc: true, typed: { value: 2, key: false as const, table: {} } };
    const r2 = rowsOf(readParquetTable((await encodeTypedFiles(latest, lookup)).files[0]!.bytes));
    expect(r2.map((x) => [x['price'], x['decode_error']])).toEqual([[12.5, null]]);
  });
});
