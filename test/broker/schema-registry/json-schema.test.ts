// JSON Schema in the registry: what compiles (Ajv, per draft, with
// references), and the compatibility rules docs/schema-registry.md lists.
import { describe, expect, it } from 'vitest';
import { jsonIncompatibility, JsonSchemaError, parseJsonSchema } from '../../../broker/src/schema-registry/json-schema.js';

const obj = (properties: Record<string, unknown>, more: Record<string, unknown> = {}) => ({ type: 'object', properties, ...more });
/** Does a reader schema accept every document the writer schema accepts? */
const reads = (r: unknown, w: unknown): boolean => jsonIncompatibility(r as never, w as never) === null;

describe('JSON Schema parsing', () => {
  it('accepts drafts 6, 7, 2019-09 and 2020-12; refuses what does not compile, and draft-04', () => {
    for (const draft of ['http://json-schema.org/draft-06/schema#', 'http://json-schema.org/draft-07/schema#', 'https://json-schema.org/draft/2019-09/schema', 'https://json-schema.org/draft/2020-12/schema']) {
      expect(parseJsonSchema(JSON.stringify({ $schema: draft, type: 'object' })).schema).toMatchObject({ type: 'object' });
    }
    expect(() => parseJsonSchema('{"type": "strin"}')).toThrow(/must be equal to one of the allowed values/);
    expect(() => parseJsonSchema('[1]')).toThrow(JsonSchemaError);
    expect(() => parseJsonSchema('{"$schema": "http://json-schema.org/draft-04/schema#"}')).toThrow(/draft-04/);
    expect(parseJsonSchema('{ "type" : "string" }').canonical).toBe('{"type":"string"}');
    expect(parseJsonSchema('true').schema).toBe(true);
  });

  it('resolves $ref through the references, by reference name', () => {
    const user = JSON.stringify(obj({ home: { $ref: 'address.json' } }));
    expect(() => parseJsonSchema(user)).toThrow(/can't resolve reference address.json/);
    expect(() => parseJsonSchema(user, [{ name: 'address.json', schema: JSON.stringify(obj({ city: { type: 'string' } })) }])).not.toThrow();
  });
});

describe('JSON Schema compatibility (reader accepts what the writer accepts)', () => {
  const closed = (p: Record<string, unknown>, req: string[] = []) => obj(p, { additionalProperties: false, required: req });
  it('closed content model: adding an optional property reads old data, removing one does not', () => {
    const v1 = closed({ id: { type: 'integer' } }, ['id']);
    const v2 = closed({ id: { type: 'integer' }, note: { type: 'string' } }, ['id']);
    expect(reads(v2, v1)).toBe(true);
    expect(jsonIncompatibility(v1 as never, v2 as never)).toMatch(/note: removed from a closed content model/);
  });

  it('open content model: adding a typed property does not read old data (it may hold anything there), removing one does', () => {
    const v1 = obj({ id: { type: 'integer' } });
    const v2 = obj({ id: { type: 'integer' }, note: { type: 'string' } });
    expect(jsonIncompatibility(v2 as never, v1 as never)).toMatch(/added to an open content model/);
    expect(reads(v1, v2)).toBe(true);
  });

  it('required properties, types, enums and bounds', () => {
    expect(jsonIncompatibility(obj({ a: {} }, { required: ['a'] }) as never, obj({ a: {} }) as never)).toMatch(/'a' became required/);
    expect(reads({ type: 'number' }, { type: 'integer' })).toBe(true);
    expect(reads({ type: 'integer' }, { type: 'number' })).toBe(false);
    expect(reads({ type: ['string', 'null'] }, { type: 'string' })).toBe(true);
    expect(reads({ type: 'string' }, {})).toBe(false);
    expect(reads({ enum: ['a', 'b', 'c'] }, { enum: ['a', 'b'] })).toBe(true);
    expect(reads({ enum: ['a'] }, { enum: ['a', 'b'] })).toBe(false);
    expect(reads({ type: 'string', maxLength: 10 }, { type: 'string', maxLength: 5 })).toBe(true);
    expect(reads({ type: 'string', maxLength: 5 }, { type: 'string', maxLength: 10 })).toBe(false);
    expect(reads({ type: 'integer', minimum: 0 }, { type: 'integer' })).toBe(false);
    expect(reads({ type: 'array', items: { type: 'number' } }, { type: 'array', items: { type: 'integer' } })).toBe(true);
    expect(reads({ type: 'array', items: { type: 'integer' } }, { type: 'array', items: { type: 'number' } })).toBe(false);
    expect(reads({ oneOf: [{ type: 'string' }] }, { oneOf: [{ type: 'string' }, { type: 'null' }] })).toBe(false);
    expect(reads(true, { type: 'string' })).toBe(true);
    expect(reads(false, { type: 'string' })).toBe(false);
  });
});
