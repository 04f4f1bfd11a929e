// The Schema Registry's Redis store (lua/schema-register.lua,
// lua/schema-versions.lua) on a real server, and on a Redis Cluster in the
// cluster phase (every key under the hash tag {schemas}): concurrent
// registrations from two "brokers" (two connections, two cores) get one id
// per schema; a registration against a stale version list writes nothing;
// IMPORT ids; compare-and-set deletes; settings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRedis, type RedisClient } from '../../../common/redis/connect.js';
import { RedisSchemaStore } from '../../../broker/src/redis/redis-schema-store.js';
import { SchemaRegistry, digestOf } from '../../../broker/src/schema-registry/registry.js';
import { targetKindFromEnv } from '../../helpers/target.js';
import { clusterFromEnv, startRedis, type RedisServer } from '../../helpers/redis.js';

let redis: RedisServer;

// Runnel-only (Kafka has no Schema Registry of its own): skipped with RUNNEL_TEST_TARGET=kafka.
const onKafka = targetKindFromEnv() === 'kafka';
const clients: RedisClient[] = [];
const schema = (name: string): string => JSON.stringify({ type: 'record', name, fields: [{ name: 'f', type: 'string' }] });
const avro = (s: string, more: object = {}) => ({ schemaType: 'AVRO' as const, schema: s, references: [], ...more });

async function store(prefix: string): Promise<RedisSchemaStore> {
  const { client, cluster } = await openRedis(redis.url);
  clients.push(client);
  expect(cluster).toBe(clusterFromEnv()); // the cluster phase really runs this on a Redis Cluster
  return new RedisSchemaStore(client, prefix);
}

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const c of clients) c.disconnect();
  await redis?.stop();
});

describe.skipIf(onKafka)('schema registry store in Redis', () => {
  it('two cores on two connections registering the same schemas at once: one id per schema, one version per subject', async () => {
    const a = new SchemaRegistry(await store('sr1'));
    const b = new SchemaRegistry(await store('sr1'));
    // the schemas are distinct records (each would be incompatible with the others under BACKWARD)
    await a.setCompatibility(null, { compatibility: 'NONE' });
    const names = Array.from({ length: 40 }, (_, i) => `R${i}`);
    const ids = await Promise.all(names.flatMap((n, i) => [a.register(`s${i % 4}`, avro(schema(n))), b.register(`t${i % 4}`, avro(schema(n))), b.register(`s${i % 4}`, avro(schema(n)))]));
    // the same schema got one id under every subject and from both cores
    for (let i = 0; i < names.length; i++) expect(new Set(ids.slice(3 * i, 3 * i + 3).map((x) => x.id)).size).toBe(1);
    expect(new Set(ids.map((x) => x.id)).size).toBe(names.length);
    // ids are 1..40: none burned by the races
    expect(Math.max(...ids.map((x) => x.id))).toBe(names.length);
    // each subject holds each of its 10 schemas once, whichever core got there first
    for (const subject of ['s0', 's1', 's2', 's3', 't0', 't1', 't2', 't3']) expect(await b.versions(subject)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('a registration against a stale version list writes nothing; IMPORT ids and versions', async () => {
    const st = await store('sr2');
    const rec = { schemaType: 'AVRO' as const, schema: schema('X'), references: [] };
    expect(await st.register({ subject: 's', digest: digestOf(rec), record: rec, expectedLatest: 0 })).toEqual({ ok: true, id: 1, version: 1, created: true });
    const rec2 = { ...rec, schema: schema('Y') };
    expect(await st.register({ subject: 's', digest: digestOf(rec2), record: rec2, expectedLatest: 0 })).toEqual({ ok: false, reason: 'changed' });
    expect(await st.idOf(digestOf(rec2))).toBeNull(); // no id was taken
    expect(await st.register({ subject: 's', digest: digestOf(rec2), record: rec2, expectedLatest: 1 })).toEqual({ ok: true, id: 2, version: 2, created: true });
    // again: the live version's id, nothing created
    expect(await st.register({ subject: 's', digest: digestOf(rec2), record: rec2, expectedLatest: 0 })).toEqual({ ok: true, id: 2, version: 2, created: false });
    // IMPORT: given id and version; the id counter moves above it
    const rec3 = { ...rec, schema: schema('Z') };
    expect(await st.register({ subject: 'imp', digest: digestOf(rec3), record: rec3, expectedLatest: 0, id: 50, version: 7 })).toEqual({ ok: true, id: 50, version: 7, created: true });
    expect(await st.register({ subject: 'imp', digest: digestOf(rec), record: rec, expectedLatest: 0, id: 50, version: 8 })).toEqual({ ok: false, reason: 'id-taken' });
    expect(await st.register({ subject: 'imp', digest: digestOf(rec), record: rec, expectedLatest: 0, id: 60, version: 7 })).toEqual({ ok: false, reason: 'version-taken' });
    const rec4 = { ...rec, schema: schema('W') };
    expect(await st.register({ subject: 'n', digest: digestOf(rec4), record: rec4, expectedLatest: 0 })).toMatchObject({ ok: true, id: 51 });
    expect(await st.schema(50)).toEqual(rec3);
    expect([...(await st.schemas()).keys()].sort((x, y) => x - y)).toEqual([1, 2, 50, 51]);
  });

  it('deletes are compare-and-set; settings set and unset', async () => {
    const st = await store('sr3');
    const r = new SchemaRegistry(st);
    await r.register('s', avro(schema('A')));
    const before = await st.versions('s');
    expect(await st.replaceVersions('s', [], [])).toBe(false); // stale: s has a version
    expect(await st.replaceVersions('s', before, before.map((v) => ({ ...v, deleted: true })))).toBe(true);
    expect(await st.versions('s')).toEqual([{ version: 1, id: 1, deleted: true }]);
    expect(await r.subjects()).toEqual([]);
    expect(await r.deleteSubject('s', true)).toEqual([1]);
    expect((await st.subjects()).size).toBe(0);
    expect(await st.compatibility(null)).toBeNull();
    await st.setCompatibility(null, 'FULL');
    await st.setCompatibility('s', 'NONE');
    await st.setMode(null, 'READONLY');
    await st.setMode('s', 'IMPORT');
    expect([await st.compatibility(null), await st.compatibility('s'), await st.mode(null), await st.mode('s')]).toEqual(['FULL', 'NONE', 'READONLY', 'IMPORT']);
    await st.setCompatibility('s', null);
    await st.setMode(null, null);
    expect([await st.compatibility('s'), await st.mode(null)]).toEqual([null, null]);
  });
});
