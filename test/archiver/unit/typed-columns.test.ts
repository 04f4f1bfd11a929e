// Avro values in the Confluent wire format -> typed Parquet columns next to the
// raw ones (archiver/src/schemas/typed.ts, avro-arrow.ts; docs/lake.md "Typed columns").
import avro from 'avsc';
import * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { encodeBatch } from '../../helpers/encode-batch.js';
import { encodeTypedFiles, readParquetTable, compactFiles, encodeDataFiles } from '../../../archiver/src/parquet/jobs.js';
import type { SchemaText } from '../../../archiver/src/schemas/typed.js';
import { decimalText, mapAvro, parseAvro, readBigLong } from '../../../archiver/src/schemas/avro-arrow.js';
import { genReader } from '../../../archiver/src/schemas/avro-codegen.js';
import { rebuild } from '../../../broker/src/lake/rebuild.js';

const day = Date.UTC(2026, 0, 2, 3, 4, 5);

const ORDER = {
  type: 'record', name: 'Order', fields: [
    { name: 'id', type: 'long' },
    { name: 'price', type: 'double' },
    { name: 'offset', type: 'int' }, // collides with the metadata column
    { name: 'status', type: { type: 'enum', name: 'Status', symbols: ['NEW', 'PAID'] } },
    { name: 'note', type: ['null', 'string'], default: null },
    { name: 'tags', type: { type: 'array', items: 'string' } },
    { name: 'attrs', type: { type: 'map', values: 'long' } },
    { name: 'ship', type: ['null', { type: 'record', name: 'Ship', fields: [{ name: 'city', type: 'string' }, { name: 'zip', type: ['null', 'int'] }] }], default: null },
    { name: 'amount', type: { type: 'bytes', logicalType: 'decimal', precision: 12, scale: 2 } },
    { name: 'day', type: { type: 'int', logicalType: 'date' } },
    { name: 'at', type: { type: 'long', logicalType: 'timestamp-millis' } },
    { name: 'at_us', type: { type: 'long', logicalType: 'timestamp-micros' } },
    { name: 'uid', type: { type: 'string', logicalType: 'uuid' } },
    { name: 'either', type: ['int', 'string'] },
  ],
};
// avsc without logical-type classes writes the underlying values (what a producer's bytes hold)
const orderType = avro.Type.forSchema(ORDER as avro.Schema);
const V2 = { ...ORDER, fields: [...ORDER.fields, { name: 'coupon', type: ['null', 'string'], default: null }] };
const v2Type = avro.Type.forSchema(V2 as avro.Schema);
const PRICE_STR = { type: 'record', name: 'Order', fields: [{ name: 'price', type: 'string' }] };

function wire(id: number, body: Buffer): Buffer {
  const h = Buffer.alloc(5);
  h.writeUInt32BE(id, 1);
  return Buffer.concat([h, body]);
}
const decimalBytes = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(n);
  return b;
};
const order = (i: number) => ({
  id: 9007199254740993 + i, // above 2^53: avsc writes a double, the reader must stay exact -> written below with BigInt encoding
  price: 10.5 + i,
  offset: i,
  status: i % 2 ? 'PAID' : 'NEW',
  note: i === 0 ? null : `n${i}`,
  tags: ['a', `t${i}`],
  attrs: { q: i },
  ship: i === 1 ? null : { city: 'Oslo', zip: i === 2 ? null : 150 },
  amount: decimalBytes(-12345n + BigInt(i)),
  day: 20000 + i,
  at: day + i,
  at_us: day * 1000 + 7,
  uid: '123e4567-e89b-12d3-a456-426614174000',
  either: i % 2 ? 'x' : 3,
});

const schemas: Record<number, SchemaText> = {
  1: { schemaType: 'AVRO', schema: JSON.stringify(ORDER), refs: [] },
  2: { schemaType: 'AVRO', schema: JSON.stringify(V2), refs: [] },
  3: { schemaType: 'AVRO', schema: JSON.stringify(PRICE_STR), refs: [] },
  4: { schemaType: 'PROTOBUF', schema: 'syntax = "proto3"; message M { Missing a = 1; }', refs: [] }, // a type that does not resolve
  5: { schemaType: 'AVRO', schema: '"long"', refs: [] },
};
const asked: number[][] = [];
const lookup = async (ids: number[]) => {
  asked.push([...ids].sort());
  return Object.fromEntries(ids.map((id) => [id, schemas[id] ?? null]));
};

function job(values: (Buffer | null)[], keys?: (Buffer | null)[], table: Record<string, string> = {}) {
  const b = encodeBatch(values.map((v, i) => ({ key: keys?.[i] ?? null, value: v, timestamp: day })), { baseOffset: 0 });
  return { batches: [new Uint8Array(b)], meta: Float64Array.from([0, -1]), verifyCrc: true, typed: { value: 'id' as const, key: keys !== undefined ? ('id' as const) : (false as const), table } };
}

/** The Avro body of an order with an exact 64-bit id (avsc's default long type cannot write above 2^53). */
function orderBody(i: number, t = orderType, extra: Record<string, unknown> = {}) {
  const v = { ...order(i), id: 1, ...extra };
  const body = t.toBuffer(v);
  // id is the first field: re-encode it as the zig-zag varint of the exact value
  const exact = 9007199254740993n + BigInt(i);
  let z = (exact << 1n) ^ (exact >> 63n);
  const varint: number[] = [];
  while (z >= 0x80n) { varint.push(Number(z & 0x7fn) | 0x80); z >>= 7n; }
  varint.push(Number(z));
  return Buffer.concat([Buffer.from(varint), body.subarray(1)]); // id 1 was one byte (0x02)
}

describe('typed columns (Avro)', () => {
  it('maps records, lists, maps, nullable unions, enums and logical types to Arrow types', async () => {
    const r = await encodeTypedFiles(job([0, 1, 2].map((i) => wire(1, orderBody(i)))), lookup);
    expect(r.records).toBe(3);
    expect(r.files).toHaveLength(1);
    const t = readParquetTable(r.files[0]!.bytes);
    const type = (n: string) => String(t.schema.fields.find((f) => f.name === n)?.type);
    expect(t.schema.fields.map((f) => f.name)).toEqual([
      'partition', 'offset', 'timestamp', 'timestamp_type', 'key', 'value', 'headers',
      'id', 'price', 'value_offset', 'status', 'note', 'tags', 'attrs', 'ship', 'amount', 'day', 'at', 'at_us', 'uid', 'either', 'decode_error',
    ]);
    expect(type('id')).toBe('Int64');
    expect(type('price')).toBe('Float64');
    expect(type('value_offset')).toBe('Int32');
    expect(type('status')).toBe('Utf8');
    expect(type('tags')).toBe('List<Utf8>');
    expect(t.schema.fields.find((f) => f.name === 'amount')!.type).toMatchObject({ precision: 12, scale: 2, bitWidth: 128 });
    expect(type('day')).toBe('Date32<DAY>');
    expect(type('at')).toBe('Timestamp<MICROSECOND, UTC>');
    expect(t.schema.fields.find((f) => f.name === 'attrs')!.type).toBeInstanceOf(arrow.Map_);
    const rows = t.toArray().map((x) => x.toJSON() as Record<string, unknown>);
    expect(rows.map((x) => x['id'])).toEqual([9007199254740993n, 9007199254740994n, 9007199254740995n]);
    expect(rows.map((x) => x['price'])).toEqual([10.5, 11.5, 12.5]);
    expect(rows.map((x) => x['value_offset'])).toEqual([0, 1, 2]);
    expect(rows.map((x) => x['offset'])).toEqual([0n, 1n, 2n]); // the Kafka offset column is untouched
    expect(rows.map((x) => x['status'])).toEqual(['NEW', 'PAID', 'NEW']);
    expect(rows.map((x) => x['note'])).toEqual([null, 'n1', 'n2']);
    expect(rows.map((x) => [...(x['tags'] as arrow.Vector)])).toEqual([['a', 't0'], ['a', 't1'], ['a', 't2']]);
    expect(rows.map((x) => (x['attrs'] as { toJSON(): unknown }).toJSON())).toEqual([{ q: 0n }, { q: 1n }, { q: 2n }]);
    expect(rows.map((x) => (x['ship'] as { toJSON(): unknown } | null)?.toJSON() ?? null)).toEqual([{ city: 'Oslo', zip: 150 }, null, { city: 'Oslo', zip: null }]);
    const amount = t.getChild('amount')!;
    expect(Array.from({ length: 3 }, (_, i) => arrow.util.bigNumToString(amount.get(i) as never))).toEqual(['-12345', '-12344', '-12343']);
    expect(rows.map((x) => x['day'])).toEqual([20000, 20001, 20002].map((d) => d * 86_400_000));
    const at = t.getChild('at')!.data[0]!.values as BigInt64Array;
    expect([...at]).toEqual([0, 1, 2].map((i) => BigInt(day + i) * 1000n));
    expect([...(t.getChild('at_us')!.data[0]!.values as BigInt64Array)]).toEqual([1n, 1n, 1n].map(() => BigInt(day) * 1000n + 7n));
    expect(rows.map((x) => x['uid'])).toEqual(Array(3).fill('123e4567-e89b-12d3-a456-426614174000'));
    expect(rows.map((x) => x['either'])).toEqual(['{"int":3}', '{"string":"x"}', '{"int":3}']);
    expect(rows.map((x) => x['decode_error'])).toEqual([null, null, null]);
    expect(r.files[0]!.typed!.find((f) => f.name === 'amount')!.type).toBe('decimal(12,2)');
    expect(r.files[0]!.typed!.find((f) => f.name === 'ship')!.type).toEqual({
      type: 'struct', fields: [{ name: 'city', type: 'string', nullable: true, metadata: {} }, { name: 'zip', type: 'integer', nullable: true, metadata: {} }],
    });
  });

  it('a record that does not decode keeps its raw bytes, null typed columns and its reason', async () => {
    const good = wire(1, orderBody(0));
    const r = await encodeTypedFiles(job([good, wire(99, orderBody(0)), good.subarray(0, 20), Buffer.from('{"json":1}'), null, wire(4, Buffer.from([8, 1])), Buffer.concat([good, Buffer.from([1])])]), lookup);
    const t = readParquetTable(r.files[0]!.bytes);
    const rows = t.toArray().map((x) => x.toJSON() as Record<string, unknown>);
    expect(rows.map((x) => x['decode_error'])).toEqual([
      null,
      'value: schema id 99 is not in the registry',
      'value: Avro body does not decode with schema id 1: truncated (15 bytes)',
      'value: not the Confluent wire format (first byte 0x7b, 10 bytes)',
      null, // a tombstone is no error
      expect.stringMatching(/^value: schema id 4 does not parse: .*Missing/),
      `value: Avro body does not decode with schema id 1: 1 bytes left after the record`,
    ]);
    expect(rows.map((x) => x['price'])).toEqual([10.5, null, null, null, null, null, null]);
    expect(Buffer.from(rows[2]!['value'] as Uint8Array)).toEqual(good.subarray(0, 20));
    expect(r.decodeErrors).toEqual({ 'value:unknown_schema': 1, 'value:corrupt': 2, 'value:not_wire_format': 1, 'value:unsupported_schema': 1 });
  });

  it('a body that fails deep inside lists, maps and structs leaves no partial values behind', async () => {
    const full = orderBody(1);
    // cut after the tags list and the map's first entry: the failure is inside `attrs`, after `tags` was appended
    const rows = [wire(1, orderBody(0)), wire(1, full.subarray(0, full.length - 30)), wire(1, orderBody(2)), wire(1, Buffer.concat([orderBody(3).subarray(0, 40), Buffer.from([0x7f])])), wire(1, orderBody(4))];
    const t = readParquetTable((await encodeTypedFiles(job(rows), lookup)).files[0]!.bytes);
    const json = t.toArray().map((x) => x.toJSON() as Record<string, unknown>);
    expect(json.map((x) => (x['decode_error'] === null ? null : 'error'))).toEqual([null, 'error', null, 'error', null]);
    expect(json.map((x) => (x['tags'] ? [...(x['tags'] as arrow.Vector)] : null))).toEqual([['a', 't0'], null, ['a', 't2'], null, ['a', 't4']]);
    expect(json.map((x) => (x['attrs'] as { toJSON(): unknown } | null)?.toJSON() ?? null)).toEqual([{ q: 0n }, null, { q: 2n }, null, { q: 4n }]);
    expect(json.map((x) => (x['ship'] as { toJSON(): unknown } | null)?.toJSON() ?? null)).toEqual([{ city: 'Oslo', zip: 150 }, null, { city: 'Oslo', zip: null }, null, { city: 'Oslo', zip: 150 }]);
    expect(json.map((x) => x['price'])).toEqual([10.5, null, 12.5, null, 14.5]);
  });

  it('v1 and v2 rows in one file: the new optional field is a column, null for v1; a type change goes to <name>__v<id>', async () => {
    const r = await encodeTypedFiles(job([wire(1, orderBody(0)), wire(2, orderBody(1, v2Type, { coupon: 'C1' })), wire(3, avro.Type.forSchema(PRICE_STR as avro.Schema).toBuffer({ price: 'cheap' }))]), lookup);
    const t = readParquetTable(r.files[0]!.bytes);
    const rows = t.toArray().map((x) => x.toJSON() as Record<string, unknown>);
    expect(rows.map((x) => x['coupon'])).toEqual([null, 'C1', null]);
    expect(rows.map((x) => x['price'])).toEqual([10.5, 11.5, null]);
    expect(rows.map((x) => x['price__v3'])).toEqual([null, null, 'cheap']);
    // the table already has `price` as a string: this file's double goes to price__v1
    const r2 = await encodeTypedFiles(job([wire(1, orderBody(0))], undefined, { price: '"string"' }), lookup);
    expect(r2.files[0]!.typed!.map((f) => f.name)).toContain('price__v1');
  });

  it('a schema\'d key becomes key_fields; schemas are looked up once per id and thread', async () => {
    const longT = avro.Type.forSchema('long');
    const before = asked.length;
    const r = await encodeTypedFiles(job([wire(1, orderBody(0)), wire(1, orderBody(1))], [wire(5, longT.toBuffer(7)), null]), lookup);
    const t = readParquetTable(r.files[0]!.bytes);
    expect([...t.getChild('key_fields')!].map((x) => x)).toEqual([7n, null]);
    expect(asked.slice(before).flat()).not.toContain(1); // id 1 was compiled by an earlier job in this thread
  });

  it('latest mode (archive.value.schema=latest): bare Avro bodies, all decoded with the one schema id the job names', async () => {
    const bare = (i: number) => orderBody(i);
    const j = { ...job([bare(0), wire(1, orderBody(1)), bare(2)]), typed: { value: 1 as const, key: false as const, table: {} } };
    const t = readParquetTable((await encodeTypedFiles(j, lookup)).files[0]!.bytes);
    expect([...t.getChild('price')!]).toEqual([10.5, null, 12.5]);
    expect([...t.getChild('decode_error')!][1]).toMatch(/^value: Avro body does not decode with schema id 1: /); // a prefixed record is not a bare body
    const none = { ...job([bare(0)]), typed: { value: -1 as const, key: false as const, table: {} } };
    const t2 = readParquetTable((await encodeTypedFiles(none, lookup)).files[0]!.bytes);
    expect([...t2.getChild('decode_error')!]).toEqual(['value: the subject of archive.value.schema=latest has no schema']);
  });

  it('compaction keeps typed columns; an older file reads null in a newer column', async () => {
    const a = (await encodeTypedFiles(job([wire(1, orderBody(0))]), lookup)).files[0]!;
    const b = (await encodeTypedFiles(job([wire(2, orderBody(1, v2Type, { coupon: 'C9' }))]), lookup)).files[0]!;
    const untyped = encodeDataFiles({ ...job([Buffer.from('raw')]), typed: undefined }).files[0]!;
    const out = compactFiles({ files: [untyped.bytes, a.bytes, b.bytes] });
    const t = readParquetTable(out.bytes);
    expect(t.numRows).toBe(3);
    expect([...t.getChild('coupon')!]).toEqual([null, null, 'C9']);
    expect([...t.getChild('price')!]).toEqual([null, 10.5, 11.5]);
  });

  it('the broker\'s tiered reads rebuild the same Kafka batches from a typed file as from an untyped one', async () => {
    const j = job([wire(1, orderBody(0)), null, wire(99, orderBody(1)), wire(2, orderBody(2, v2Type, { coupon: 'C' }))], [Buffer.from('k'), null, null, wire(5, Buffer.from([14]))]);
    const typed = (await encodeTypedFiles(j, lookup)).files[0]!.bytes;
    const plain = encodeDataFiles({ ...job([wire(1, orderBody(0)), null, wire(99, orderBody(1)), wire(2, orderBody(2, v2Type, { coupon: 'C' }))], [Buffer.from('k'), null, null, wire(5, Buffer.from([14]))]), typed: undefined }).files[0]!.bytes;
    const a = rebuild({ files: [typed], partition: -1, targetBatchBytes: 1 << 20 });
    const b = rebuild({ files: [plain], partition: -1, targetBatchBytes: 1 << 20 });
    expect(a[0]!.records).toBe(4);
    expect(Buffer.from(a[0]!.bytes)).toEqual(Buffer.from(b[0]!.bytes));
  });

  it('types Delta cannot hold fall back as documented: recursion and wide decimals as text, time and local timestamps as integers', () => {
    const delta = (s: unknown) => mapAvro(parseAvro(JSON.stringify(s))).delta;
    const node = { type: 'record', name: 'Node', fields: [{ name: 'v', type: 'int' }, { name: 'next', type: ['null', 'Node'], default: null }] };
    expect(delta(node)).toEqual({ type: 'struct', fields: [{ name: 'v', type: 'integer', nullable: true, metadata: {} }, { name: 'next', type: 'string', nullable: true, metadata: {} }] });
    expect(delta({ type: 'bytes', logicalType: 'decimal', precision: 40, scale: 3 })).toBe('string');
    expect(delta({ type: 'fixed', name: 'F', size: 16, logicalType: 'decimal', precision: 38, scale: 0 })).toBe('decimal(38,0)');
    expect(delta({ type: 'int', logicalType: 'time-millis' })).toBe('integer');
    expect(delta({ type: 'long', logicalType: 'local-timestamp-micros' })).toBe('long');
    expect(delta({ type: 'fixed', name: 'G', size: 4 })).toBe('binary');
    expect(delta({ type: 'map', values: ['null', 'double'] })).toEqual({ type: 'map', keyType: 'string', valueType: 'double', valueContainsNull: true });
  });

  it('longs read exactly over the whole int64 range', () => {
    const zigzag = (n: bigint) => {
      let z = BigInt.asUintN(64, (n << 1n) ^ (n >> 63n));
      const out: number[] = [];
      while (z >= 0x80n) { out.push(Number(z & 0x7fn) | 0x80); z >>= 7n; }
      out.push(Number(z));
      return Buffer.from(out);
    };
    for (const n of [0n, -1n, 1n, 63n, -64n, 2n ** 53n + 1n, -(2n ** 53n) - 3n, 2n ** 63n - 1n, -(2n ** 63n)]) {
      const tap = { buf: zigzag(n), pos: 0 };
      expect(readBigLong(tap)).toBe(n);
      expect(tap.pos).toBe(tap.buf.length);
    }
  });

  it('decimal bytes convert exactly', () => {
    expect(decimalText(decimalBytes(-12345n), 2)).toBe('-123.45');
    expect(decimalText(Buffer.from([0x01]), 3)).toBe('0.001');
  });

  it('the generated reader reads what the field closures read, and fails where they fail (every cut of every body)', () => {
    const rt = parseAvro(JSON.stringify(V2)) as avro.types.RecordType;
    const ms = rt.fields.map((f) => mapAvro(f.type, ['Order']));
    const generated = genReader(ms);
    const closures = (cur: { buf: Buffer; pos: number; end: number }, b: ReturnType<(typeof ms)[number]['make']>[]) => {
      ms.forEach((m, i) => m.read(cur, b[i]!));
      if (cur.pos !== cur.end) throw new Error('left');
    };
    const bodies = [0, 1, 2, 3].map((i) => orderBody(i, v2Type, { coupon: i % 2 ? 'C' : null }));
    const run = (read: typeof closures) => {
      const b = ms.map((m) => m.make());
      const outcome: string[] = [];
      for (const body of bodies) {
        for (let cut = 0; cut <= body.length; cut++) {
          const n = b[0]!.n;
          try {
            read({ buf: body, pos: 0, end: cut }, b);
            outcome.push('ok');
          } catch {
            outcome.push('error');
            for (const c of b) c.truncate(n);
          }
        }
      }
      const types = ms.map((m) => m.arrow);
      return { outcome, columns: b.map((c, i) => [...arrow.makeVector(c.finish(types[i]!))].map((x) => JSON.stringify(x, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)))) };
    };
    const a = run(closures);
    const g = run(generated);
    expect(g.outcome).toEqual(a.outcome);
    expect(a.outcome.filter((x) => x === 'ok')).toHaveLength(bodies.length); // only the whole bodies read
    expect(g.columns).toEqual(a.columns);
  });
});
