// The registry's core over an in-memory store: Confluent's semantics for ids,
// versions, compatibility levels, deletes, references, config and modes.
import { beforeEach, describe, expect, it } from 'vitest';
import { SchemaRegistry, parseVersion, schemaInput, type SchemaInput } from '../../../broker/src/schema-registry/registry.js';
import type { RegistryError } from '../../../broker/src/schema-registry/errors.js';
import { MemoryStore } from './memory-store.js';

const rec = (fields: unknown[]): string => JSON.stringify({ type: 'record', name: 'User', fields });
const V1 = rec([{ name: 'id', type: 'long' }]);
const V2 = rec([{ name: 'id', type: 'long' }, { name: 'email', type: ['null', 'string'], default: null }]);
const V3 = rec([{ name: 'id', type: 'long' }, { name: 'email', type: ['null', 'string'], default: null }, { name: 'age', type: 'int' }]);
const avro = (schema: string, more: Partial<SchemaInput> = {}): SchemaInput => ({ schemaType: 'AVRO', schema, references: [], ...more });

/** The Confluent error a promise rejects with, as [HTTP status, error_code]. */
async function codeOf(p: Promise<unknown>): Promise<[number, number]> {
  try {
    await p;
  } catch (e) {
    return [(e as RegistryError).status, (e as RegistryError).errorCode];
  }
  throw new Error('expected a RegistryError');
}

let store: MemoryStore;
let r: SchemaRegistry;
beforeEach(() => {
  store = new MemoryStore();
  r = new SchemaRegistry(store);
});

describe('registration', () => {
  it('gives each schema one global id, versions per subject, and the same answer again', async () => {
    expect(await r.register('a-value', avro(V1))).toEqual({ id: 1 });
    expect(await r.register('a-value', avro(V2))).toEqual({ id: 2 });
    // the same schema again (even laid out differently): same id, no new version
    expect(await r.register('a-value', avro(JSON.stringify(JSON.parse(V1), null, 2)))).toEqual({ id: 1 });
    expect(await r.versions('a-value')).toEqual([1, 2]);
    // another subject: its own version 1, the schema's global id
    expect(await r.register('b-value', avro(V2))).toEqual({ id: 2 });
    expect((await r.version('b-value', 1)).id).toBe(2);
    expect(await r.subjects()).toEqual(['a-value', 'b-value']);
    expect(await r.idVersions(2)).toEqual([{ subject: 'a-value', version: 2 }, { subject: 'b-value', version: 1 }]);
    expect((await r.version('a-value', 'latest')).schema).toBe(V2);
  });

  it('refuses an incompatible schema with 409 under the default BACKWARD, and takes it under NONE', async () => {
    await r.register('s', avro(V1));
    await r.register('s', avro(V2));
    const e = (await r.register('s', avro(V3)).catch((x: unknown) => x)) as RegistryError;
    expect([e.status, e.errorCode]).toEqual([409, 409]);
    expect(e.message).toMatch(/^Schema being registered is incompatible with an earlier schema for subject "s", details: \[.*age/);
    await r.setCompatibility('s', { compatibility: 'none' });
    expect(await r.register('s', avro(V3))).toEqual({ id: 3 });
  });

  it('FORWARD: the previous version must read the new one; FULL: both ways', async () => {
    const narrower = rec([{ name: 'id', type: 'int' }]);
    await r.register('f', avro(V1));
    await r.setCompatibility('f', { compatibility: 'FORWARD' });
    // a long field narrowed to int: old (long) readers read int data, so FORWARD allows it
    expect((await r.testCompatibility('f', null, avro(narrower))).compatible).toBe(true);
    await r.setCompatibility('f', { compatibility: 'BACKWARD' });
    expect((await r.testCompatibility('f', null, avro(narrower))).compatible).toBe(false);
    await r.setCompatibility('f', { compatibility: 'FULL' });
    expect((await r.testCompatibility('f', null, avro(narrower))).compatible).toBe(false);
    expect((await r.testCompatibility('f', null, avro(V2))).compatible).toBe(true);
  });

  it('transitive levels check every live version, the others only the latest', async () => {
    const a = rec([{ name: 'id', type: 'long' }]);
    const b = rec([{ name: 'id', type: 'long' }, { name: 'x', type: 'int', default: 0 }]);
    // drops x's default: reads b's data (x written), not a's (x missing)
    const c = rec([{ name: 'id', type: 'long' }, { name: 'x', type: 'int' }]);
    await r.register('t', avro(a));
    await r.register('t', avro(b));
    await r.setCompatibility('t', { compatibility: 'BACKWARD' });
    expect((await r.testCompatibility('t', null, avro(c))).compatible).toBe(true);
    await r.setCompatibility('t', { compatibility: 'BACKWARD_TRANSITIVE' });
    const out = await r.testCompatibility('t', null, avro(c));
    expect(out.compatible).toBe(false);
    expect(out.messages.join()).toMatch(/oldSchemaVersion: 1/);
    // against one named version
    expect((await r.testCompatibility('t', 2, avro(c))).compatible).toBe(true);
    expect((await r.testCompatibility('t', 1, avro(c))).compatible).toBe(false);
    expect(await codeOf(r.testCompatibility('t', 9, avro(c)))).toEqual([404, 40402]);
  });

  it('malformed schemas and bodies are 422 42201', async () => {
    expect(await codeOf(r.register('s', avro('{"type": "nope"}')))).toEqual([422, 42201]);
    expect(() => schemaInput({ schema: 1 })).toThrow(expect.objectContaining({ errorCode: 42201 }));
    expect(() => schemaInput({ schema: V1, schemaType: 'XML' })).toThrow(expect.objectContaining({ errorCode: 42201 }));
    expect(() => schemaInput({ schema: V1, references: [{ name: 'x' }] })).toThrow(expect.objectContaining({ errorCode: 42201 }));
    expect(schemaInput({ schema: V1 })).toEqual({ schemaType: 'AVRO', schema: V1, references: [] });
  });

  it('re-checks compatibility when another broker adds a version between check and write', async () => {
    await r.register('s', avro(V1));
    let injected = false;
    store.beforeRegister = () => {
      if (injected) return;
      injected = true;
      // another broker registers V2 (id 9) just before our write: our write is refused and retried
      store.subjectVersions.get('s')!.push({ version: 2, id: 9, deleted: false });
      store.records.set(9, { schemaType: 'AVRO', schema: V2, references: [] });
    };
    expect(await r.register('s', avro(rec([{ name: 'id', type: 'long' }, { name: 'z', type: 'int', default: 1 }])))).toEqual({ id: 2 });
    expect(await r.versions('s')).toEqual([1, 2, 3]);
  });

  it('version ids: latest, -1 and 1..2^31-1; anything else is 42202', () => {
    expect(parseVersion('latest')).toBe('latest');
    expect(parseVersion('-1')).toBe('latest');
    expect(parseVersion('7')).toBe(7);
    for (const bad of ['0', '-2', 'x', '2147483648', '1.5']) expect(() => parseVersion(bad)).toThrow(expect.objectContaining({ errorCode: 42202 }));
  });
});

describe('lookups and errors', () => {
  it('looks a schema up in a subject; unknown subject, version and id have their codes', async () => {
    await r.register('s', avro(V1));
    await r.register('s', avro(V2));
    expect(await r.lookup('s', avro(V1))).toMatchObject({ subject: 's', version: 1, id: 1, schema: V1 });
    expect(await codeOf(r.lookup('s', avro(V3)))).toEqual([404, 40403]);
    expect(await codeOf(r.lookup('nope', avro(V1)))).toEqual([404, 40401]);
    expect(await codeOf(r.version('nope', 1))).toEqual([404, 40401]);
    expect(await codeOf(r.version('s', 3))).toEqual([404, 40402]);
    expect(await codeOf(r.schemaById(42))).toEqual([404, 40403]);
    expect(await r.schemaById(2)).toEqual({ schemaType: 'AVRO', schema: V2, references: [] });
  });
});

describe('deletes', () => {
  it('soft then hard, with Confluent\'s error for each wrong order', async () => {
    await r.register('s', avro(V1));
    await r.register('s', avro(V2));
    expect(await codeOf(r.deleteVersion('s', 1, true))).toEqual([404, 40407]);
    expect(await r.deleteVersion('s', 1, false)).toBe(1);
    expect(await codeOf(r.deleteVersion('s', 1, false))).toEqual([404, 40406]);
    expect(await r.versions('s')).toEqual([2]);
    expect(await r.versions('s', true)).toEqual([1, 2]);
    expect(await codeOf(r.version('s', 1))).toEqual([404, 40402]);
    expect((await r.version('s', 1, true)).id).toBe(1);
    expect(await r.deleteVersion('s', 1, true)).toBe(1);
    expect(await r.versions('s', true)).toEqual([2]);
    // no version holds id 1 any more: 40403 from the API, as Confluent answers (the store keeps
    // the record, so the archiver still decodes what was written with it)
    expect(await codeOf(r.schemaById(1))).toEqual([404, 40403]);
    expect(await codeOf(r.idVersions(1, true))).toEqual([404, 40403]);
    expect((await store.schema(1))?.schema).toBe(V1);
    // the subject: soft, then hard
    expect(await codeOf(r.deleteSubject('s', true))).toEqual([404, 40405]);
    expect(await r.deleteSubject('s', false)).toEqual([2]);
    expect(await codeOf(r.deleteSubject('s', false))).toEqual([404, 40404]);
    expect(await r.subjects()).toEqual([]);
    expect(await r.subjects({ deleted: true })).toEqual(['s']);
    expect(await codeOf(r.versions('s'))).toEqual([404, 40401]);
    // a soft-deleted subject takes a new version after its highest one, the schema keeps its id
    expect(await r.register('s', avro(V2))).toEqual({ id: 2 });
    expect(await r.versions('s')).toEqual([3]);
    await r.deleteSubject('s', false);
    await r.setCompatibility('s', { compatibility: 'FULL' });
    expect(await r.deleteSubject('s', true)).toEqual([2, 3]);
    expect(await codeOf(r.deleteSubject('s', false))).toEqual([404, 40401]);
    // a subject deleted for good leaves no subject-level config behind
    expect(await store.compatibility('s')).toBeNull();
  });
});

describe('references', () => {
  const ADDRESS = '{"type": "record", "name": "Address", "namespace": "com.acme", "fields": [{"name": "city", "type": "string"}]}';
  const USER = '{"type": "record", "name": "User", "namespace": "com.acme", "fields": [{"name": "home", "type": "com.acme.Address"}]}';

  it('resolves named types from referenced subjects; a referenced version cannot be deleted', async () => {
    await r.register('address', avro(ADDRESS));
    expect(await codeOf(r.register('user', avro(USER)))).toEqual([422, 42201]);
    const refs = [{ name: 'com.acme.Address', subject: 'address', version: 1 }];
    expect(await codeOf(r.register('user', avro(USER, { references: [{ name: 'x', subject: 'address', version: 5 }] })))).toEqual([422, 42201]);
    expect(await r.register('user', avro(USER, { references: refs }))).toEqual({ id: 2 });
    expect((await r.version('user', 1)).references).toEqual(refs);
    expect(await r.referencedBy('address', 1)).toEqual([2]);
    expect(await codeOf(r.deleteVersion('address', 1, false))).toEqual([422, 42206]);
    expect(await codeOf(r.deleteSubject('address', false))).toEqual([422, 42206]);
    // once the referring schema is deleted, the reference no longer holds
    await r.deleteSubject('user', false);
    expect(await r.referencedBy('address', 1)).toEqual([]);
    expect(await r.deleteSubject('address', false)).toEqual([1]);
    // the same text with other references is another schema (another id)
    await r.register('address', avro(ADDRESS));
    await r.register('address2', avro(ADDRESS));
    expect(await r.register('user2', avro(USER, { references: [{ name: 'com.acme.Address', subject: 'address2', version: 1 }] }))).toEqual({ id: 3 });
  });
});

describe('JSON and PROTOBUF through the core', () => {
  it('registers each type with references, keeps types apart, checks each type\'s rules', async () => {
    const address = JSON.stringify({ type: 'object', properties: { city: { type: 'string' } } });
    expect(await r.register('address-json', { schemaType: 'JSON', schema: address, references: [] })).toEqual({ id: 1 });
    const user = JSON.stringify({ type: 'object', properties: { home: { $ref: 'address.json' } }, additionalProperties: false });
    expect(await codeOf(r.register('user-json', { schemaType: 'JSON', schema: user, references: [] }))).toEqual([422, 42201]);
    expect(await r.register('user-json', { schemaType: 'JSON', schema: user, references: [{ name: 'address.json', subject: 'address-json', version: 1 }] })).toEqual({ id: 2 });
    const proto = 'syntax = "proto3";\npackage acme;\nimport "address.proto";\nmessage User { Address home = 1; }';
    await r.register('address-proto', { schemaType: 'PROTOBUF', schema: 'syntax = "proto3";\npackage acme;\nmessage Address { string city = 1; }', references: [] });
    expect(await r.register('user-proto', { schemaType: 'PROTOBUF', schema: proto, references: [{ name: 'address.proto', subject: 'address-proto', version: 1 }] })).toEqual({ id: 4 });
    expect((await r.version('user-proto', 1)).schemaType).toBe('PROTOBUF');
    // the same text as another type is another schema, and incompatible with the subject's versions
    const asAvro = '{"type": "string"}';
    await r.register('mixed', { schemaType: 'JSON', schema: asAvro, references: [] });
    const e = (await r.register('mixed', avro(asAvro)).catch((x: unknown) => x)) as RegistryError;
    expect([e.errorCode, e.message]).toEqual([409, expect.stringMatching(/the new schema is AVRO, version 1 is JSON/)]);
    // each type's own rule: a field's type changed in Protobuf
    const changed = 'syntax = "proto3";\npackage acme;\nmessage Address { int64 city = 1; }';
    expect(await codeOf(r.register('address-proto', { schemaType: 'PROTOBUF', schema: changed, references: [] }))).toEqual([409, 409]);
  });
});

describe('config and mode', () => {
  it('compatibility: global default BACKWARD, per-subject levels, 40408 and 42203', async () => {
    expect(await r.getCompatibility(null)).toBe('BACKWARD');
    expect(await r.setCompatibility(null, { compatibility: 'FULL_TRANSITIVE' })).toBe('FULL_TRANSITIVE');
    expect(await codeOf(r.getCompatibility('s'))).toEqual([404, 40408]);
    expect(await r.getCompatibility('s', true)).toBe('FULL_TRANSITIVE');
    await r.setCompatibility('s', { compatibility: 'NONE' });
    expect(await r.getCompatibility('s')).toBe('NONE');
    expect(await r.effectiveCompatibility('s')).toBe('NONE');
    expect(await codeOf(r.setCompatibility(null, { compatibility: 'SIDEWAYS' }))).toEqual([422, 42203]);
    expect(await codeOf(r.deleteCompatibility('s'))).toEqual([404, 40401]); // no such subject
    await r.register('s', avro(V1));
    expect(await r.deleteCompatibility('s')).toBe('NONE');
    expect(await r.deleteCompatibility(null)).toBe('FULL_TRANSITIVE');
    expect(await r.getCompatibility(null)).toBe('BACKWARD');
  });

  it('READONLY refuses writes with 42205; IMPORT takes given ids and versions, unchecked', async () => {
    await r.register('s', avro(V1));
    await r.setMode('s', { mode: 'READONLY' });
    expect(await r.getMode('s')).toBe('READONLY');
    expect(await r.getMode(null)).toBe('READWRITE');
    expect(await codeOf(r.register('s', avro(V2)))).toEqual([422, 42205]);
    expect(await codeOf(r.deleteSubject('s', false))).toEqual([422, 42205]);
    expect(await r.deleteMode('s')).toBe('READONLY');
    expect(await codeOf(r.getMode('s'))).toEqual([404, 40409]);
    expect(await codeOf(r.setMode(null, { mode: 'SIDEWAYS' }))).toEqual([422, 42204]);
    // IMPORT on a registry holding schemas needs force
    expect(await codeOf(r.setMode(null, { mode: 'IMPORT' }))).toEqual([422, 42205]);
    expect(await codeOf(r.register('imp', avro(V2, { id: 100, version: 5 })))).toEqual([422, 42205]);
    expect(await r.setMode('imp', { mode: 'IMPORT' })).toBe('IMPORT');
    expect(await r.register('imp', avro(V3, { id: 100, version: 5 }))).toEqual({ id: 100 });
    expect(await r.versions('imp')).toEqual([5]);
    expect(await codeOf(r.register('imp', avro(V1, { id: 100, version: 6 })))).toEqual([422, 42207]);
    // ids given out later start above the imported ones
    await r.setMode('imp', { mode: 'READWRITE' });
    expect(await r.register('other', avro(rec([{ name: 'q', type: 'string' }])))).toEqual({ id: 101 });
  });
});
