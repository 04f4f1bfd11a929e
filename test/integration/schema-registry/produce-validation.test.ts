// confluent.value.schema.validation on a real broker (redis-server) with its
// Schema Registry: confluent-kafka's AvroSerializer produces to the topic;
// plain text and a wire-format value naming an unregistered id are refused
// with INVALID_RECORD (runnel produce and kcat), and nothing of a refused
// batch is stored; a schema registered afterwards is accepted; a topic
// without the config takes anything.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_DIR, HOST, freePort, runCommand, sleep } from '../../helpers/procs.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { RUNNEL_CLI, startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { targetKindFromEnv } from '../../helpers/target.js';

// Runnel-only (Kafka has no Schema Registry of its own).
const onKafka = targetKindFromEnv() === 'kafka';
const PY = path.join(CACHE_DIR, 'venv', 'bin', 'python');

let redis: RedisServer;
let broker: RunnelBroker;
let url = '';

const runnel = (args: string[], input?: Buffer | string) =>
  runCommand(process.execPath, [RUNNEL_CLI, ...args, '--bootstrap-server', broker.bootstrap], { input, timeoutMs: 60_000 });

/** Confluent's wire format: magic 0, the id big-endian, then the body. */
const wire = (id: number, body: string): Buffer => {
  const b = Buffer.alloc(5);
  b.writeInt32BE(id, 1);
  return Buffer.concat([b, Buffer.from(body)]);
};

const AVRO_PRODUCE = `
import json, sys
from confluent_kafka import Producer
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
url, bootstrap, topic = sys.argv[1:4]
schema = {'type': 'record', 'name': 'Order', 'fields': [{'name': 'id', 'type': 'long'}]}
ser = AvroSerializer(SchemaRegistryClient({'url': url}), json.dumps(schema))
errors = []
p = Producer({'bootstrap.servers': bootstrap, 'linger.ms': 5})
for i in range(3):
    p.produce(topic, value=ser({'id': i}, SerializationContext(topic, MessageField.VALUE)), on_delivery=lambda e, m: e and errors.append(str(e)))
p.flush(30)
print(json.dumps({'errors': errors}))
`;

beforeAll(async () => {
  if (onKafka) return;
  redis = await startRedis();
  url = `http://${HOST}:${await freePort()}`;
  broker = await startRunnel({ redisUrl: redis.url, args: ['--set', `schema.registry.listeners=${url}`] });
}, 120_000);

afterAll(async () => {
  await broker?.stop();
  await redis?.stop();
});

describe.skipIf(onKafka)('confluent.value.schema.validation', () => {
  it('takes what the Avro serializer writes and refuses plain text and unregistered ids with INVALID_RECORD', async () => {
    const create = await runnel(['topic', 'create', 'orders', '--partitions', '1', '--config', 'confluent.value.schema.validation=true']);
    expect(create.code, create.stderr).toBe(0);
    const described = await runnel(['topic', 'describe', 'orders']);
    expect(described.stdout).toMatch(/^confluent\.value\.schema\.validation +true +DYNAMIC_TOPIC_CONFIG$/m);

    const avro = await runCommand(PY, ['-c', AVRO_PRODUCE, url, broker.bootstrap, 'orders'], { timeoutMs: 90_000 });
    expect(avro.code, avro.stderr).toBe(0);
    expect(JSON.parse(avro.stdout.trim().split('\n').at(-1)!)).toEqual({ errors: [] });

    const text = await runnel(['produce', 'orders'], 'plain text\n');
    expect(text.code).toBe(1);
    expect(text.stderr).toContain('INVALID_RECORD');
    const kcat = await runCommand('kcat', ['-b', broker.bootstrap, '-P', '-t', 'orders'], { input: 'plain text\n', timeoutMs: 30_000 });
    expect(kcat.stderr).toContain('Broker: Broker failed to validate record'); // librdkafka's text for INVALID_RECORD (87)

    // wire format, but no schema 424242; a batch of a good and a bad record is refused whole
    const registered = (await (await fetch(`${url}/subjects/orders-value/versions/latest`)).json()) as { id: number };
    const unknown = await runnel(['produce', 'orders', '--batch-size', '1000000'], Buffer.concat([wire(registered.id, 'ok'), Buffer.from('\n'), wire(424242, 'x'), Buffer.from('\n')]));
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('INVALID_RECORD');

    // a schema registered now is accepted (within the broker's one-second memory of missing ids)
    const reg = await fetch(`${url}/subjects/other-value/versions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ schema: '"string"' }) });
    const { id } = (await reg.json()) as { id: number };
    const missing = await runnel(['produce', 'orders'], Buffer.concat([wire(id + 1000, 'x'), Buffer.from('\n')]));
    expect(missing.code).toBe(1);
    await sleep(1100);
    const good = await runnel(['produce', 'orders'], Buffer.concat([wire(id, 'fine'), Buffer.from('\n')]));
    expect(good.code, good.stderr).toBe(0);

    // stored: the three Avro records and the last one, nothing of the refused batches
    const got = await runCommand(process.execPath, [RUNNEL_CLI, 'consume', 'orders', '--from-beginning', '--max-messages', '10', '--timeout-ms', '3000', '--json', '--bootstrap-server', broker.bootstrap], { timeoutMs: 60_000 });
    const values = got.stdout.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { value: string }).value);
    expect(values).toHaveLength(4);

    // a topic without the config takes anything
    expect((await runnel(['topic', 'create', 'free', '--partitions', '1'])).code).toBe(0);
    expect((await runnel(['produce', 'free'], 'plain text\n')).code).toBe(0);
  }, 120_000);
});
