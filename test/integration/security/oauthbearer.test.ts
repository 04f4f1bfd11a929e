// SASL/OAUTHBEARER (KIP-255, KIP-768) on a SASL_PLAINTEXT listener with real
// clients and a real Redis. The test is its own identity provider: an RSA
// key pair made here, its JWKS in a file the broker reads
// (sasl.oauthbearer.jwks.endpoint.url=file://...), tokens signed here, and a
// small OAuth token endpoint (client_credentials grant) that the Java client
// (OAuthBearerLoginCallbackHandler) and librdkafka (confluent-kafka,
// method=oidc) call; kcat's librdkafka here is built without OIDC (no libcurl).
// KafkaJS brings its own token (oauthBearerProvider). Expired, wrong-audience
// and foreign-key tokens are refused with RFC 7628's exchange. ACLs
// (super.users) show that the principal is User:<sub>.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertOk, kafkaTopics, runJava } from '../../helpers/java.js';
import { CACHE_DIR, freePort, HOST, REPO_ROOT, runCommand } from '../../helpers/procs.js';
import type { RunnelBroker } from '../../helpers/runnel.js';
import { WireClient } from '../../helpers/wire.js';
import { claimsFor, clientInitialResponse, jwksOf, makeSigningKey, signJwt } from '../../helpers/jwt.js';
import { startSaslBroker, type SaslBroker } from './support.js';
import { SaslHandshake } from '../../../broker/src/protocol/messages/sasl-handshake.js';
import { SaslAuthenticate } from '../../../broker/src/protocol/messages/sasl-authenticate.js';
import { Metadata } from '../../../broker/src/protocol/messages/metadata.js';

const { Kafka, logLevel } = kafkajs;

const ISSUER = 'https://idp.runnel.test';
const AUDIENCE = 'runnel-cluster';
const SECRETS: Record<string, string> = { 'svc-java': 'J4va-S3cret-8812', 'svc-rdk': 'Rdk-S3cret-3307', 'svc-elsewhere': 'Elsew-S3cret-5521' };
/** Clients whose tokens name another audience (the provider serves several clusters). */
const OTHER_AUDIENCE = new Set(['svc-elsewhere']);
const PY = path.join(CACHE_DIR, 'venv', 'bin', 'python');
const idpKey = makeSigningKey('idp-2026', 'RS256');
const strangerKey = makeSigningKey('idp-2026', 'RS256'); // same kid, another key pair
// The second listener's provider publishes its JWKS over HTTP and rotates from rot-1 to rot-2.
const rotKey1 = makeSigningKey('rot-1', 'ES256');
const rotKey2 = makeSigningKey('rot-2', 'PS256');
let httpJwks = jwksOf([rotKey1]);
let jwksFetches = 0;
let otherPort: number;

let sasl: SaslBroker;
let broker: RunnelBroker;
let tokenServer: http.Server;
let tokenUrl: string;
let jwksDir: string;
const tokenRequests: string[] = [];

const token = (sub: string, over: Record<string, unknown> = {}, key = idpKey): string =>
  signJwt(key, claimsFor(sub, Date.now(), { iss: ISSUER, aud: AUDIENCE, ...over }));

/** OAuth 2.0 client_credentials (RFC 6749 section 4.4): Basic client authentication, a signed JWT for sub=client_id. */
function tokenEndpoint(req: http.IncomingMessage, res: http.ServerResponse): void {
  if (req.method === 'GET' && req.url === '/jwks') {
    jwksFetches++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(httpJwks);
    return;
  }
  let body = '';
  req.on('data', (c: Buffer) => { body += c.toString(); });
  req.on('end', () => {
    const form = new URLSearchParams(body);
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
    const [id, secret] = basic ? Buffer.from(basic[1]!, 'base64').toString().split(':').map(decodeURIComponent) : [form.get('client_id'), form.get('client_secret')];
    if (req.method !== 'POST' || form.get('grant_type') !== 'client_credentials' || !id || SECRETS[id] === undefined || SECRETS[id] !== secret) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}');
      return;
    }
    tokenRequests.push(id);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: token(id, OTHER_AUDIENCE.has(id) ? { aud: 'another-cluster' } : {}), token_type: 'Bearer', expires_in: 3600 }));
  });
}

/** A Java client properties file: client_credentials for `client` at the test's token endpoint. */
function javaProps(client: string): string {
  const file = path.join(sasl.dir, `${client}.properties`);
  fs.writeFileSync(file, [
    'security.protocol=SASL_PLAINTEXT',
    'sasl.mechanism=OAUTHBEARER',
    'sasl.login.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler',
    `sasl.oauthbearer.token.endpoint.url=${tokenUrl}`,
    `sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="${client}" clientSecret="${SECRETS[client]}";`,
    '',
  ].join('\n'));
  return file;
}

/** Kafka 4 clients call only the token endpoints this system property lists. */
const javaArgs = (): string[] => ['-Xmx768m', '-XX:+UseSerialGC', `-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=${tokenUrl}`];

// retries 0: a refused token must fail at once. The produce test retries: the
// first Metadata naming a new topic answers LEADER_NOT_AVAILABLE, as Kafka's does.
const kafkaFor = (jwt: string, retries = 0): InstanceType<typeof Kafka> => new Kafka({
  clientId: 'oauth-test', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries },
  sasl: { mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: jwt }) },
});

beforeAll(async () => {
  const port = await freePort();
  otherPort = await freePort();
  tokenServer = http.createServer(tokenEndpoint);
  await new Promise<void>((r) => tokenServer.listen(port, HOST, r));
  tokenUrl = `http://${HOST}:${port}/oauth2/token`;
  jwksDir = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-jwks-'));
  const jwks = path.join(jwksDir, 'jwks.json');
  fs.writeFileSync(jwks, jwksOf([idpKey]));
  sasl = await startSaslBroker([
    'sasl.enabled.mechanisms=OAUTHBEARER',
    `sasl.oauthbearer.jwks.endpoint.url=file://${jwks}`,
    `sasl.oauthbearer.expected.issuer=${ISSUER}`,
    // The per-mechanism, per-listener form of Kafka's key.
    `listener.name.sasl_plaintext.oauthbearer.sasl.oauthbearer.expected.audience=${AUDIENCE}`,
    'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    'super.users=User:alice;User:svc-java;User:svc-rdk',
    'group.initial.rebalance.delay.ms=0',
    // A second SASL listener with its own JWKS, served over HTTP.
    'listener.security.protocol.map=SASL_PLAINTEXT:SASL_PLAINTEXT,OTHER:SASL_PLAINTEXT',
    `listener.name.other.sasl.oauthbearer.jwks.endpoint.url=http://${HOST}:${port}/jwks`,
    `listener.name.other.sasl.oauthbearer.expected.audience=${AUDIENCE}`,
  ], [`OTHER://${HOST}:${otherPort}`]);
  ({ broker } = sasl);
}, 60_000);

afterAll(async () => {
  await sasl?.stop();
  await new Promise<void>((r) => (tokenServer ? tokenServer.close(() => r()) : r()));
  if (jwksDir) fs.rmSync(jwksDir, { recursive: true, force: true });
});

describe('SASL/OAUTHBEARER', () => {
  it('KafkaJS (oauthBearerProvider, a token signed by the JWKS key) produces and consumes', async () => {
    const kafka = kafkaFor(token('alice'), 5);
    const producer = kafka.producer({ allowAutoTopicCreation: true });
    await producer.connect();
    await producer.send({ topic: 'oauth-kafkajs', messages: [{ value: 'o1' }, { value: 'o2' }] });
    await producer.disconnect();
    const consumer = kafka.consumer({ groupId: 'oauth-g' });
    await consumer.connect();
    await consumer.subscribe({ topic: 'oauth-kafkajs', fromBeginning: true });
    const got: string[] = [];
    await new Promise<void>((resolve, reject) => {
      consumer.run({ eachMessage: async ({ message }) => { got.push(message.value!.toString()); if (got.length === 2) resolve(); } }).catch(reject);
    });
    await consumer.disconnect();
    expect(got).toEqual(['o1', 'o2']);
  });

  it('the principal is User:<sub>: a valid token for a user outside super.users authenticates but is not authorized', async () => {
    const producer = kafkaFor(token('nobody')).producer();
    await producer.connect();
    const err = await producer.send({ topic: 'oauth-kafkajs', messages: [{ value: 'x' }] }).then(() => null, (e: Error) => e);
    await producer.disconnect();
    expect(String(err)).toMatch(/Not authorized to access topics/);
  });

  it('expired, wrong-audience and foreign-key tokens: {"status":"invalid_token"}, then SASL_AUTHENTICATION_FAILED, then the connection closes', async () => {
    const now = Math.floor(Date.now() / 1000);
    const bad = {
      expired: token('alice', { iat: now - 7200, exp: now - 3600 }),
      wrongAudience: token('alice', { aud: 'another-cluster' }),
      otherKey: token('alice', {}, strangerKey),
    };
    for (const [what, jwt] of Object.entries(bad)) {
      const c = await WireClient.connect(broker.port);
      expect((await c.request(SaslHandshake, 1, { mechanism: 'OAUTHBEARER' })).errorCode, what).toBe(0);
      const first = await c.request(SaslAuthenticate, 2, { authBytes: clientInitialResponse(jwt) });
      expect([first.errorCode, Buffer.from(first.authBytes as Buffer).toString()], what).toEqual([0, '{"status":"invalid_token"}']);
      const second = await c.request(SaslAuthenticate, 2, { authBytes: Buffer.from([1]) });
      expect([second.errorCode, second.errorMessage], what).toEqual([58, '{"status":"invalid_token"}']);
      expect(await c.closedWithin(3000), what).toBe(true);
      // KafkaJS takes the JSON answer for success (it does not read it); its first request then finds the connection closed.
      const p = kafkaFor(jwt).producer();
      const sent = (async () => { await p.connect(); await p.send({ topic: 'oauth-kafkajs', messages: [{ value: 'refused' }] }); })();
      await expect(sent, what).rejects.toThrow();
      await p.disconnect();
    }
  });

  it('a listener with its own JWKS over HTTP: only its keys count; a key the provider adds is used at once (rotation, unknown kid)', async () => {
    /** SaslHandshake + SaslAuthenticate with `jwt`; then, if accepted, a Metadata request on the same connection. */
    const auth = async (port: number, jwt: string): Promise<[number, string, number | null]> => {
      const c = await WireClient.connect(port);
      try {
        await c.request(SaslHandshake, 1, { mechanism: 'OAUTHBEARER' });
        const r = await c.request(SaslAuthenticate, 2, { authBytes: clientInitialResponse(jwt) });
        const bytes = Buffer.from(r.authBytes as Buffer).toString();
        const md = bytes === '' ? (await c.request(Metadata, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false })).brokers.length as number : null;
        return [r.errorCode as number, bytes, md];
      } finally {
        c.close();
      }
    };
    const INVALID = '{"status":"invalid_token"}';
    expect(await auth(otherPort, token('alice', {}, rotKey1))).toEqual([0, '', 1]);
    expect(jwksFetches).toBe(1);
    // The provider adds rot-2: the first token naming it makes the broker fetch the JWKS again, at once.
    httpJwks = jwksOf([rotKey1, rotKey2]);
    expect(await auth(otherPort, token('alice', {}, rotKey2))).toEqual([0, '', 1]);
    expect(jwksFetches).toBe(2);
    // Each listener knows only its own JWKS.
    expect(await auth(otherPort, token('alice'))).toEqual([0, INVALID, null]);
    expect(await auth(broker.port, token('alice', {}, rotKey1))).toEqual([0, INVALID, null]);
  });

  it('Java: a token for another audience is refused; the client reports SaslAuthenticationException {"status":"invalid_token"}', async () => {
    const props = javaProps('svc-elsewhere');
    const r = await kafkaTopics(broker.bootstrap, ['--command-config', props, '--list'], { timeoutMs: 30_000, jvmArgs: javaArgs() });
    expect(r.code).not.toBe(0);
    expect(`${r.stdout}\n${r.stderr}`).toMatch(/SaslAuthenticationException: \{"status":"invalid_token"\}/);
    expect(tokenRequests).toContain('svc-elsewhere');
  });

  it('Kafka 4 Java clients call no token endpoint that org.apache.kafka.sasl.oauthbearer.allowed.urls does not list (what the docs tell users to set)', async () => {
    const r = await kafkaTopics(broker.bootstrap, ['--command-config', javaProps('svc-java'), '--list'], { timeoutMs: 30_000 });
    expect(r.code).not.toBe(0);
    expect(`${r.stdout}\n${r.stderr}`).toContain("The URL cannot be accessed due to restrictions. Update the system property 'org.apache.kafka.sasl.oauthbearer.allowed.urls' to allow the URL to be accessed.");
  });

  it('the Java console producer (OAuthBearerLoginCallbackHandler, client_credentials at the token endpoint) writes; the Java console consumer reads', async () => {
    const props = javaProps('svc-java');
    const jvmArgs = javaArgs();
    const p = await runJava('org.apache.kafka.tools.ConsoleProducer', ['--bootstrap-server', broker.bootstrap, '--topic', 'oauth-java', '--command-config', props], { input: 'j1\nj2\n', timeoutMs: 30_000, jvmArgs });
    assertOk('console producer', p);
    const c = await runJava('org.apache.kafka.tools.consumer.ConsoleConsumer', [
      '--bootstrap-server', broker.bootstrap, '--topic', 'oauth-java', '--command-config', props, '--partition', '0', '--offset', 'earliest', '--max-messages', '2', '--timeout-ms', '15000',
    ], { timeoutMs: 30_000, jvmArgs });
    expect(assertOk('console consumer', c).stdout.split('\n').filter(Boolean)).toEqual(['j1', 'j2']);
    expect(tokenRequests).toContain('svc-java');
  });

  it('librdkafka (confluent-kafka, sasl.oauthbearer.method=oidc) gets its token at the token endpoint, produces and consumes', async () => {
    const r = await runCommand(PY, [path.join(REPO_ROOT, 'test/integration/security/librdkafka_oauth.py'), broker.bootstrap, tokenUrl, 'svc-rdk', SECRETS['svc-rdk']!, 'oauth-rdk', 'r1', 'r2', 'r3'], { timeoutMs: 40_000, logName: 'librdkafka-oauth' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().split('\n').pop()!)).toEqual({ consumed: ['r1', 'r2', 'r3'] });
    expect(tokenRequests).toContain('svc-rdk');
  });
});
