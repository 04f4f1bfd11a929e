// The web console obeys the Kafka port's ACLs (issue 27). Two real brokers on
// one real Redis, each with a SASL_PLAINTEXT listener (PLAIN users from the
// JAAS config), authorizer.class.name set, super.users=User:admin and
// allow.everyone.if.no.acl.found=false. KafkaJS, as admin, creates the topics,
// writes one record to each, commits offsets of two groups and grants: bob
// READ on `public` and DESCRIBE on group g-public; alice READ on `secret`.
// Broker 1's console is bob's (http.auth.basic.user=bob, plus a bearer token
// that maps to the default http.auth.bearer.principal, User:ANONYMOUS);
// broker 2's is alice's. Each page shows only what its principal may see, and
// the Kafka port refuses bob's Fetch of `secret` with the same error (29).
// A broker with an authorizer and http.port but no HTTP credentials does not
// start (RN3003).
import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, HOST } from '../../helpers/procs.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { brokerExit, startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { WireClient } from '../../helpers/wire.js';
import { SaslHandshake } from '../../../broker/src/protocol/messages/sasl-handshake.js';
import { SaslAuthenticate } from '../../../broker/src/protocol/messages/sasl-authenticate.js';
import { Fetch } from '../../../broker/src/protocol/messages/fetch.js';

const { Kafka, logLevel, AclResourceTypes, AclOperationTypes, AclPermissionTypes, ResourcePatternTypes } = kafkajs;

const AUTHORIZER = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
const PW = { admin: 'Adm1n-Pw-4410', bob: 'B0b-Pw-7731', alice: 'Al1ce-Pw-2298' };
const HTTP_PW = { bob: 'bob-http-5521', alice: 'alice-http-8830' };
const TOKEN = 'console-token-6619';
const JAAS = `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="${PW.admin}" user_admin="${PW.admin}" user_bob="${PW.bob}" user_alice="${PW.alice}";`;
const SECRET_VALUE = 'card-4111-1111-1111-1111';
const PUBLIC_VALUE = 'hello-public-record';

let redis: RedisServer;
let b1: RunnelBroker;
let b2: RunnelBroker;
let http1: string;
let http2: string;

const secured = (nodeId: number, port: number, httpPort: number, http: string[]): string[] => [
  '--node-id', String(nodeId),
  ...[
    `listeners=SASL_PLAINTEXT://${HOST}:${port}`, `listener.name.sasl_plaintext.plain.sasl.jaas.config=${JAAS}`,
    `authorizer.class.name=${AUTHORIZER}`, 'super.users=User:admin', 'allow.everyone.if.no.acl.found=false',
    `http.port=${httpPort}`, ...http,
  ].flatMap((s) => ['--set', s]),
];

async function startSecured(nodeId: number, http: string[]): Promise<{ broker: RunnelBroker; url: string }> {
  const [port, httpPort] = [await freePort(), await freePort()];
  const broker = await startRunnel({ redisUrl: redis.url, port, args: secured(nodeId, port, httpPort, http) });
  return { broker, url: `http://127.0.0.1:${httpPort}` };
}

const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
async function get(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const r = await fetch(url, { headers });
  return { status: r.status, body: await r.text() };
}

/** A Fetch of `topic`/0 from offset 0 on the Kafka port, authenticated as `user` with PLAIN; the partition's error code. */
async function kafkaFetch(port: number, user: keyof typeof PW, topic: string): Promise<number> {
  const c = await WireClient.connect(port);
  try {
    expect((await c.request(SaslHandshake, 1, { mechanism: 'PLAIN' })).errorCode).toBe(0);
    expect((await c.request(SaslAuthenticate, 2, { authBytes: Buffer.from(`\u0000${user}\u0000${PW[user]}`) })).errorCode).toBe(0);
    const r = await c.request(Fetch, 11, {
      replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
      topics: [{ topic, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
      forgottenTopicsData: [], rackId: '',
    });
    return r.responses[0].partitions[0].errorCode as number;
  } finally {
    c.close();
  }
}

/** kafkaFetch on the partition's leader (a broker that does not lead it answers NOT_LEADER_OR_FOLLOWER, 6, after the ACL check). */
async function leaderFetch(user: keyof typeof PW, topic: string): Promise<number> {
  let code = -1;
  for (const b of [b1, b2]) if ((code = await kafkaFetch(b.port, user, topic)) !== 6) return code;
  return code;
}

beforeAll(async () => {
  redis = await startRedis();
  ({ broker: b1, url: http1 } = await startSecured(1, ['http.auth.basic.user=bob', `http.auth.basic.password=${HTTP_PW.bob}`, `http.auth.bearer.token=${TOKEN}`]));
  ({ broker: b2, url: http2 } = await startSecured(2, ['http.auth.basic.user=alice', `http.auth.basic.password=${HTTP_PW.alice}`]));
  const kafka = new Kafka({ brokers: [b1.bootstrap], clientId: 'console-acls', logLevel: logLevel.NOTHING, sasl: { mechanism: 'plain', username: 'admin', password: PW.admin } });
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic: 'secret', numPartitions: 1 }, { topic: 'public', numPartitions: 1 }], waitForLeaders: true });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'secret', messages: [{ key: 'k', value: SECRET_VALUE }] });
    await producer.send({ topic: 'public', messages: [{ key: 'k', value: PUBLIC_VALUE }] });
    await producer.disconnect();
    await admin.setOffsets({ groupId: 'g-public', topic: 'public', partitions: [{ partition: 0, offset: '0' }] });
    await admin.setOffsets({ groupId: 'g-secret', topic: 'secret', partitions: [{ partition: 0, offset: '0' }] });
    const acl = (principal: string, resourceType: number, resourceName: string, operation: number) => ({
      principal, resourceType, resourceName, operation, host: '*', permissionType: AclPermissionTypes.ALLOW, resourcePatternType: ResourcePatternTypes.LITERAL,
    });
    await admin.createAcls({ acl: [
      acl('User:bob', AclResourceTypes.TOPIC, 'public', AclOperationTypes.READ),
      acl('User:bob', AclResourceTypes.GROUP, 'g-public', AclOperationTypes.DESCRIBE),
      acl('User:alice', AclResourceTypes.TOPIC, 'secret', AclOperationTypes.READ),
    ] });
  } finally {
    await admin.disconnect();
  }
}, 120_000);

afterAll(async () => {
  await b1?.stop();
  await b2?.stop();
  await redis?.stop();
});

describe('web console and the authorizer', () => {
  it('an authorizer with http.port and no HTTP credentials: the broker does not start (RN3003, naming the fix)', async () => {
    const { exit, log } = await brokerExit(redis.url, [`authorizer.class.name=${AUTHORIZER}`, `http.port=${await freePort()}`, 'node.id=7']);
    expect(exit.code).not.toBe(0);
    expect(log).toContain('RN3003 http endpoints would bypass the authorizer');
    expect(log).toContain('set http.auth.basic.user and http.auth.basic.password (or http.auth.bearer.token, or http.ssl.client.auth=required), or leave http.port unset');
  });

  it('bob, without READ on secret: the console refuses its records (403, TOPIC_AUTHORIZATION_FAILED) as the Kafka port refuses his Fetch (29)', async () => {
    const r = await get(`${http1}/console/messages?topic=secret`, basic('bob', HTTP_PW.bob));
    expect(r.status).toBe(403);
    expect(r.body).toContain('TOPIC_AUTHORIZATION_FAILED (29): not authorized to read topic secret');
    expect(r.body).not.toContain(SECRET_VALUE);
    expect(await kafkaFetch(b1.port, 'bob', 'secret')).toBe(29);
    expect(await kafkaFetch(b2.port, 'bob', 'secret')).toBe(29);
    // What he may read, he sees, on both ports.
    const ok = await get(`${http1}/console/messages?topic=public`, basic('bob', HTTP_PW.bob));
    expect(ok.status).toBe(200);
    expect(ok.body).toContain(PUBLIC_VALUE);
    expect(await leaderFetch('bob', 'public')).toBe(0);
  });

  it('alice, with READ on secret: the console shows its record', async () => {
    const r = await get(`${http2}/console/messages?topic=secret`, basic('alice', HTTP_PW.alice));
    expect(r.status).toBe(200);
    expect(r.body).toContain(SECRET_VALUE);
    expect(await leaderFetch('alice', 'secret')).toBe(0);
  });

  it('topic lists and partition leaders show only the topics the principal may describe', async () => {
    const bobTopics = (await get(`${http1}/console/topics`, basic('bob', HTTP_PW.bob))).body;
    expect(bobTopics).toContain('id="t-public"');
    expect(bobTopics).not.toContain('id="t-secret"');
    const aliceTopics = (await get(`${http2}/console/topics`, basic('alice', HTTP_PW.alice))).body;
    expect(aliceTopics).toContain('id="t-secret"');
    expect(aliceTopics).not.toContain('id="t-public"');
    const bobCluster = (await get(`${http1}/console`, basic('bob', HTTP_PW.bob))).body;
    expect(bobCluster).toContain('#t-public');
    expect(bobCluster).not.toContain('#t-secret');
  });

  it('groups: only those the principal may describe are listed; another group is 403 (GROUP_AUTHORIZATION_FAILED)', async () => {
    const groups = (await get(`${http1}/console/groups`, basic('bob', HTTP_PW.bob))).body;
    expect(groups).toContain('g-public');
    expect(groups).not.toContain('g-secret');
    expect((await get(`${http1}/console/group?id=g-public`, basic('bob', HTTP_PW.bob))).status).toBe(200);
    const denied = await get(`${http1}/console/group?id=g-secret`, basic('bob', HTTP_PW.bob));
    expect(denied.status).toBe(403);
    expect(denied.body).toContain('GROUP_AUTHORIZATION_FAILED (30)');
  });

  it('a bearer token is User:ANONYMOUS by default: with no ACL for it, it sees no topic and no record', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const topics = await get(`${http1}/console/topics`, auth);
    expect(topics.status).toBe(200);
    expect(topics.body).toContain('no topics');
    expect((await get(`${http1}/console/messages?topic=public`, auth)).status).toBe(403);
    expect((await get(`${http1}/console/groups`, auth)).body).toContain('no consumer groups');
  });

  it('/metrics needs the credentials (cluster-level: any authenticated request); the probes /health and /ready stay open', async () => {
    expect((await get(`${http1}/metrics`, {})).status).toBe(401);
    expect((await get(`${http1}/console/topics`, {})).status).toBe(401);
    expect((await get(`${http1}/console/messages?topic=secret`, basic('bob', 'wrong'))).status).toBe(401);
    const m = await get(`${http1}/metrics`, basic('bob', HTTP_PW.bob));
    expect(m.status).toBe(200);
    expect(m.body).toContain('runnel_live_brokers 2');
    expect((await get(`${http1}/health`, {})).status).toBe(200);
    expect((await get(`${http1}/ready`, {})).status).toBe(200);
  });
});
