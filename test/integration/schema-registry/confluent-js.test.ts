// The built-in Schema Registry with Confluent's JavaScript client,
// @confluentinc/schemaregistry from npm (installed by test/setup/install.sh into
// .cache/npm-clients, outside the project's dependencies): its
// SchemaRegistryClient registers Avro and JSON Schema versions, its serializers
// write records KafkaJS produces to a broker on redis-server, and its
// deserializers read them back from a fresh client.
import { createRequire } from 'node:module';
import path from 'node:path';
import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_DIR, HOST, freePort, waitFor } from '../../helpers/procs.js';
import { targetKindFromEnv } from '../../helpers/target.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';

// Runnel-only (Kafka has no Schema Registry of its own): skipped with RUNNEL_TEST_TARGET=kafka.
const onKafka = targetKindFromEnv() === 'kafka';
const { Kafka, logLevel } = kafkajs;

/** The parts of @confluentinc/schemaregistry this test drives (loaded from .cache/npm-clients at run time). */
interface SrClient {
  register(subject: string, schema: { schemaType: string; schema: string }): Promise<number>;
  getAllVersions(subject: string): Promise<number[]>;
  testSubjectCompatibility?(subject: string, schema: { schemaType: string; schema: string }): Promise<boolean>;
}
interface Serde {
  serialize(topic: string, msg: unknown): Promise<Buffer>;
  deserialize(topic: string, payload: Buffer): Promise<unknown>;
}
interface SrModule {
  SchemaRegistryClient: new (conf: { baseURLs: string[] }) => SrClient;
  SerdeType: { VALUE: string };
  AvroSerializer: new (c: SrClient, t: string, conf: Record<string, unknown>) => Serde;
  AvroDeserializer: new (c: SrClient, t: string, conf: Record<string, unknown>) => Serde;
  JsonSerializer: new (c: SrClient, t: string, conf: Record<string, unknown>) => Serde;
  JsonDeserializer: new (c: SrClient, t: string, conf: Record<string, unknown>) => Serde;
}

let sr: SrModule;
let redis: RedisServer;
let broker: RunnelBroker;
let url: string;

beforeAll(async () => {
  if (onKafka) return;
  const req = createRequire(path.join(CACHE_DIR, 'npm-clients', 'package.json'));
  sr = req('@confluentinc/schemaregistry') as SrModule;
  redis = await startRedis();
  url = `http://${HOST}:${await freePort()}`;
  broker = await startRunnel({ redisUrl: redis.url, args: ['--set', `schema.registry.listeners=${url}`] });
  // the registry listener opens after the Kafka port startRunnel waits for
  await waitFor('the registry', async () => (await fetch(`${url}/subjects`).catch(() => null))?.status === 200, { timeoutMs: 30_000, intervalMs: 100 });
});
afterAll(async () => {
  await broker?.stop();
  await redis?.stop();
});

/** Produces the values with KafkaJS and reads them back in order from partition 0. */
async function roundTrip(topic: string, values: Buffer[]): Promise<Buffer[]> {
  const kafka = new Kafka({ clientId: 'sr-js', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
  await admin.disconnect();
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, messages: values.map((value) => ({ value })) });
  await producer.disconnect();
  const consumer = kafka.consumer({ groupId: `${topic}-reader` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const got: Buffer[] = [];
  await consumer.run({ eachMessage: async ({ message }) => { got.push(message.value!); } });
  await waitFor(`${values.length} records of ${topic}`, async () => got.length >= values.length, { timeoutMs: 30_000, intervalMs: 50 });
  await consumer.disconnect();
  return got;
}

const schemaId = (b: Buffer): [number, number] => [b[0]!, b.readUInt32BE(1)];

/** The registry's refusal as the client raises it: Confluent's body carries error_code. */
async function refusal(p: Promise<unknown>): Promise<{ status?: number; errorCode?: number; message: string }> {
  try {
    await p;
  } catch (e) {
    const err = e as { status?: number; errorCode?: number; message: string };
    return { status: err.status, errorCode: err.errorCode, message: err.message };
  }
  throw new Error('expected the registry to refuse');
}

describe.skipIf(onKafka)('schema registry with @confluentinc/schemaregistry (npm)', () => {
  it('Avro: registers v1 and an evolved v2, refuses an incompatible v3 with 409, and a fresh deserializer reads every record', async () => {
    const client = new sr.SchemaRegistryClient({ baseURLs: [url] });
    const topic = 'js-orders';
    const subject = `${topic}-value`;
    const fields = [{ name: 'id', type: 'long' }, { name: 'amount', type: 'double' }];
    const v1 = { type: 'record', name: 'Order', namespace: 'js', fields };
    const v2 = { ...v1, fields: [...fields, { name: 'note', type: ['null', 'string'], default: null }] };
    const v3 = { ...v1, fields: [{ name: 'id', type: 'string' }, { name: 'amount', type: 'double' }] };
    const id1 = await client.register(subject, { schemaType: 'AVRO', schema: JSON.stringify(v1) });
    const ser1 = new sr.AvroSerializer(client, sr.SerdeType.VALUE, { useLatestVersion: true });
    const values = [await ser1.serialize(topic, { id: 1, amount: 1.5 }), await ser1.serialize(topic, { id: 2, amount: 2.25 })];
    const id2 = await client.register(subject, { schemaType: 'AVRO', schema: JSON.stringify(v2) });
    expect(id2).not.toBe(id1);
    // the client caches a subject's latest version: a new one asks the registry again
    const ser2 = new sr.AvroSerializer(new sr.SchemaRegistryClient({ baseURLs: [url] }), sr.SerdeType.VALUE, { useLatestVersion: true });
    values.push(await ser2.serialize(topic, { id: 3, amount: 3, note: 'hi' }), await ser2.serialize(topic, { id: 4, amount: 4.5, note: null }));
    const v3refused = await refusal(client.register(subject, { schemaType: 'AVRO', schema: JSON.stringify(v3) }));
    expect(v3refused).toMatchObject({ status: 409, errorCode: 409 });
    expect(v3refused.message).toMatch(/incompatible with an earlier schema/);
    expect(await client.getAllVersions(subject)).toEqual([1, 2]);

    const got = await roundTrip(topic, values);
    expect(got.map(schemaId)).toEqual([[0, id1], [0, id1], [0, id2], [0, id2]]);
    // a client that has seen none of it fetches each schema by its id
    const fresh = new sr.SchemaRegistryClient({ baseURLs: [url] });
    const de = new sr.AvroDeserializer(fresh, sr.SerdeType.VALUE, {});
    const read = await Promise.all(got.map((b) => de.deserialize(topic, b)));
    expect(read).toEqual([{ id: 1, amount: 1.5 }, { id: 2, amount: 2.25 }, { id: 3, amount: 3, note: 'hi' }, { id: 4, amount: 4.5, note: null }]);
  });

  it('JSON Schema: v1 and v2 register, v3 is refused with 409, a malformed schema with 422, the JsonDeserializer reads every record', async () => {
    const client = new sr.SchemaRegistryClient({ baseURLs: [url] });
    const topic = 'js-events';
    const subject = `${topic}-value`;
    const props = { id: { type: 'integer' }, amount: { type: 'number' } };
    const v1 = { type: 'object', properties: props, required: ['id'], additionalProperties: false };
    const v2 = { ...v1, properties: { ...props, note: { type: 'string' } } };
    const j1 = await client.register(subject, { schemaType: 'JSON', schema: JSON.stringify(v1) });
    const ser1 = new sr.JsonSerializer(client, sr.SerdeType.VALUE, { useLatestVersion: true, validate: true });
    const values = [await ser1.serialize(topic, { id: 1, amount: 1.5 })];
    const j2 = await client.register(subject, { schemaType: 'JSON', schema: JSON.stringify(v2) });
    const ser2 = new sr.JsonSerializer(new sr.SchemaRegistryClient({ baseURLs: [url] }), sr.SerdeType.VALUE, { useLatestVersion: true, validate: true });
    values.push(await ser2.serialize(topic, { id: 2, amount: 2, note: 'hi' }));
    // v3 narrows `id` to a string: not backward compatible
    const v3 = { ...v2, properties: { ...v2.properties, id: { type: 'string' } } };
    expect(await refusal(client.register(subject, { schemaType: 'JSON', schema: JSON.stringify(v3) }))).toMatchObject({ status: 409, errorCode: 409 });
    expect(await refusal(client.register(subject, { schemaType: 'JSON', schema: '{"type": ' }))).toMatchObject({ status: 422, errorCode: 42201 });

    const got = await roundTrip(topic, values);
    expect(got.map(schemaId)).toEqual([[0, j1], [0, j2]]);
    const de = new sr.JsonDeserializer(new sr.SchemaRegistryClient({ baseURLs: [url] }), sr.SerdeType.VALUE, { validate: true });
    expect(await Promise.all(got.map((b) => de.deserialize(topic, b)))).toEqual([{ id: 1, amount: 1.5 }, { id: 2, amount: 2, note: 'hi' }]);
  });
});
