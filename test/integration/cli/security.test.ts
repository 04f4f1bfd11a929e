// The CLI's --command-config against a Runnel broker with SASL_PLAINTEXT and
// SASL_SSL listeners: PLAIN (a JAAS user), SCRAM-SHA-512 and SCRAM-SHA-256
// (users made by Kafka's kafka-configs), TLS with a PEM trust store; a wrong
// password is SASL_AUTHENTICATION_FAILED, an untrusted certificate refused.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertOk, kafkaConfigs } from '../../helpers/java.js';
import { freePort, HOST } from '../../helpers/procs.js';
import { makeTestPki, type TestPki } from '../../helpers/redis-tls.js';
import { startSaslBroker, type SaslBroker } from '../security/support.js';
import { ok, runnel } from './support.js';

const ADMIN_PW = 'Adm1n-S3cret-7710';
const ALICE_PW = 'Al1ce-S3cret-3301';
const BOB_PW = 'B0b-S3cret-8812';
const JAAS = `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="${ADMIN_PW}" user_admin="${ADMIN_PW}";`;

let sasl: SaslBroker;
let pki: TestPki;
let sslBootstrap: string;

function props(name: string, lines: string[]): string {
  const file = path.join(sasl.dir, `${name}.properties`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const scram = (user: string, pw: string): string => `sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="${user}" password="${pw}";`;

beforeAll(async () => {
  pki = await makeTestPki();
  const keystore = path.join(pki.dir, 'keystore.pem');
  fs.writeFileSync(keystore, fs.readFileSync(pki.serverKey, 'utf8') + fs.readFileSync(pki.serverCert, 'utf8'));
  const sslPort = await freePort();
  sslBootstrap = `${HOST}:${sslPort}`;
  sasl = await startSaslBroker([`listener.name.sasl_plaintext.plain.sasl.jaas.config=${JAAS}`, `listener.name.sasl_ssl.plain.sasl.jaas.config=${JAAS}`, 'ssl.keystore.type=PEM', `ssl.keystore.location=${keystore}`], [`SASL_SSL://${sslBootstrap}`]);
  const admin = sasl.clientProps('admin', 'PLAIN', 'admin', ADMIN_PW);
  const [a, b] = await Promise.all([
    kafkaConfigs(sasl.broker.bootstrap, ['--command-config', admin, '--alter', '--add-config', `SCRAM-SHA-512=[password=${ALICE_PW}]`, '--entity-type', 'users', '--entity-name', 'alice']),
    kafkaConfigs(sasl.broker.bootstrap, ['--command-config', admin, '--alter', '--add-config', `SCRAM-SHA-256=[iterations=8192,password=${BOB_PW}]`, '--entity-type', 'users', '--entity-name', 'bob']),
  ]);
  assertOk('kafka-configs alice', a);
  assertOk('kafka-configs bob', b);
}, 120_000);

afterAll(async () => {
  await sasl?.stop();
  if (pki) fs.rmSync(pki.dir, { recursive: true, force: true });
});

describe('runnel with --command-config', () => {
  it('creates a topic as a PLAIN user, produces with SCRAM-SHA-512, consumes with SCRAM-SHA-256 over TLS', async () => {
    const admin = sasl.clientProps('admin', 'PLAIN', 'admin', ADMIN_PW);
    ok(await runnel(sasl.broker.bootstrap, ['topic', 'create', 'cli-sec', '--partitions', '2', '--command-config', admin]));
    const alice = props('alice', ['security.protocol=SASL_PLAINTEXT', 'sasl.mechanism=SCRAM-SHA-512', scram('alice', ALICE_PW)]);
    ok(await runnel(sasl.broker.bootstrap, ['produce', 'cli-sec', '--key-separator', '=', '--command-config', alice], { input: 'a=1\nb=2\nc=3\n' }));
    const bob = props('bob-ssl', ['security.protocol=SASL_SSL', `ssl.truststore.location=${pki.caCert}`, 'ssl.truststore.type=PEM', 'sasl.mechanism=SCRAM-SHA-256', scram('bob', BOB_PW)]);
    const got = ok(await runnel(sslBootstrap, ['consume', 'cli-sec', '--from-beginning', '--max-messages', '3', '--print-key', '--key-separator', '=', '--command-config', bob]));
    expect(got.split('\n').filter(Boolean).sort()).toEqual(['a=1', 'b=2', 'c=3']);
  });

  it('exits 1 with SASL_AUTHENTICATION_FAILED for a wrong password and refuses an untrusted certificate', async () => {
    const wrong = props('wrong', ['security.protocol=SASL_PLAINTEXT', 'sasl.mechanism=SCRAM-SHA-512', scram('alice', 'not-it')]);
    const r = await runnel(sasl.broker.bootstrap, ['topic', 'list', '--command-config', wrong]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('SASL_AUTHENTICATION_FAILED');
    const untrusted = props('other-ca', ['security.protocol=SASL_SSL', `ssl.truststore.location=${pki.otherCaCert}`, 'sasl.mechanism=PLAIN', `sasl.jaas.config=x required username="admin" password="${ADMIN_PW}";`]);
    const t = await runnel(sslBootstrap, ['topic', 'list', '--command-config', untrusted]);
    expect(t.code).toBe(1);
    expect(t.stderr).toMatch(/cannot connect to .*(certificate|self.signed|issuer)/i);
    const noSasl = await runnel(sasl.broker.bootstrap, ['topic', 'list'], { timeoutMs: 40_000 });
    expect(noSasl.code).toBe(1);
  });
});
