// The Schema Registry under the broker's authorizer: a registry listener
// without credentials refuses to start (RN3003); subjects are authorized as
// their topics by the Kafka ACLs (docs/schema-registry.md, "Authorization").
// The ACL is created with confluent-kafka's AdminClient as User:ANONYMOUS (a
// super user on the Kafka port); on the registry, the basic-auth user is
// User:producer and the bearer token stands for User:ANONYMOUS (the admin).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { CACHE_DIR, HOST, freePort, runCommand, waitFor } from '../../helpers/procs.js';
import { targetKindFromEnv } from '../../helpers/target.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { brokerExit, startRunnel, type RunnelBroker } from '../../helpers/runnel.js';


// Runnel-only (Kafka has no Schema Registry of its own): skipped with RUNNEL_TEST_TARGET=kafka.
const onKafka = targetKindFromEnv() === 'kafka';
const PY = path.join(CACHE_DIR, 'venv', 'bin', 'python');
const AUTHZ = ['authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer', 'super.users=User:ANONYMOUS', 'allow.everyone.if.no.acl.found=false'];
const SCHEMA = (name: string): string => JSON.stringify({ schema: JSON.stringify({ type: 'record', name, fields: [{ name: 'id', type: 'long' }] }) });
const PRODUCER = { authorization: `Basic ${Buffer.from('producer:pw').toString('base64')}` };
const ADMIN = { authorization: 'Bearer admin-token' };

let redis: RedisServer;
let broker: RunnelBroker;
let url: string;

async function call(method: string, p: string, headers: Record<string, string>, body?: string): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${url}${p}`, { method, headers: { ...headers, ...(body ? { 'content-type': 'application/vnd.schemaregistry.v1+json' } : {}) }, ...(body ? { body } : {}) });
  return { status: res.status, json: await res.json() };
}

beforeAll(async () => {
  redis = await startRedis();
  url = `http://${HOST}:${await freePort()}`;
  broker = await startRunnel({
    redisUrl: redis.url,
    args: [...AUTHZ, `schema.registry.listeners=${url}`, 'schema.registry.auth.basic.user=producer', 'schema.registry.auth.basic.password=pw',
      'schema.registry.auth.bearer.token=admin-token', 'schema.registry.auth.bearer.principal=User:ANONYMOUS'].flatMap((s) => ['--set', s]),
  });
});
afterAll(async () => {
  await broker?.stop();
  await redis?.stop();
});

describe.skipIf(onKafka)('schema registry authorization', () => {
  it('refuses to start a registry without credentials while an authorizer is on', async () => {
    const { exit, log } = await brokerExit(redis.url, [...AUTHZ, `schema.registry.listeners=http://${HOST}:${await freePort()}`]);
    expect(exit.code).not.toBe(0);
    expect(log).toMatch(/RN3003.*schema.registry.listeners has no credentials/);
  });

  it('refuses registry settings that cannot work (RN3001), naming the setting', async () => {
    const { exit, log } = await brokerExit(redis.url, [`schema.registry.listeners=https://${HOST}:${await freePort()}`]);
    expect(exit.code).not.toBe(0);
    expect(log).toMatch(/RN3001.*is https but schema.registry.ssl.keystore.location is empty/);
  });

  it('maps subjects to their topics\' ACLs: WRITE registers, DESCRIBE reads, others are 403', async () => {
    expect((await call('GET', '/subjects', {})).status).toBe(401);
    // no ACL for User:producer yet
    expect(await call('POST', '/subjects/payments-value/versions', PRODUCER, SCHEMA('P'))).toMatchObject({ status: 403, json: { error_code: 40301 } });
    // the admin (a super user) registers another topic's schema
    const orders = await call('POST', '/subjects/orders-value/versions', ADMIN, SCHEMA('O'));
    expect(orders.status).toBe(200);
    const acl = [
      'from confluent_kafka.admin import AdminClient, AclBinding, ResourceType, ResourcePatternType, AclOperation, AclPermissionType',
      `a = AdminClient({'bootstrap.servers': '${broker.bootstrap}'})`,
      "b = AclBinding(ResourceType.TOPIC, 'pay', ResourcePatternType.PREFIXED, 'User:producer', '*', AclOperation.WRITE, AclPermissionType.ALLOW)",
      '[f.result() for f in a.create_acls([b]).values()]',
    ].join('\n');
    const r = await runCommand(PY, ['-c', acl], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    // the broker reloads ACLs within about 250 ms
    let registered: { status: number; json: unknown } = { status: 0, json: null };
    await waitFor('the ACL in force', async () => (registered = await call('POST', '/subjects/payments-value/versions', PRODUCER, SCHEMA('P'))).status === 200, { timeoutMs: 10_000, intervalMs: 100 });
    const id = (registered.json as { id: number }).id;
    // WRITE implies DESCRIBE: the producer reads its subject and its schema's id
    expect((await call('GET', '/subjects/payments-value/versions', PRODUCER)).json).toEqual([1]);
    expect((await call('GET', `/schemas/ids/${id}`, PRODUCER)).status).toBe(200);
    // another topic's subject: hidden from lists, 403 on read and write
    expect((await call('GET', '/subjects', PRODUCER)).json).toEqual(['payments-value']);
    expect((await call('GET', '/subjects', ADMIN)).json).toEqual(['orders-value', 'payments-value']);
    expect(await call('GET', '/subjects/orders-value/versions/1', PRODUCER)).toMatchObject({ status: 403, json: { error_code: 40301 } });
    expect((await call('GET', `/schemas/ids/${(orders.json as { id: number }).id}`, PRODUCER)).status).toBe(403);
    // subject config needs ALTER_CONFIGS on the topic, the global settings DESCRIBE_CONFIGS / ALTER_CONFIGS on the cluster
    expect((await call('PUT', '/config/payments-value', PRODUCER, JSON.stringify({ compatibility: 'NONE' }))).status).toBe(403);
    expect((await call('GET', '/config', PRODUCER)).status).toBe(403);
    expect(await call('GET', '/config', ADMIN)).toEqual({ status: 200, json: { compatibilityLevel: 'BACKWARD' } });
  });
});
