// Golden bytes through the dispatcher: complete request frames in, complete
// response frames out, compared byte for byte.
//
// Requests: requests.json holds frames captured from real clients (kcat /
// librdkafka, KafkaJS, Java kafka-clients) by test/setup/capture-frames.ts;
// hand-requests.ts holds annotated frames for versions no installed client
// sends. Expected responses: annotated-responses.ts spells a few out field by
// field (Kafka's layouts); every other response is compared with
// responses.golden.json. After an intended change of a response, regenerate
// that file and review its diff:
//
//   RUNNEL_GOLDEN_UPDATE=1 npx vitest run --project unit test/broker/dispatch/golden/golden.test.ts
//
// The frames are replayed in one fixed order (ApiVersions, Metadata, topic
// creation, produce, offsets, fetch, groups) through one Dispatcher over the
// in-memory services, so each response depends only on the frames before it.
// Everything else that varies is fixed: the wall clock (Date), the cluster id, node id and address,
// the topic ids and leader epochs (those the capture saw), fresh uuids (topic ids of created
// topics, group member ids: a counter, by mocking node:crypto's randomUUID),
// fetch session ids.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { Dispatcher } from '../../../../broker/src/dispatch.js';
import { buildHandlers } from '../../../../broker/src/handlers/support/registry.js';
import { loadBrokerConfig } from '../../../../broker/src/config/config.js';
import { FetchSessionCache } from '../../../../broker/src/fetch/fetch-sessions.js';
import { newSession } from '../../../../broker/src/security/session.js';
import { AclService } from '../../../../broker/src/security/acl/acl-service.js';
import type { BrokerServices } from '../../../../broker/src/handlers/support/types.js';
import { MemoryLogStore } from '../../support/memory-log-store.js';
import { MemoryCredentialStore } from '../../support/memory-credential-store.js';
import { unitServices } from '../../support/services.js';
import { MemoryAclStore } from '../../support/memory-acl-store.js';
import { HAND_REQUESTS, HAND_TOPIC } from './hand-requests.js';
import { ANNOTATED_RESPONSES } from './annotated-responses.js';

const uuids = vi.hoisted(() => ({ n: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  const randomUUID = () => `00000000-0000-4000-8000-${(++uuids.n).toString(16).padStart(12, '0')}`;
  return { ...real, default: { ...real, randomUUID }, randomUUID };
});

const DIR = path.dirname(fileURLToPath(import.meta.url));
const GOLDEN = path.join(DIR, 'responses.golden.json');
const UPDATE = process.env.RUNNEL_GOLDEN_UPDATE === '1';

interface Captured { client: string; apiKey: number; apiVersion: number; hex: string }
const captured = JSON.parse(fs.readFileSync(path.join(DIR, 'requests.json'), 'utf8')) as {
  topics: Array<{ name: string; id: string; partitions: number; leaderEpoch: number }>;
  frames: Captured[];
};

const SASL_APIS = new Set([17, 36]); // SaslHandshake, SaslAuthenticate
/**
 * Replay order by API key, as a client session goes: discovery, topics and
 * configs, produce and fetch, groups, transactions, admin of groups, quotas,
 * users and ACLs, and deletions last.
 */
const ORDER = [18, 3, 60, 19, 37, 32, 44, 22, 0, 2, 1, 10, 11, 14, 12, 8, 9, 24, 25, 28, 26, 66, 65, 61, 16, 15, 13, 47, 42, 49, 48, 51, 50, 30, 29, 31, 35, 21, 20];
const rank = (apiKey: number): number => (ORDER.includes(apiKey) ? ORDER.indexOf(apiKey) : ORDER.length + apiKey);
const CLUSTER_ID = 'golden-cluster-00000001';
const CREATED = 1_700_000_000_000;
/** Date.now() during the replay: just after the captured records' CreateTime (records more than message.timestamp.after.max.ms ahead of it are refused). */
const NOW = 1_796_115_000_000;
const JAAS = 'org.apache.kafka.common.security.plain.PlainLoginModule required user_admin="admin-secret";';

const apiNames = new Map(buildHandlers().map((h) => [h.api.apiKey, h.api.name]));
const nameOf = (client: string, apiKey: number, apiVersion: number): string => `${client} ${apiNames.get(apiKey) ?? `api${apiKey}`} v${apiVersion}`;
const versionOf = (f: Buffer): [number, number] => [f.readInt16BE(4), f.readInt16BE(6)];

/** The plaintext frames in replay order, named `<client> <Api> v<version>`. */
function plaintextFrames(): Array<{ name: string; frame: Buffer }> {
  const all = [
    ...captured.frames.filter((f) => !SASL_APIS.has(f.apiKey)).map((f) => ({ name: nameOf(f.client, f.apiKey, f.apiVersion), frame: Buffer.from(f.hex, 'hex') })),
    ...HAND_REQUESTS.map((h) => ({ name: h.name, frame: h.hex })),
  ];
  // Stable sort: within one API, captured frames (java, kafkajs, kcat) then hand-written ones.
  return all.sort((a, b) => rank(versionOf(a.frame)[0]) - rank(versionOf(b.frame)[0]));
}

async function plaintextServices(): Promise<BrokerServices> {
  const store = new MemoryLogStore();
  for (const t of captured.topics) {
    await store.createTopic({ name: t.name, id: t.id, partitions: t.partitions, configs: {}, created: CREATED });
    for (let p = 0; p < t.partitions; p++) await store.restoreLeaderEpoch({ topic: t.name, partition: p }, t.leaderEpoch);
  }
  await store.createTopic({ ...HAND_TOPIC, partitions: 1, configs: {}, created: CREATED });
  // ACLs on (the ACL APIs answer), the anonymous clients super users, as in the capture.
  const acls = new AclService({ authorizerClassName: 'org.apache.kafka.metadata.authorizer.StandardAuthorizer', superUsers: 'User:ANONYMOUS', allowEveryoneIfNoAclFound: false }, new MemoryAclStore());
  await acls.start();
  acls.stop(); // no polling: changes through the service reload it
  return {
    ...unitServices({ store }), clusterId: CLUSTER_ID, acls, credentials: new MemoryCredentialStore(),
    fetchSessions: new FetchSessionCache(10, 120_000, () => 4242),
  };
}

function saslServices(): BrokerServices {
  const config = loadBrokerConfig(['--set', 'listeners=SASL_PLAINTEXT://127.0.0.1:9093', '--set', `sasl.jaas.config=${JAAS}`, '--set', 'sasl.enabled.mechanisms=PLAIN'], {});
  return { ...unitServices(), config, clusterId: CLUSTER_ID, credentials: new MemoryCredentialStore() };
}

/** The dispatcher takes a frame without its size prefix (the connection reads that) and answers with one. */
const body = (f: Buffer): Buffer => f.subarray(4);

const hexOf = (r: Awaited<ReturnType<Dispatcher['dispatch']>>): string => {
  if (r.kind !== 'response') throw new Error(`no response: ${JSON.stringify(r)}`);
  return Buffer.concat(r.chunks).toString('hex');
};

/** Replays every frame in order; the response frame of each, by name. */
async function replay(): Promise<Record<string, string>> {
  uuids.n = 0;
  // The wall clock stands still (producer states' last timestamps, SASL session
  // times); timers still run. Every replayed Fetch finds data, so none waits on the clock.
  vi.useFakeTimers({ toFake: ['Date'], now: NOW });
  try {
    return await replayFrames();
  } finally {
    vi.useRealTimers();
  }
}

async function replayFrames(): Promise<Record<string, string>> {
  const responses: Record<string, string> = {};
  const plain = new Dispatcher(buildHandlers(), await plaintextServices());
  const session = newSession(1, '127.0.0.1');
  for (const { name, frame } of plaintextFrames()) responses[name] = hexOf(await plain.dispatch(body(frame), session));
  // SASL: each client's handshake and authentication on a connection of its own.
  const sasl = new Dispatcher(buildHandlers(), saslServices());
  for (const client of [...new Set(saslFrames().map((f) => f.client))]) {
    const s = newSession(2, '127.0.0.1', 'SASL_PLAINTEXT', 'SASL_PLAINTEXT');
    const auth = sasl.saslFor(s);
    for (const f of saslFrames().filter((x) => x.client === client)) responses[f.name] = hexOf(await sasl.dispatch(body(f.frame), s, auth));
  }
  return responses;
}

function saslFrames(): Array<{ client: string; name: string; frame: Buffer }> {
  return captured.frames.filter((f) => SASL_APIS.has(f.apiKey)).sort((a, b) => a.apiKey - b.apiKey)
    .map((f) => ({ client: f.client, name: nameOf(f.client, f.apiKey, f.apiVersion), frame: Buffer.from(f.hex, 'hex') }));
}

const NAMES = [...plaintextFrames().map((f) => f.name), ...saslFrames().map((f) => f.name)];
const golden: Record<string, string> = UPDATE ? {} : JSON.parse(fs.readFileSync(GOLDEN, 'utf8')) as Record<string, string>;

describe('dispatcher golden bytes', () => {
  let responses: Record<string, string> = {};
  beforeAll(async () => {
    responses = await replay();
    if (UPDATE) {
      const snapshot = Object.fromEntries(NAMES.filter((n) => !(n in ANNOTATED_RESPONSES)).sort().map((n) => [n, responses[n]!]));
      fs.writeFileSync(GOLDEN, `${JSON.stringify(snapshot, null, 1)}\n`);
      Object.assign(golden, snapshot);
    }
  });

  it('the replay is deterministic: a second run answers the same bytes', async () => {
    const again = await replay();
    expect(NAMES.filter((n) => again[n] !== responses[n])).toEqual([]);
  });

  it('every frame has exactly one expectation (annotated or in the snapshot)', () => {
    expect([...Object.keys(ANNOTATED_RESPONSES), ...Object.keys(golden)].sort()).toEqual([...NAMES].sort());
  });

  for (const name of NAMES) {
    it(name, () => {
      const expected = ANNOTATED_RESPONSES[name]?.toString('hex') ?? golden[name];
      expect(responses[name]).toBe(expected);
    });
  }
});
