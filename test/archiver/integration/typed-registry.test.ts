// The archiver's read-only registry reader (archiver/src/schemas/registry.ts) on
// a real redis-server, reading what the broker's registry code stored
// (broker/src/schema-registry, broker/src/redis/redis-schema-store.ts): one
// format, two sides. Schemas are cached per process: one Redis round trip per
// new id, none for a cached one; an unknown id is asked again only after the
// miss window; references resolve through their subjects; a referenced version
// that was hard-deleted makes that schema unusable (decode_error), not the job;
// a hard-deleted subject's ids still read; `latest` follows the subject.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRedis, type RedisClient } from '../../../common/redis/connect.js';
import { RedisSchemaStore } from '../../../broker/src/redis/redis-schema-store.js';
import { SchemaRegistry } from '../../../broker/src/schema-registry/registry.js';
import { RegistryReader, SchemaLookupError } from '../../../archiver/src/schemas/registry.js';
import { Keys } from '../../../archiver/src/keys.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { targetKindFromEnv } from '../../helpers/target.js';

const onKafka = targetKindFromEnv() === 'kafka';
let redis: RedisServer;
let client: RedisClient;

beforeAll(async () => {
  if (onKafka) return;
  redis = await startRedis();
  ({ client } = await openRedis(redis.url));
});
afterAll(async () => {
  client?.disconnect();
  await redis?.stop();
});

const avro = (schema: object, references: { name: string; subject: string; version: number }[] = []) =>
  ({ schemaType: 'AVRO' as const, schema: JSON.stringify(schema), references });

describe.skipIf(onKafka)('registry reader (typed columns)', () => {
  it('reads schemas by id as the broker stored them, once per id; references come resolved, in order', async () => {
    const reg = new SchemaRegistry(new RedisSchemaStore(client, 'rn'));
    const money = { type: 'record', name: 'Money', namespace: 'acme', fields: [{ name: 'cents', type: 'long' }] };
    const { id: moneyId } = await reg.register('money-value', avro(money));
    const order = { type: 'record', name: 'Order', namespace: 'acme', fields: [{ name: 'total', type: 'acme.Money' }] };
    const { id: orderId } = await reg.register('orders-value', avro(order, [{ name: 'acme.Money', subject: 'money-value', version: 1 }]));

    const reader = new RegistryReader(() => client, new Keys('rn'), 200);
    const got = await reader.lookup([orderId, moneyId, 4242]);
    expect(got[moneyId]).toMatchObject({ schemaType: 'AVRO', refs: [] });
    expect(JSON.parse(got[moneyId]!.schema)).toMatchObject({ name: 'Money' });
    expect(got[orderId]!.refs.map((r) => (JSON.parse(r) as { name: string }).name)).toEqual(['Money']);
    expect(got[4242]).toBeNull();
    const calls = reader.redisCalls;
    // cached: no Redis call for known ids, none for the unknown one inside its miss window
    for (let i = 0; i < 100; i++) await reader.lookup([orderId, moneyId, 4242]);
    expect(reader.redisCalls).toBe(calls);
    await new Promise((r) => setTimeout(r, 250));
    await reader.lookup([4242]);
    expect(reader.redisCalls).toBe(calls + 1);
  });

  it('a referenced version hard-deleted: that schema reports the reason; other ids are unaffected', async () => {
    const reg = new SchemaRegistry(new RedisSchemaStore(client, 'del'));
    const inner = { type: 'record', name: 'Inner', fields: [{ name: 'x', type: 'int' }] };
    await reg.register('inner-value', avro(inner));
    const { id } = await reg.register('outer-value', avro({ type: 'record', name: 'Outer', fields: [{ name: 'i', type: 'Inner' }] }, [{ name: 'Inner', subject: 'inner-value', version: 1 }]));
    const { id: plain } = await reg.register('plain-value', avro({ type: 'record', name: 'Plain', fields: [{ name: 'y', type: 'int' }] }));
    // the registry refuses to delete a referenced version: remove the subject's version list as a hard delete would
    await client.hdel('del:r:{schemas}:subjects', 'inner-value');
    const got = await new RegistryReader(() => client, new Keys('del')).lookup([id, plain]);
    expect(got[id]!.error).toBe(`schema id ${id}: reference Inner: subject inner-value version 1 not found`);
    expect(got[plain]).toMatchObject({ schemaType: 'AVRO', refs: [] });
  });

  it('a subject hard-deleted while records still use its schema: the id still reads (the registry never removes ids)', async () => {
    const reg = new SchemaRegistry(new RedisSchemaStore(client, 'hard'));
    const { id } = await reg.register('gone-value', avro({ type: 'record', name: 'Gone', fields: [{ name: 'x', type: 'int' }] }));
    await reg.deleteSubject('gone-value', false);
    await reg.deleteSubject('gone-value', true);
    expect(await reg.subjects({ deleted: true })).toEqual([]);
    const got = await new RegistryReader(() => client, new Keys('hard')).lookup([id]);
    expect(JSON.parse(got[id]!.schema)).toMatchObject({ name: 'Gone' });
  });

  it('latest mode: the subject\'s latest version that is not soft-deleted, read again after latestTtlMs', async () => {
    const reg = new SchemaRegistry(new RedisSchemaStore(client, 'lat'));
    const reader = new RegistryReader(() => client, new Keys('lat'), 5000, 1000);
    expect(await reader.latestId('t-value')).toBeNull();
    const f = (n: string) => ({ name: n, type: ['null', 'int'], default: null });
    const { id: v1 } = await reg.register('t-value', avro({ type: 'record', name: 'R', fields: [f('a')] }));
    const { id: v2 } = await reg.register('t-value', avro({ type: 'record', name: 'R', fields: [f('a'), f('b')] }));
    expect(await reader.latestId('t-value')).toBeNull(); // cached miss
    await new Promise((r) => setTimeout(r, 1100));
    expect(await reader.latestId('t-value')).toBe(v2);
    await reg.deleteVersion('t-value', 2, false); // soft delete: v1 is the latest again
    await new Promise((r) => setTimeout(r, 1100));
    expect(await reader.latestId('t-value')).toBe(v1);
  });

  it('Redis away: a SchemaLookupError (the flush is retried), never "unknown id"', async () => {
    const { client: c } = await openRedis(redis.url);
    c.disconnect();
    const reader = new RegistryReader(() => c, new Keys('rn'));
    await expect(reader.lookup([1])).rejects.toBeInstanceOf(SchemaLookupError);
  });
});
