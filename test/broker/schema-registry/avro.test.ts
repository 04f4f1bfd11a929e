// Avro schemas in the registry: what parses (avsc's validation), the stored
// text, and compatibility as Avro schema resolution (reader vs writer).
import { describe, expect, it } from 'vitest';
import { avroCanonical, avroIncompatibility, AvroSchemaError, parseAvro } from '../../../broker/src/schema-registry/avro.js';

const rec = (fields: unknown[], name = 'User'): string => JSON.stringify({ type: 'record', name, namespace: 'com.acme', fields });
const v1 = rec([{ name: 'id', type: 'long' }, { name: 'name', type: 'string' }]);
const v2 = rec([{ name: 'id', type: 'long' }, { name: 'name', type: 'string' }, { name: 'email', type: ['null', 'string'], default: null }]);
const required = rec([{ name: 'id', type: 'long' }, { name: 'name', type: 'string' }, { name: 'age', type: 'int' }]);

/** Can a reader of schema `r` read data written with schema `w`? */
const reads = (r: string, w: string): boolean => avroIncompatibility(parseAvro(r), parseAvro(w)) === null;

describe('avro schemas', () => {
  it('refuses what is not Avro, naming the problem', () => {
    expect(() => parseAvro('{"type": "record", "name": "X", "fields": [{"name": "a", "type": "strin"}]}')).toThrow(/undefined type name: strin/);
    expect(() => parseAvro('{not json')).toThrow(AvroSchemaError);
    expect(() => parseAvro(rec([{ name: 'a', type: 'int', default: 'x' }]))).toThrow(/default/);
    expect(() => parseAvro(rec([{ name: 'a', type: 'int' }, { name: 'a', type: 'long' }]))).toThrow(/duplicate field/);
    expect(() => parseAvro('{"type": "enum", "name": "E", "symbols": ["A", "A"]}')).toThrow(/duplicate/);
    expect(() => parseAvro('{"type": "record", "name": "1x", "fields": []}')).toThrow(/invalid name/);
  });

  it('stores the JSON without layout: whitespace is not a new schema, a default is', () => {
    expect(avroCanonical('{ "type" :  "string" }')).toBe('{"type":"string"}');
    expect(avroCanonical(`\n${v1}\n`)).toBe(v1);
    expect(avroCanonical(rec([{ name: 'a', type: 'int', default: 1 }]))).not.toBe(avroCanonical(rec([{ name: 'a', type: 'int', default: 2 }])));
    // a logical type is kept in the text (checked as its underlying type)
    const dated = rec([{ name: 'd', type: { type: 'int', logicalType: 'date' } }]);
    expect(avroCanonical(dated)).toContain('"logicalType":"date"');
    expect(() => parseAvro(dated)).not.toThrow();
  });

  it('a new optional field: each version reads the other', () => {
    expect(reads(v2, v1)).toBe(true); // backward: the default fills email
    expect(reads(v1, v2)).toBe(true); // forward: v1 skips email
  });

  it('a new field without a default cannot read older data', () => {
    expect(avroIncompatibility(parseAvro(required), parseAvro(v1))).toMatch(/age/);
    expect(reads(v1, required)).toBe(true);
  });

  it('numeric promotion goes one way: long reads int, int does not read long', () => {
    const i = rec([{ name: 'n', type: 'int' }]);
    const l = rec([{ name: 'n', type: 'long' }]);
    expect(reads(l, i)).toBe(true);
    expect(reads(i, l)).toBe(false);
  });

  it('enums: a reader without a symbol the writer has needs a default', () => {
    const ab = '{"type": "enum", "name": "E", "symbols": ["A", "B"]}';
    const abc = '{"type": "enum", "name": "E", "symbols": ["A", "B", "C"]}';
    const abDefault = '{"type": "enum", "name": "E", "symbols": ["A", "B"], "default": "A"}';
    expect(reads(abc, ab)).toBe(true);
    expect(reads(ab, abc)).toBe(false);
    expect(reads(abDefault, abc)).toBe(true);
  });

  it('unions: every writer branch must resolve', () => {
    expect(reads('["null", "string"]', '"string"')).toBe(true);
    expect(reads('"string"', '["null", "string"]')).toBe(false);
  });

  it('named types match by unqualified name (namespaces aside), as Avro SchemaCompatibility does', () => {
    expect(reads(rec([{ name: 'a', type: 'int' }], 'R'), JSON.stringify({ type: 'record', name: 'other.R', fields: [{ name: 'a', type: 'int' }] }))).toBe(true);
    expect(reads(rec([{ name: 'a', type: 'int' }], 'R'), rec([{ name: 'a', type: 'int' }], 'S'))).toBe(false);
  });

  it('a schema may use the named types of the schemas it references', () => {
    const address = '{"type": "record", "name": "Address", "namespace": "com.acme", "fields": [{"name": "city", "type": "string"}]}';
    const user = rec([{ name: 'home', type: 'com.acme.Address' }]);
    expect(() => parseAvro(user)).toThrow(/Address/);
    expect(parseAvro(user, [address]).isValid({ home: { city: 'Oslo' } })).toBe(true);
  });
});
