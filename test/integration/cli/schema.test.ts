// `runnel schema` against the broker's built-in Schema Registry (a broker on
// redis-server with schema.registry.listeners and basic credentials): register
// v1 and a compatible v2, refuse an incompatible v3 with 409's message and
// exit 1, check, list, get, config, soft then hard delete, and usage errors.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOST, freePort, runCommand, waitFor, type RunResult } from '../../helpers/procs.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { RUNNEL_CLI, startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { targetKindFromEnv } from '../../helpers/target.js';

// Runnel-only: Kafka has no Schema Registry of its own (RUNNEL_TEST_TARGET=kafka skips it).
const onKafka = targetKindFromEnv() === 'kafka';

let redis: RedisServer;
let broker: RunnelBroker;
let url = '';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-schema-'));

const V1 = { type: 'record', name: 'Order', fields: [{ name: 'id', type: 'long' }, { name: 'price', type: 'double' }] };
const V2 = { ...V1, fields: [...V1.fields, { name: 'note', type: ['null', 'string'], default: null }] };
const V3 = { ...V1, fields: [{ name: 'id', type: 'string' }, { name: 'price', type: 'double' }] };

function file(name: string, schema: unknown): string {
  const f = path.join(dir, name);
  fs.writeFileSync(f, JSON.stringify(schema));
  return f;
}

function schema(args: string[], opts: { input?: string; auth?: string | null } = {}): Promise<RunResult> {
  const auth = opts.auth === undefined ? ['--basic-auth', 'ops:ops-secret'] : opts.auth === null ? [] : ['--basic-auth', opts.auth];
  return runCommand(process.execPath, [RUNNEL_CLI, 'schema', ...args, '--registry-url', url, ...auth], { input: opts.input, timeoutMs: 30_000 });
}

beforeAll(async () => {
  if (onKafka) return;
  redis = await startRedis();
  url = `http://${HOST}:${await freePort()}`;
  broker = await startRunnel({
    redisUrl: redis.url,
    args: ['--set', `schema.registry.listeners=${url}`, '--set', 'schema.registry.auth.basic.user=ops', '--set', 'schema.registry.auth.basic.password=ops-secret'],
  });
  // the registry listener opens after the Kafka port that startRunnel waits for
  await waitFor('the registry', async () => (await fetch(`${url}/subjects`).catch(() => null))?.status === 401, { timeoutMs: 30_000, intervalMs: 100 });
}, 120_000);

afterAll(async () => {
  await broker?.stop();
  await redis?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(onKafka)('runnel schema', () => {
  it('registers, evolves, refuses an incompatible schema, lists, reads, configures and deletes', async () => {
    const r1 = await schema(['register', 'orders-value', '--file', file('v1.avsc', V1)]);
    expect(r1.code, r1.stderr).toBe(0);
    const id1 = Number(/^Registered schema id (\d+) as version 1 of subject orders-value\.\n$/.exec(r1.stdout)?.[1]);
    expect(id1).toBeGreaterThan(0);
    // the same schema again: the same id and version, from stdin this time
    const again = await schema(['register', 'orders-value', '--json'], { input: JSON.stringify(V1) });
    expect(JSON.parse(again.stdout)).toEqual({ subject: 'orders-value', version: 1, id: id1 });

    const ok2 = await schema(['check', 'orders-value', '--file', file('v2.avsc', V2)]);
    expect(ok2.code, ok2.stderr).toBe(0);
    expect(ok2.stdout).toBe('Compatible with subject orders-value.\n');
    const r2 = await schema(['register', 'orders-value', '--file', file('v2.avsc', V2)]);
    expect(r2.code, r2.stderr).toBe(0);
    expect(r2.stdout).toMatch(/^Registered schema id \d+ as version 2 of subject orders-value\.\n$/);

    // an incompatible v3 (BACKWARD, the default): check explains and exits 1, register is Confluent's 409
    const bad = await schema(['check', 'orders-value', '--file', file('v3.avsc', V3)]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/^Incompatible with subject orders-value:\n {2}\S/);
    const refused = await schema(['register', 'orders-value', '--file', file('v3.avsc', V3)]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^runnel schema: .*\(error_code 409, HTTP 409\)\n$/);

    // NONE lets it through
    const none = await schema(['config', 'orders-value', '--compatibility', 'none']);
    expect(none.stdout).toBe('Compatibility of subject orders-value set to NONE.\n');
    expect((await schema(['config', 'orders-value'])).stdout).toBe('NONE\n');
    expect((await schema(['config'])).stdout).toBe('BACKWARD\n');
    expect((await schema(['register', 'orders-value', '--file', file('v3.avsc', V3)])).stdout).toMatch(/as version 3 of/);

    const list = await schema(['list']);
    expect(list.stdout).toMatch(/^subject +version +id +type\norders-value +3 +\d+ +AVRO\n$/);
    const got = await schema(['get', 'orders-value', '--version', '2']);
    expect(got.stdout.split('\n')[0]).toMatch(/^subject orders-value {2}version 2 {2}id \d+ {2}type AVRO$/);
    expect(JSON.parse(got.stdout.split('\n').slice(1).join('\n'))).toEqual(V2);
    const json = JSON.parse((await schema(['get', 'orders-value', '--json'])).stdout) as { version: number; schemaType: string };
    expect([json.version, json.schemaType]).toEqual([3, 'AVRO']);

    // a JSON Schema subject
    const js = await schema(['register', 'events-value', '--type', 'JSON'], { input: JSON.stringify({ type: 'object', properties: { n: { type: 'integer' } } }) });
    expect(js.stdout).toMatch(/as version 1 of subject events-value/);

    // delete: soft, then hard; a permanent delete first is Confluent's refusal
    expect((await schema(['delete', 'events-value', '--permanent'])).stderr).toMatch(/error_code 40405/);
    expect((await schema(['delete', 'orders-value', '--version', '1'])).stdout).toBe('Deleted version 1 of subject orders-value.\n');
    expect((await schema(['delete', 'events-value'])).stdout).toBe('Deleted version 1 of subject events-value.\n');
    expect((await schema(['list'])).stdout).not.toContain('events-value');
    expect((await schema(['list', '--deleted'])).stdout).toContain('events-value');
    expect((await schema(['delete', 'events-value', '--permanent'])).stdout).toBe('Deleted permanently version 1 of subject events-value.\n');
    const gone = await schema(['get', 'events-value']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/error_code 40401, HTTP 404/);
  });

  it('exits 1 without credentials or with nothing listening, and 2 on bad arguments', async () => {
    const anon = await schema(['list'], { auth: null });
    expect(anon.code).toBe(1);
    expect(anon.stderr).toMatch(/HTTP 401/);
    const dead = await runCommand(process.execPath, [RUNNEL_CLI, 'schema', 'list', '--registry-url', `http://${HOST}:${await freePort()}`], { timeoutMs: 30_000 });
    expect(dead.code).toBe(1);
    expect(dead.stderr).toMatch(/connection refused \(is schema\.registry\.listeners set\?\)/);
    const usage = await schema(['register', 'x', '--type', 'XML']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--type XML: expected AVRO, JSON or PROTOBUF');
    expect(usage.stderr).toContain('usage: runnel schema');
  });
});
