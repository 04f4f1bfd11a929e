// JSON Schema values in the Confluent wire format (magic 0, schema id, JSON text)
// -> typed Parquet columns (archiver/src/schemas/typed.ts, json-arrow.ts;
// docs/lake.md "Typed columns").
import * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { encodeBatch } from '../../helpers/encode-batch.js';
import { encodeTypedFiles, readParquetTable } from '../../../archiver/src/parquet/jobs.js';
import type { SchemaText } from '../../../archiver/src/schemas/typed.js';
import { dateTimeMicros, mapJson } from '../../../archiver/src/schemas/json-arrow.js';

const day = Date.UTC(2026, 0, 2, 3, 4, 5);

const V1 = {
  $schema: 'http://json-schema.org/draft-07/schema#', title: 'Order', type: 'object', required: ['id', 'price'],
  properties: {
    id: { type: 'integer' },
    price: { type: 'number' },
    offset: { type: 'integer' }, // collides with the metadata column
    ok: { type: 'boolean' },
    sku: { type: 'string', enum: ['APPLE', 'PEAR'] },
    note: { type: ['string', 'null'] },
    tags: { type: 'array', items: { type: 'string' } },
    attrs: { type: 'object', additionalProperties: { type: 'integer' } },
    ship: { $ref: '#/definitions/Ship' },
    at: { type: 'string', format: 'date-time' },
    maybe: { anyOf: [{ type: 'null' }, { type: 'number' }] },
    any: {},
    either: { type: ['integer', 'string'] },
  },
  definitions: { Ship: { type: 'object', properties: { city: { type: 'string' }, zip: { type: 'integer' } } } },
};
const V2 = { ...V1, properties: { ...V1.properties, coupon: { type: 'string' } } };
const STR = { type: 'object', properties: { price: { type: 'string' } } };

const schemas: Record<number, SchemaText> = {
  1: { schemaType: 'JSON', schema: JSON.stringify(V1), refs: [] },
  2: { schemaType: 'JSON', schema: JSON.stringify(V2), refs: [] },
  3: { schemaType: 'JSON', schema: JSON.stringify(STR), refs: [] },
  4: { schemaType: 'JSON', schema: JSON.stringify({ type: 'array', items: { type: 'integer' } }), refs: [] },
};
const lookup = async (ids: number[]) => Object.fromEntries(ids.map((id) => [id, schemas[id] ?? null]));

function wire(id: number, doc: unknown): Buffer {
  const h = Buffer.alloc(5);
  h.writeUInt32BE(id, 1);
  return Buffer.concat([h, Buffer.from(typeof doc === 'string' ? doc : JSON.stringify(doc))]);
}
const order = (i: number, extra: Record<string, unknown> = {}) => ({
  id: 1000 + i, price: 10.5 + i, offset: i, ok: i % 2 === 1, sku: i % 2 ? 'PEAR' : 'APPLE',
  ...(i === 0 ? {} : { note: i === 2 ? null : `n${i}` }),
  tags: ['a', `t${i}`], attrs: { q: i },
  ...(i === 1 ? {} : { ship: { city: 'Oslo', ...(i === 2 ? {} : { zip: 150 }) } }),
  at: ['2026-01-02T03:04:05Z', '2026-01-02T04:04:05.123456+01:00', '2026-01-02T03:04:05.5z'][i],
  maybe: i === 0 ? null : 1.25,
  any: i === 0 ? { x: [1] } : 'y',
  either: i % 2 ? 'x' : 3,
  ...extra,
});

function job(values: (Buffer | null)[]) {
  const b = encodeBatch(values.map((v) => ({ key: null, value: v, timestamp: day })), { baseOffset: 0 });
  return { batches: [new Uint8Array(b)], meta: Float64Array.from([0, -1]), verifyCrc: true, typed: { value: 'id' as const, key: false as const, table: {} } };
}
const rowsOf = (t: arrow.Table) => t.toArray().map((x) => x.toJSON() as Record<string, unknown>);
const json = (v: unknown) => (v as { toJSON(): unknown } | null)?.toJSON() ?? null;

describe('typed columns (JSON Schema)', () => {
  it('maps object properties by their types; what no column type expresses is JSON text', async () => {
    const r = await encodeTypedFiles(job([0, 1, 2].map((i) => wire(1, order(i)))), lookup);
    const t = readParquetTable(r.files[0]!.bytes);
    const type = (n: string) => String(t.schema.fields.find((f) => f.name === n)?.type);
    expect(t.schema.fields.map((f) => f.name).slice(7)).toEqual(['id', 'price', 'value_offset', 'ok', 'sku', 'note', 'tags', 'attrs', 'ship', 'at', 'maybe', 'any', 'either', 'decode_error']);
    expect(['id', 'price', 'value_offset', 'ok', 'sku', 'note', 'tags', 'at', 'maybe', 'any', 'either'].map(type))
      .toEqual(['Int64', 'Float64', 'Int64', 'Bool', 'Utf8', 'Utf8', 'List<Utf8>', 'Timestamp<MICROSECOND, UTC>', 'Float64', 'Utf8', 'Utf8']);
    expect(t.schema.fields.find((f) => f.name === 'attrs')!.type).toBeInstanceOf(arrow.Map_);
    const rows = rowsOf(t);
    expect(rows.map((x) => x['decode_error'])).toEqual([null, null, null]);
    expect(rows.map((x) => x['id'])).toEqual([1000n, 1001n, 1002n]);
    expect(rows.map((x) => x['price'])).toEqual([10.5, 11.5, 12.5]);
    expect(rows.map((x) => x['value_offset'])).toEqual([0n, 1n, 2n]);
    expect(rows.map((x) => x['ok'])).toEqual([false, true, false]);
    expect(rows.map((x) => x['sku'])).toEqual(['APPLE', 'PEAR', 'APPLE']);
    expect(rows.map((x) => x['note'])).toEqual([null, 'n1', null]); // absent and null both read null
    expect(rows.map((x) => [...(x['tags'] as arrow.Vector)])).toEqual([['a', 't0'], ['a', 't1'], ['a', 't2']]);
    expect(rows.map((x) => json(x['attrs']))).toEqual([{ q: 0n }, { q: 1n }, { q: 2n }]);
    expect(rows.map((x) => json(x['ship']))).toEqual([{ city: 'Oslo', zip: 150n }, null, { city: 'Oslo', zip: null }]);
    const at = [...(t.getChild('at')!.data[0]!.values as BigInt64Array)];
    expect(at).toEqual([0n, 123456n, 500000n].map((us) => BigInt(day) * 1000n + us));
    expect(rows.map((x) => x['maybe'])).toEqual([null, 1.25, 1.25]);
    expect(rows.map((x) => x['any'])).toEqual(['{"x":[1]}', '"y"', '"y"']);
    expect(rows.map((x) => x['either'])).toEqual(['3', '"x"', '3']);
  });

  it('v1 and v2 rows: the new optional property is a column, null for v1; a type change goes to <name>__v<id>', async () => {
    const r = await encodeTypedFiles(job([wire(1, order(0)), wire(2, order(1, { coupon: 'C1' })), wire(3, { price: 'cheap' })]), lookup);
    const rows = rowsOf(readParquetTable(r.files[0]!.bytes));
    expect(rows.map((x) => x['coupon'])).toEqual([null, 'C1', null]);
    expect(rows.map((x) => x['price'])).toEqual([10.5, 11.5, null]);
    expect(rows.map((x) => x['price__v3'])).toEqual([null, null, 'cheap']);
  });

  it('a document that is not JSON or does not fit the schema keeps its raw bytes, null typed columns and its reason', async () => {
    const r = await encodeTypedFiles(job([wire(1, '{"id": 1, '), wire(1, order(0, { id: 1.5 })), wire(1, order(0, { at: 'yesterday' })), wire(1, [1]), wire(1, order(1)), wire(4, [1, 2])]), lookup);
    const rows = rowsOf(readParquetTable(r.files[0]!.bytes));
    expect(rows.map((x) => x['decode_error'])).toEqual([
      expect.stringMatching(/^value: JSON body does not decode with schema id 1: not JSON/),
      'value: JSON body does not decode with schema id 1: expected an integer, got 1.5',
      'value: JSON body does not decode with schema id 1: expected an RFC 3339 date-time, got "yesterday"',
      'value: JSON body does not decode with schema id 1: expected an object, got an array',
      null,
      null,
    ]);
    expect(rows.map((x) => x['price'])).toEqual([null, null, null, null, 11.5, null]);
    expect(rows.map((x) => (x['tags'] ? [...(x['tags'] as arrow.Vector)] : null))).toEqual([null, null, null, null, ['a', 't1'], null]);
    // a schema that is not an object: one column value_fields
    expect(rows.map((x) => (x['value_fields'] ? [...(x['value_fields'] as arrow.Vector)] : null))).toEqual([null, null, null, null, null, [1n, 2n]]);
  });

  it('date-time: RFC 3339 with an offset, to the microsecond; anything else is not one', () => {
    expect(dateTimeMicros('1970-01-01T00:00:00Z')).toBe(0);
    expect(dateTimeMicros('1970-01-01T01:00:00.000001+01:00')).toBe(1);
    expect(dateTimeMicros('1969-12-31T23:59:59.9Z')).toBe(-100000);
    expect(dateTimeMicros('2026-02-30T00:00:00Z')).toBeNull();
    expect(dateTimeMicros('2026-01-01T00:00:00')).toBeNull(); // no offset: ambiguous
  });

  it('recursive $refs and combinators fall back to JSON text', () => {
    const tree = { type: 'object', properties: { v: { type: 'integer' }, kids: { type: 'array', items: { $ref: '#' } } } };
    expect(mapJson(tree).delta).toEqual({ type: 'struct', fields: [
      { name: 'v', type: 'long', nullable: true, metadata: {} },
      { name: 'kids', type: { type: 'array', elementType: { type: 'struct', fields: [
        { name: 'v', type: 'long', nullable: true, metadata: {} },
        { name: 'kids', type: { type: 'array', elementType: 'string', containsNull: true }, nullable: true, metadata: {} },
      ] }, containsNull: true }, nullable: true, metadata: {} },
    ] });
    expect(mapJson({ allOf: [{ type: 'string' }] }).delta).toBe('string');
    expect(mapJson({ oneOf: [{ type: 'string' }, { type: 'integer' }] }).delta).toBe('string');
  });

  it('a JSON Schema key becomes key_fields', async () => {
    const b = encodeBatch([{ key: wire(3, { price: 'k' }), value: wire(1, order(1)), timestamp: day }], { baseOffset: 0 });
    const keyed = { batches: [new Uint8Array(b)], meta: Float64Array.from([0, -1]), verifyCrc: true, typed: { value: 'id' as const, key: 'id' as const, table: {} } };
    const rows = rowsOf(readParquetTable((await encodeTypedFiles(keyed, lookup)).files[0]!.bytes));
    expect(json(rows[0]!['key_fields'])).toEqual({ price: 'k' });
    expect(rows[0]!['price']).toBe(11.5);
  });
});
