// SASL on a SASL_PLAINTEXT listener with real clients and a real Redis:
// kafka-configs (authenticated with a static PLAIN user from the JAAS config)
// creates SCRAM users; kcat (librdkafka), the Java console producer and
// consumer and KafkaJS authenticate with SCRAM or PLAIN; wrong passwords,
// requests before authentication and oversized pre-authentication frames
// are refused; Redis never holds a password. A second listener, SASL_SSL, runs
// the same authentication inside TLS (certificates made with openssl).
import fs from 'node:fs';
import path from 'node:path';
import kafkajs from 'kafkajs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertOk, kafkaConfigs, kafkaTopics, runJava } from '../../helpers/java.js';
import { freePort, HOST, runCommand } from '../../helpers/procs.js';
import { makeTestPki, type TestPki } from '../../helpers/redis-tls.js';
import type { RedisServer } from '../../helpers/redis.js';
import type { RunnelBroker } from '../../helpers/runnel.js';
import { startSaslBroker, type SaslBroker } from './support.js';
import { WireClient } from '../../helpers/wire.js';
import { Metadata } from '../../../broker/src/protocol/messages/metadata.js';
import { ApiVersions } from '../../../broker/src/protocol/messages/api-versions.js';

const { Kafka, logLevel } = kafkajs;

const ADMIN_PW = 'Adm1n-S3cret-9041';
const ALICE_PW = 'Al1ce-S3cret-5177'; // SCRAM-SHA-512
const BOB_PW = 'B0b-S3cret-2693'; // SCRAM-SHA-256
const JAAS = `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="${ADMIN_PW}" user_admin="${ADMIN_PW}";`;

let sasl: SaslBroker;
let redis: RedisServer;
let broker: RunnelBroker;
let dir: string;
let pki: TestPki;
let sslPort: number;

const kcatAuth = (mechanism: string, user: string, password: string): string[] =>
  ['-X', 'security.protocol=SASL_PLAINTEXT', '-X', `sasl.mechanism=${mechanism}`, '-X', `sasl.username=${user}`, '-X', `sasl.password=${password}`];

async function kcatRoundTrip(topic: string, mechanism: string, user: string, password: string, values: string[]): Promise<string[]> {
  const p = await runCommand('kcat', ['-b', broker.bootstrap, '-P', '-t', topic, ...kcatAuth(mechanism, user, password)], { input: `${values.join('\n')}\n`, timeoutMs: 20_000 });
  expect(p.code, p.stderr).toBe(0);
  const c = await runCommand('kcat', ['-b', broker.bootstrap, '-C', '-t', topic, '-o', 'beginning', '-e', '-q', ...kcatAuth(mechanism, user, password)], { timeoutMs: 20_000 });
  expect(c.code, c.stderr).toBe(0);
  return c.stdout.split('\n').filter(Boolean);
}

beforeAll(async () => {
  pki = await makeTestPki();
  const keystore = path.join(pki.dir, 'keystore.pem');
  fs.writeFileSync(keystore, fs.readFileSync(pki.serverKey, 'utf8') + fs.readFileSync(pki.serverCert, 'utf8'));
  sslPort = await freePort();
  sasl = await startSaslBroker(
    [`listener.name.sasl_plaintext.plain.sasl.jaas.config=${JAAS}`, 'sasl.server.max.receive.size=4096', 'ssl.keystore.type=PEM', `ssl.keystore.location=${keystore}`],
    [`SASL_SSL://${HOST}:${sslPort}`],
  );
  ({ redis, broker, dir } = sasl);
  // SCRAM users, created through the broker by Kafka's own tool, as the JAAS admin over PLAIN.
  const admin = sasl.clientProps('admin', 'PLAIN', 'admin', ADMIN_PW);
  const [a, b] = await Promise.all([
    kafkaConfigs(broker.bootstrap, ['--command-config', admin, '--alter', '--add-config', `SCRAM-SHA-512=[password=${ALICE_PW}]`, '--entity-type', 'users', '--entity-name', 'alice']),
    kafkaConfigs(broker.bootstrap, ['--command-config', admin, '--alter', '--add-config', `SCRAM-SHA-256=[iterations=8192,password=${BOB_PW}]`, '--entity-type', 'users', '--entity-name', 'bob']),
  ]);
  expect(assertOk('kafka-configs alice', a).stdout).toContain('Completed updating config for user alice.');
  expect(assertOk('kafka-configs bob', b).stdout).toContain('Completed updating config for user bob.');
}, 60_000);

afterAll(async () => {
  await sasl?.stop();
  if (pki) fs.rmSync(pki.dir, { recursive: true, force: true });
});

describe('SASL_PLAINTEXT listener', () => {
  it('kafka-configs --describe --entity-type users lists the SCRAM users with mechanism and iterations', async () => {
    const r = assertOk('kafka-configs --describe', await kafkaConfigs(broker.bootstrap, ['--command-config', path.join(dir, 'admin.properties'), '--describe', '--entity-type', 'users']));
    expect(r.stdout).toContain("SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-512=iterations=4096");
    expect(r.stdout).toContain("SCRAM credential configs for user-principal 'bob' are SCRAM-SHA-256=iterations=8192");
  });

  it('kcat produces and consumes with SCRAM-SHA-512 and with PLAIN (a SCRAM user\'s password)', async () => {
    const [scram, plain] = await Promise.all([
      kcatRoundTrip('sasl-kcat-scram', 'SCRAM-SHA-512', 'alice', ALICE_PW, ['s1', 's2', 's3']),
      kcatRoundTrip('sasl-kcat-plain', 'PLAIN', 'bob', BOB_PW, ['p1', 'p2']),
    ]);
    expect(scram).toEqual(['s1', 's2', 's3']);
    expect(plain).toEqual(['p1', 'p2']);
  });

  it('the Java console producer and consumer work with SCRAM-SHA-256 from a client properties file', async () => {
    const props = sasl.clientProps('bob', 'SCRAM-SHA-256', 'bob', BOB_PW);
    const p = await runJava('org.apache.kafka.tools.ConsoleProducer', ['--bootstrap-server', broker.bootstrap, '--topic', 'sasl-java', '--command-config', props], { input: 'j1\nj2\n', timeoutMs: 30_000 });
    assertOk('console producer', p);
    const c = await runJava('org.apache.kafka.tools.consumer.ConsoleConsumer', [
      '--bootstrap-server', broker.bootstrap, '--topic', 'sasl-java', '--command-config', props, '--partition', '0', '--offset', 'earliest', '--max-messages', '2', '--timeout-ms', '15000',
    ], { timeoutMs: 30_000 });
    expect(assertOk('console consumer', c).stdout.split('\n').filter(Boolean)).toEqual(['j1', 'j2']);
  });

  it('KafkaJS produces with SCRAM-SHA-512', async () => {
    const kafka = new Kafka({ clientId: 'sasl-test', brokers: [broker.bootstrap], sasl: { mechanism: 'scram-sha-512', username: 'alice', password: ALICE_PW }, logLevel: logLevel.NOTHING });
    const producer = kafka.producer({ allowAutoTopicCreation: true });
    await producer.connect();
    await producer.send({ topic: 'sasl-kafkajs', messages: [{ value: 'k1' }, { value: 'k2' }] });
    await producer.disconnect();
    const c = await runCommand('kcat', ['-b', broker.bootstrap, '-C', '-t', 'sasl-kafkajs', '-o', 'beginning', '-e', '-q', ...kcatAuth('SCRAM-SHA-256', 'bob', BOB_PW)], { timeoutMs: 20_000 });
    expect(c.stdout.split('\n').filter(Boolean)).toEqual(['k1', 'k2']);
  });

  it('a wrong password is refused: kcat exits with the authentication error, Java sees SaslAuthenticationException', async () => {
    const [k, j] = await Promise.all([
      runCommand('kcat', ['-b', broker.bootstrap, '-L', '-m', '2', ...kcatAuth('SCRAM-SHA-512', 'alice', 'not-the-password')], { timeoutMs: 20_000 }),
      kafkaTopics(broker.bootstrap, ['--command-config', sasl.clientProps('wrong', 'SCRAM-SHA-256', 'bob', 'not-the-password'), '--list'], { timeoutMs: 30_000 }),
    ]);
    expect(k.code).not.toBe(0);
    expect(k.stderr).toContain('SASL authentication error: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512');
    expect(j.code).not.toBe(0);
    expect(`${j.stdout}\n${j.stderr}`).toMatch(/SaslAuthenticationException: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256/);
  });

  it('SASL_SSL: kcat authenticates with SCRAM-SHA-512 inside TLS; the PLAIN admin of the SASL_PLAINTEXT listener\'s JAAS config is unknown there', async () => {
    const tls = ['-X', 'security.protocol=SASL_SSL', '-X', `ssl.ca.location=${pki.caCert}`];
    const auth = (mechanism: string, user: string, pw: string): string[] => [...tls, '-X', `sasl.mechanism=${mechanism}`, '-X', `sasl.username=${user}`, '-X', `sasl.password=${pw}`];
    const p = await runCommand('kcat', ['-b', `${HOST}:${sslPort}`, '-P', '-t', 'sasl-ssl', ...auth('SCRAM-SHA-512', 'alice', ALICE_PW)], { input: 't1\nt2\n', timeoutMs: 20_000 });
    expect(p.code, p.stderr).toBe(0);
    const c = await runCommand('kcat', ['-b', `${HOST}:${sslPort}`, '-C', '-t', 'sasl-ssl', '-o', 'beginning', '-e', '-q', ...auth('SCRAM-SHA-512', 'alice', ALICE_PW)], { timeoutMs: 20_000 });
    expect(c.stdout.split('\n').filter(Boolean)).toEqual(['t1', 't2']);
    const admin = await runCommand('kcat', ['-b', `${HOST}:${sslPort}`, '-L', '-m', '2', ...auth('PLAIN', 'admin', ADMIN_PW)], { timeoutMs: 20_000 });
    expect(admin.code).not.toBe(0);
    expect(admin.stderr).toContain('Authentication failed: Invalid username or password');
  });

  it('a request before authentication, and an oversized frame before authentication, close the connection', async () => {
    const c = await WireClient.connect(broker.port);
    expect((await c.request(ApiVersions, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' })).errorCode).toBe(0);
    let answered = false;
    c.request(Metadata, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false }, 3000).then(() => { answered = true; }, () => undefined);
    expect(await c.closedWithin(3000)).toBe(true);
    expect(answered).toBe(false);
    const d = await WireClient.connect(broker.port);
    const prefix = Buffer.alloc(8);
    prefix.writeInt32BE(4097, 0); // sasl.server.max.receive.size=4096
    d.writeRaw(prefix);
    expect(await d.closedWithin(3000)).toBe(true);
  });

  it('Redis holds no password: no key or value contains any of them (raw or base64)', async () => {
    const r = new Redis(redis.port, HOST);
    try {
      const needles = [ADMIN_PW, ALICE_PW, BOB_PW].flatMap((p) => [p, Buffer.from(p).toString('base64')]);
      const keys = await r.keys('*');
      expect(keys).toContain('rn:scram-credentials');
      const blobs: string[] = [];
      for (const k of keys) {
        const type = await r.type(k);
        blobs.push(k);
        if (type === 'string') blobs.push((await r.getBuffer(k))!.toString('latin1'));
        else if (type === 'hash') blobs.push(...Object.entries(await r.hgetallBuffer(k)).flatMap(([f, v]) => [f, v.toString('latin1')]));
        else if (type === 'set') blobs.push(...(await r.smembersBuffer(k)).map((b) => b.toString('latin1')));
        else if (type === 'zset') blobs.push(...(await r.zrangeBuffer(k, 0, -1)).map((b) => b.toString('latin1')));
        else if (type === 'list') blobs.push(...(await r.lrangeBuffer(k, 0, -1)).map((b) => b.toString('latin1')));
        else if (type === 'stream') blobs.push(...(await r.xrangeBuffer(k, '-', '+')).flatMap(([, f]) => f.map((b) => b.toString('latin1'))));
      }
      const all = blobs.join('\n');
      for (const n of needles) expect(all.includes(n), `Redis holds ${n}`).toBe(false);
      // What is stored: Kafka's credential form, salt/StoredKey/ServerKey only.
      const creds = await r.hgetall('rn:scram-credentials');
      expect(Object.keys(creds).sort()).toEqual(['SCRAM-SHA-256:bob', 'SCRAM-SHA-512:alice']);
      for (const v of Object.values(creds)) expect(v).toMatch(/^salt=[A-Za-z0-9+/=]+,stored_key=[A-Za-z0-9+/=]+,server_key=[A-Za-z0-9+/=]+,iterations=\d+$/);
    } finally {
      r.disconnect();
    }
  });
});
