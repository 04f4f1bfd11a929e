// Passwords never leave the broker: a setting that may hold one (Runnel's
// redis.url; Kafka's *.password) is described with isSensitive=true and no
// value, over the wire and through kafka-configs, and never appears in the
// broker's log. Against Kafka (RUNNEL_TEST_TARGET=kafka) the same checks run
// on ssl.key.password, which proves the parsing of both answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DescribeConfigs } from '../../broker/src/protocol/messages/describe-configs.js';
import { ErrorCode } from '../../common/errors.js';
import { assertOk, kafkaConfigs } from '../helpers/java.js';
import { startKafka, type KafkaBroker } from '../helpers/kafka.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../helpers/runnel.js';
import { targetKindFromEnv } from '../helpers/target.js';
import { WireClient } from '../helpers/wire.js';

const PASSWORD = 'S3cr3t-Pw-7781';
const ACL_PASSWORD = 'Acl-S3cr3t-4410';
const BROKER_RESOURCE = 4;
const onKafka = targetKindFromEnv() === 'kafka';
const sensitiveKey = onKafka ? 'ssl.key.password' : 'redis.url';

interface Endpoint { bootstrap: string; port: number; log(): string }

async function describeBroker(port: number, keys: string[] | null): Promise<Array<Record<string, any>>> {
  const c = await WireClient.connect(port);
  try {
    const r = await c.request(DescribeConfigs, 4, { resources: [{ resourceType: BROKER_RESOURCE, resourceName: '1', configurationKeys: keys }], includeSynonyms: true, includeDocumentation: false });
    expect(r.results[0].errorCode).toBe(ErrorCode.NONE);
    return r.results[0].configs;
  } finally {
    c.close();
  }
}

async function expectNoSecret(ep: Endpoint, secret: string): Promise<void> {
  // Wire: the entry is there, sensitive, without a value; no other entry carries the secret.
  const all = await describeBroker(ep.port, null);
  const entry = all.find((c) => c.name === sensitiveKey);
  expect(entry, `${sensitiveKey} listed`).toBeDefined();
  expect(entry!.isSensitive).toBe(true);
  expect(entry!.value).toBeNull();
  expect(JSON.stringify(all)).not.toContain(secret);
  const one = await describeBroker(ep.port, [sensitiveKey]);
  expect(one.map((c) => [c.name, c.value, c.isSensitive])).toEqual([[sensitiveKey, null, true]]);

  // Kafka's own tool.
  const r = assertOk('kafka-configs --describe', await kafkaConfigs(ep.bootstrap, ['--describe', '--entity-type', 'brokers', '--entity-name', '1', '--all']));
  expect(r.stdout).toMatch(new RegExp(`^\\s*${sensitiveKey.replace(/\./g, '\\.')}=null sensitive=true`, 'm'));
  expect(r.stdout).not.toContain(secret);
  // The broker's own output (the harness's first line records the command it ran, flags included).
  const output = ep.log().split('\n').filter((l) => !l.startsWith('# ')).join('\n');
  expect(output.length).toBeGreaterThan(0);
  expect(output).not.toContain(secret);
}

describe.skipIf(onKafka)('DescribeConfigs hides the Redis password (Runnel)', () => {
  let redis: RedisServer;
  const brokers: RunnelBroker[] = [];
  beforeAll(async () => {
    redis = await startRedis();
    // An ACL user for the user:password form, then a password for the default user (the :password form).
    expect(await redis.command(`ACL SETUSER runnel on >${ACL_PASSWORD} ~* &* +@all`)).toMatch(/OK/);
    expect(await redis.command(`CONFIG SET requirepass ${PASSWORD}`)).toMatch(/OK/);
  });
  afterAll(async () => {
    for (const b of brokers) await b.stop();
    await redis?.stop();
  });

  it('redis://:password@ (requirepass)', async () => {
    const b = await startRunnel({ redisUrl: `redis://:${PASSWORD}@127.0.0.1:${redis.port}`, args: ['--set', 'key.prefix=pw'] });
    brokers.push(b);
    await expectNoSecret({ bootstrap: b.bootstrap, port: b.port, log: () => b.proc().tail(1_000_000) }, PASSWORD);
  });

  it('redis://user:password@ (ACL user)', async () => {
    const b = await startRunnel({ redisUrl: `redis://runnel:${ACL_PASSWORD}@127.0.0.1:${redis.port}`, args: ['--set', 'key.prefix=acl'] });
    brokers.push(b);
    await expectNoSecret({ bootstrap: b.bootstrap, port: b.port, log: () => b.proc().tail(1_000_000) }, ACL_PASSWORD);
  });
});

describe.skipIf(!onKafka)('DescribeConfigs hides a password config (Apache Kafka reference)', () => {
  let kafka: KafkaBroker;
  beforeAll(async () => { kafka = await startKafka({ props: { 'ssl.key.password': PASSWORD } }); });
  afterAll(async () => { await kafka?.stop(); });

  it('ssl.key.password', async () => {
    await expectNoSecret({ bootstrap: kafka.bootstrap, port: kafka.port, log: () => kafka.proc.tail(1_000_000) }, PASSWORD);
  });
});
