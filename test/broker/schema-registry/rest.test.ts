// The REST layer (fastify, injected requests): Confluent's paths, content
// types, answers and error bodies, and the ACL mapping of subjects.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SchemaRegistry } from '../../../broker/src/schema-registry/registry.js';
import { CONTENT_TYPE, registryRoutes } from '../../../broker/src/schema-registry/rest.js';
import { OPEN_ACCESS, aclAccess, topicOfSubject, type RegistryAccess } from '../../../broker/src/schema-registry/access.js';
import { AclOperation, ResourceType } from '../../../broker/src/security/acl/model.js';
import { MemoryStore } from './memory-store.js';

const V1 = '{"type":"record","name":"User","fields":[{"name":"id","type":"long"}]}';
const V2 = '{"type":"record","name":"User","fields":[{"name":"id","type":"long"},{"name":"email","type":["null","string"],"default":null}]}';
const V3 = '{"type":"record","name":"User","fields":[{"name":"id","type":"long"},{"name":"age","type":"int"}]}';

let app: FastifyInstance;
let access: RegistryAccess = OPEN_ACCESS;
beforeEach(async () => {
  access = OPEN_ACCESS;
  app = Fastify();
  registryRoutes(app, { registry: new SchemaRegistry(new MemoryStore()), access: () => access });
  await app.ready();
});
afterEach(() => app.close());

async function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, contentType = CONTENT_TYPE): Promise<{ status: number; json: unknown; type: string }> {
  const res = await app.inject({ method, url, ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': contentType } }) });
  return { status: res.statusCode, json: res.body === '' ? undefined : JSON.parse(res.body), type: String(res.headers['content-type']) };
}

describe('schema registry REST API', () => {
  it('registers, lists and serves versions and ids with Confluent\'s shapes', async () => {
    expect(await call('POST', '/subjects/orders-value/versions', { schema: V1 })).toEqual({ status: 200, json: { id: 1 }, type: expect.stringMatching(/^application\/vnd\.schemaregistry\.v1\+json/) });
    expect((await call('POST', '/subjects/orders-value/versions?normalize=False', { schema: V2, schemaType: 'AVRO' }, 'application/json')).json).toEqual({ id: 2 });
    expect((await call('GET', '/subjects')).json).toEqual(['orders-value']);
    expect((await call('GET', '/subjects/orders-value/versions')).json).toEqual([1, 2]);
    expect((await call('GET', '/subjects/orders-value/versions/latest')).json).toEqual({ subject: 'orders-value', version: 2, id: 2, schema: V2 });
    expect((await call('GET', '/subjects/orders-value/versions/1/schema')).json).toEqual(JSON.parse(V1));
    expect((await call('GET', '/schemas/ids/1')).json).toEqual({ schema: V1 });
    expect((await call('GET', '/schemas/ids/2/versions')).json).toEqual([{ subject: 'orders-value', version: 2 }]);
    expect((await call('GET', '/schemas/ids/2/subjects')).json).toEqual(['orders-value']);
    expect((await call('GET', '/schemas/types')).json).toEqual(['JSON', 'PROTOBUF', 'AVRO']);
    expect((await call('POST', '/subjects/orders-value', { schema: V1 })).json).toEqual({ subject: 'orders-value', version: 1, id: 1, schema: V1 });
  });

  it('answers errors as {error_code, message}', async () => {
    await call('POST', '/subjects/s/versions', { schema: V1 });
    const incompatible = await call('POST', '/subjects/s/versions', { schema: V3 });
    expect(incompatible.status).toBe(409);
    expect(incompatible.json).toMatchObject({ error_code: 409, message: expect.stringMatching(/incompatible/) });
    expect(await call('POST', '/subjects/s/versions', { schema: '{"type":"recrd"}' })).toMatchObject({ status: 422, json: { error_code: 42201 } });
    expect(await call('POST', '/subjects/s/versions', '{"schema": ')).toMatchObject({ status: 400, json: { error_code: 400 } });
    expect(await call('GET', '/subjects/nope/versions')).toMatchObject({ status: 404, json: { error_code: 40401, message: "Subject 'nope' not found." } });
    expect(await call('GET', '/subjects/s/versions/7')).toMatchObject({ status: 404, json: { error_code: 40402 } });
    expect(await call('GET', '/subjects/s/versions/zero')).toMatchObject({ status: 422, json: { error_code: 42202 } });
    expect(await call('GET', '/schemas/ids/99')).toMatchObject({ status: 404, json: { error_code: 40403 } });
    expect(await call('GET', '/schemas/ids/x')).toMatchObject({ status: 404, json: { error_code: 40403 } });
    expect(await call('GET', '/no/such/path')).toMatchObject({ status: 404, json: { error_code: 404 } });
    expect(await call('PUT', '/config', { compatibility: 'SOMETIMES' })).toMatchObject({ status: 422, json: { error_code: 42203 } });
    expect(await call('GET', '/config/s')).toMatchObject({ status: 404, json: { error_code: 40408 } });
  });

  it('config, mode, compatibility tests, deletes and referencedby', async () => {
    expect((await call('GET', '/config')).json).toEqual({ compatibilityLevel: 'BACKWARD' });
    expect((await call('PUT', '/config/s', { compatibility: 'FULL' })).json).toEqual({ compatibility: 'FULL' });
    expect((await call('GET', '/config/s')).json).toEqual({ compatibilityLevel: 'FULL' });
    expect((await call('GET', '/config/t?defaultToGlobal=true')).json).toEqual({ compatibilityLevel: 'BACKWARD' });
    expect((await call('GET', '/mode')).json).toEqual({ mode: 'READWRITE' });
    expect((await call('PUT', '/mode/s', { mode: 'READONLY' })).json).toEqual({ mode: 'READONLY' });
    expect(await call('POST', '/subjects/s/versions', { schema: V1 })).toMatchObject({ status: 422, json: { error_code: 42205 } });
    expect((await call('DELETE', '/mode/s')).json).toEqual({ mode: 'READONLY' });
    await call('POST', '/subjects/s/versions', { schema: V1 });
    expect((await call('POST', '/compatibility/subjects/s/versions/latest', { schema: V2 })).json).toEqual({ is_compatible: true });
    expect((await call('POST', '/compatibility/subjects/s/versions?verbose=true', { schema: V3 })).json)
      .toEqual({ is_compatible: false, messages: [expect.stringMatching(/age/)] });
    expect((await call('GET', '/subjects/s/versions/1/referencedby')).json).toEqual([]);
    expect((await call('DELETE', '/subjects/s/versions/1')).json).toBe(1);
    expect((await call('GET', '/subjects?deleted=true')).json).toEqual(['s']);
    expect((await call('GET', '/schemas/ids/1')).status).toBe(200); // a soft-deleted version still serves its id
    expect((await call('DELETE', '/subjects/s?permanent=true')).json).toEqual([1]);
    expect((await call('GET', '/subjects?deleted=true')).json).toEqual([]);
    // deleted for good: the id is gone from the API as in Confluent's registry
    expect(await call('GET', '/schemas/ids/1')).toMatchObject({ status: 404, json: { error_code: 40403 } });
    expect(await call('GET', '/schemas/ids/1/schema')).toMatchObject({ status: 404, json: { error_code: 40403 } });
    expect(await call('GET', '/schemas/ids/1/versions?deleted=true')).toMatchObject({ status: 404, json: { error_code: 40403 } });
  });

  it('a subject the principal may not read or write is 403 40301, and lists hide it', async () => {
    await call('POST', '/subjects/open-value/versions', { schema: V1 });
    await call('POST', '/subjects/closed-value/versions', { schema: V2 });
    access = { subject: (op, s) => s.startsWith('open') && op !== 'alter', global: () => false };
    expect((await call('GET', '/subjects')).json).toEqual(['open-value']);
    expect(await call('GET', '/subjects/closed-value/versions')).toMatchObject({ status: 403, json: { error_code: 40301 } });
    expect(await call('POST', '/subjects/closed-value/versions', { schema: V1 })).toMatchObject({ status: 403 });
    expect(await call('PUT', '/config/open-value', { compatibility: 'NONE' })).toMatchObject({ status: 403 });
    expect(await call('GET', '/config')).toMatchObject({ status: 403 });
    expect((await call('GET', '/schemas/ids/1')).status).toBe(200);
    expect(await call('GET', '/schemas/ids/2')).toMatchObject({ status: 403, json: { error_code: 40301 } });
  });
});

describe('schema registry REST API, the rest of it', () => {
  it('schema text by id, subject prefixes, IMPORT with force, an invalid subject', async () => {
    await call('POST', '/subjects/a-value/versions', { schema: V1 });
    await call('POST', '/subjects/b-value/versions', { schema: V2 });
    expect((await call('GET', '/schemas/ids/2/schema')).json).toEqual(JSON.parse(V2));
    expect((await call('GET', '/subjects?subjectPrefix=b')).json).toEqual(['b-value']);
    expect(await call('PUT', '/mode', { mode: 'IMPORT' })).toMatchObject({ status: 422, json: { error_code: 42205 } });
    expect(await call('PUT', '/mode?force=true', { mode: 'IMPORT' })).toMatchObject({ status: 200, json: { mode: 'IMPORT' } });
    expect(await call('POST', '/subjects/c-value/versions', { schema: V3, id: 7, version: 3 })).toMatchObject({ status: 200, json: { id: 7 } });
    expect((await call('GET', '/subjects/c-value/versions')).json).toEqual([3]);
    expect(await call('POST', '/subjects/%20/versions', { schema: V1 })).toMatchObject({ status: 200 });
    expect(await call('POST', '/subjects//versions', { schema: V1 })).toMatchObject({ status: 422, json: { error_code: 42208 } });
  });

  it('a store that fails is 500 50001', async () => {
    const broken = Fastify();
    const store = new MemoryStore();
    store.versions = async () => { throw new Error('connection lost'); };
    const logged: string[] = [];
    registryRoutes(broken, { registry: new SchemaRegistry(store), access: () => OPEN_ACCESS, onServerError: (e, req) => logged.push(`${req.url}: ${(e as Error).message}`) });
    const res = await broken.inject({ method: 'GET', url: '/subjects/s/versions' });
    expect([res.statusCode, JSON.parse(res.body)]).toEqual([500, { error_code: 50001, message: 'Error in the backend data store: connection lost' }]);
    expect(logged).toEqual(['/subjects/s/versions: connection lost']);
    await broken.close();
  });
});

describe('subjects as Kafka ACL resources', () => {
  it('a subject is its topic under TopicNameStrategy, else itself', () => {
    expect(topicOfSubject('orders-value')).toBe('orders');
    expect(topicOfSubject('orders-key')).toBe('orders');
    expect(topicOfSubject('com.acme.User')).toBe('com.acme.User');
    expect(topicOfSubject('-value')).toBe('-value');
  });

  it('asks the authorizer for DESCRIBE / WRITE / ALTER_CONFIGS on the topic, DESCRIBE_CONFIGS / ALTER_CONFIGS on the cluster', () => {
    const asked: Array<[string, number, number, string]> = [];
    const acls = { allowed: (s: { principal: string }, op: number, type: number, name: string) => { asked.push([s.principal, op, type, name]); return true; } };
    const a = aclAccess(acls, 'User:alice', '10.0.0.1');
    a.subject('read', 'orders-value');
    a.subject('write', 'orders-key');
    a.subject('alter', 'x');
    a.global('read');
    a.global('alter');
    expect(asked).toEqual([
      ['User:alice', AclOperation.DESCRIBE, ResourceType.TOPIC, 'orders'],
      ['User:alice', AclOperation.WRITE, ResourceType.TOPIC, 'orders'],
      ['User:alice', AclOperation.ALTER_CONFIGS, ResourceType.TOPIC, 'x'],
      ['User:alice', AclOperation.DESCRIBE_CONFIGS, ResourceType.CLUSTER, 'kafka-cluster'],
      ['User:alice', AclOperation.ALTER_CONFIGS, ResourceType.CLUSTER, 'kafka-cluster'],
    ]);
  });
});
