// The built-in Schema Registry with real clients: confluent-kafka (Python,
// .cache/venv) SchemaRegistryClient, AvroSerializer and AvroDeserializer
// against a broker on redis-server. Schemas live in Redis: ids survive a
// broker restart, and two brokers on one Redis registering the same schema
// at the same moment answer one id.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_DIR, HOST, REPO_ROOT, freePort, runCommand, waitFor } from '../../helpers/procs.js';
import { targetKindFromEnv } from '../../helpers/target.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';


// Runnel-only (Kafka has no Schema Registry of its own): skipped with RUNNEL_TEST_TARGET=kafka.
const onKafka = targetKindFromEnv() === 'kafka';
const PY = path.join(CACHE_DIR, 'venv', 'bin', 'python');
const SCRIPT = path.join(REPO_ROOT, 'test/integration/schema-registry/avro_serde.py');
const TOPIC = 'payments';

interface Summary {
  versions?: number[];
  ids?: number[];
  latest?: number;
  v3_compatible?: boolean;
  v3?: { status: number; error_code: number; message: string } | string;
  malformed?: { status: number; error_code: number } | string;
  records: Array<{ magic: number; schema_id: number; value: Record<string, unknown> }>;
}

let redis: RedisServer;
let a: RunnelBroker;
let b: RunnelBroker | null = null;
let urlA: string;

/** The registry listener opens after the Kafka port that startRunnel waits for: wait until it answers. */
async function registryUp(url: string): Promise<void> {
  await waitFor(`the registry at ${url}`, async () => (await fetch(`${url}/subjects`).catch(() => null))?.status === 200, { timeoutMs: 30_000, intervalMs: 100 });
}

async function broker(nodeId: number): Promise<{ broker: RunnelBroker; url: string }> {
  const port = await freePort();
  const url = `http://${HOST}:${port}`;
  const broker = await startRunnel({ redisUrl: redis.url, args: ['--set', `node.id=${nodeId}`, '--set', `schema.registry.listeners=${url}`] });
  await registryUp(url);
  return { broker, url };
}

async function serde(url: string, bootstrap: string, phase: 'produce' | 'consume'): Promise<Summary> {
  const r = await runCommand(PY, [SCRIPT, url, bootstrap, TOPIC, phase, '4'], { timeoutMs: 90_000, logName: `sr-avro-${phase}` });
  expect(r.code, r.stderr.slice(-3000)).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Summary;
}

async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url);
  expect(res.status, `${url}: ${res.status}`).toBe(200);
  return res.json();
}

beforeAll(async () => {
  redis = await startRedis();
  ({ broker: a, url: urlA } = await broker(1));
});
afterAll(async () => {
  await b?.stop();
  await a?.stop();
  await redis?.stop();
});

describe.skipIf(onKafka)('schema registry with confluent-kafka (Python)', () => {
  let produced: Summary;

  it('registers v1 and an evolved v2, refuses an incompatible v3 with 409, and the deserializer reads every record', async () => {
    const t0 = Date.now();
    produced = await serde(urlA, a.bootstrap, 'produce');
    expect(produced.versions).toEqual([1, 2]);
    expect(produced.latest).toBe(2);
    const [id1, id2] = produced.ids!;
    expect(id1).not.toBe(id2);
    expect(produced.v3_compatible).toBe(false);
    expect(produced.v3).toMatchObject({ status: 409, error_code: 409, message: expect.stringMatching(/incompatible with an earlier schema for subject "payments-value"/) });
    expect(produced.malformed).toEqual({ status: 422, error_code: 42201 });
    // Confluent's wire format: magic byte 0, then the id of the schema each record was written with
    expect(produced.records.map((r) => [r.magic, r.schema_id])).toEqual([[0, id1], [0, id1], [0, id2], [0, id2]]);
    expect(produced.records.map((r) => r.value)).toEqual([
      { id: 1, amount: 1.5 }, { id: 2, amount: 2.25 }, { id: 3, amount: 3.0, note: 'hi' }, { id: 4, amount: 4.5, note: null },
    ]);
    console.log(`[schema-registry/python] ids ${id1},${id2}; v3 refused; 4 records round-tripped; ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  });

  it('JSON Schema: the JSONSerializer registers v1 and v2, an incompatible v3 is refused, the JSONDeserializer reads every record', async () => {
    const r = await runCommand(PY, [path.join(REPO_ROOT, 'test/integration/schema-registry/json_serde.py'), urlA, a.bootstrap, 'payments-json'], { timeoutMs: 90_000, logName: 'sr-json' });
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { versions: number[]; types: string[]; ids: number[]; v3: unknown; malformed: unknown; records: Array<{ schema_id: number; value: unknown }> };
    expect(out.versions).toEqual([1, 2]);
    expect(out.types).toEqual(['JSON', 'JSON']);
    expect(out.v3).toEqual({ status: 409, error_code: 409 });
    expect(out.malformed).toEqual({ status: 422, error_code: 42201 });
    const [j1, j2] = out.ids;
    expect(out.records).toEqual([
      { schema_id: j1, value: { id: 1, amount: 1.5 } }, { schema_id: j1, value: { id: 2, amount: 2 } }, { schema_id: j2, value: { id: 3, amount: 3.25, note: 'hi' } },
    ]);
    expect(await getJson(`${urlA}/schemas/ids/${j2}`)).toMatchObject({ schemaType: 'JSON' });
  });

  it('Protobuf: the ProtobufSerializer registers v1 and v2 (base64 descriptors), an incompatible v3 is refused, the ProtobufDeserializer reads every record', async () => {
    const r = await runCommand(PY, [path.join(REPO_ROOT, 'test/integration/schema-registry/protobuf_serde.py'), urlA, a.bootstrap, 'payments-proto'], { timeoutMs: 90_000, logName: 'sr-protobuf' });
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { versions: number[]; types: string[]; ids: number[]; v3: unknown; records: Array<{ schema_id: number; value: unknown }> };
    expect(out.versions).toEqual([1, 2]);
    expect(out.types).toEqual(['PROTOBUF', 'PROTOBUF']);
    expect(out.v3).toMatchObject({ status: 409, error_code: 409, message: expect.stringMatching(/field 2 changed from singular double to singular string/) });
    const [p1, p2] = out.ids;
    // int64 is a string in protobuf's JSON mapping
    expect(out.records).toEqual([
      { schema_id: p1, value: { id: '1', amount: 1.5 } }, { schema_id: p1, value: { id: '2', amount: 2.25 } }, { schema_id: p2, value: { id: '3', amount: 3, note: 'hi' } },
    ]);
  });

  it('keeps subjects and ids across a broker crash (SIGKILL) and restart', async () => {
    const [id1, id2] = produced.ids!;
    const before = await getJson(`${urlA}/schemas/ids/${id1}`);
    await a.kill(); // the real fault: no graceful stop that could flush anything first
    await a.restart();
    await registryUp(urlA);
    expect(await getJson(`${urlA}/schemas/ids/${id1}`)).toEqual(before);
    expect(await getJson(`${urlA}/subjects/${TOPIC}-value/versions`)).toEqual([1, 2]);
    expect(await getJson(`${urlA}/subjects/${TOPIC}-value/versions/2`)).toMatchObject({ id: id2, version: 2 });
    // a fresh client after the restart decodes the records by their ids
    const again = await serde(urlA, a.bootstrap, 'consume');
    expect(again.records.map((r) => r.value)).toEqual(produced.records.map((r) => r.value));
  });

  it('two brokers on one Redis registering the same schemas at once answer one id per schema', async () => {
    const started = await broker(2);
    b = started.broker;
    const urlB = started.url;
    // B serves what A registered
    expect(await getJson(`${urlB}/subjects`)).toEqual([`${TOPIC}-json-value`, `${TOPIC}-proto-value`, `${TOPIC}-value`]);
    const register = async (url: string, subject: string, schema: string): Promise<number> => {
      const res = await fetch(`${url}/subjects/${subject}/versions`, {
        method: 'POST', headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' }, body: JSON.stringify({ schema }),
      });
      const body = (await res.json()) as { id: number };
      expect(res.status, JSON.stringify(body)).toBe(200);
      return body.id;
    };
    const schemas = Array.from({ length: 20 }, (_, i) => JSON.stringify({ type: 'record', name: `Race${i}`, fields: [{ name: 'f', type: 'string' }] }));
    // each schema sent to both brokers at the same moment, under a subject of its own and a shared one
    const pairs = await Promise.all(schemas.map(async (s, i) => Promise.all([register(urlA, `race-${i}`, s), register(urlB, `race-${i}`, s)])));
    for (const [x, y] of pairs) expect(x).toBe(y);
    const ids = pairs.map(([x]) => x);
    expect(new Set(ids).size).toBe(schemas.length);
    for (let i = 0; i < schemas.length; i++) expect(await getJson(`${urlB}/subjects/race-${i}/versions`)).toEqual([1]);
    // and the same schemas under one subject (compatibility NONE: the records differ) from both brokers: one version each
    const config = await fetch(`${urlA}/config/race-shared`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ compatibility: 'NONE' }) });
    expect(await config.json()).toEqual({ compatibility: 'NONE' });
    const shared = await Promise.all(schemas.slice(0, 5).flatMap((s) => [register(urlA, 'race-shared', s), register(urlB, 'race-shared', s)]));
    expect(shared).toEqual(ids.slice(0, 5).flatMap((id) => [id, id]));
    expect(await getJson(`${urlA}/subjects/race-shared/versions`)).toEqual([1, 2, 3, 4, 5]);
  });
});
