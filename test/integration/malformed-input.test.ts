// Fuzz-style: malformed, truncated and hostile requests for every supported API
// and version, plus mutations of populated requests (Produce with records,
// Fetch with partitions, Metadata, ListOffsets, CreateTopics, configs and
// group APIs). Every frame is checked on its own: it must get a response whose
// correlation id matches and that decodes with the API's response schema, or
// its connection must be closed. A trailing ApiVersions probe on the same
// connection tells "answered nothing" (legal only for an acks=0 Produce) from
// "hung". The broker stays up and a well-behaved client keeps producing.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { ALL_APIS } from '../../broker/src/protocol/messages/index.js';
import { ApiVersions } from '../../broker/src/protocol/messages/api-versions.js';
import { Produce } from '../../broker/src/protocol/messages/produce.js';
import { Fetch } from '../../broker/src/protocol/messages/fetch.js';
import { Metadata } from '../../broker/src/protocol/messages/metadata.js';
import { ListOffsets } from '../../broker/src/protocol/messages/list-offsets.js';
import { CreateTopics } from '../../broker/src/protocol/messages/create-topics.js';
import { OffsetCommit } from '../../broker/src/protocol/messages/offset-commit.js';
import { OffsetFetch } from '../../broker/src/protocol/messages/offset-fetch.js';
import { Heartbeat } from '../../broker/src/protocol/messages/heartbeat.js';
import { DescribeConfigs } from '../../broker/src/protocol/messages/describe-configs.js';
import { IncrementalAlterConfigs } from '../../broker/src/protocol/messages/incremental-alter-configs.js';
import { InitProducerId } from '../../broker/src/protocol/messages/init-producer-id.js';
import { DescribeProducers } from '../../broker/src/protocol/messages/describe-producers.js';
import { OffsetForLeaderEpoch } from '../../broker/src/protocol/messages/offset-for-leader-epoch.js';
import { decode, isFlexible } from '../../broker/src/protocol/codec.js';
import { Reader } from '../../broker/src/protocol/reader.js';
import { parseVersions } from '../../broker/src/protocol/versions.js';
import type { ApiDef } from '../../broker/src/protocol/schema.js';
import { ZERO_UUID } from '../../broker/src/protocol/uuid.js';
import { buildBatch } from '../helpers/batches.js';
import { HOST } from '../helpers/procs.js';
import { WireClient } from '../helpers/wire.js';
import { apiVersionsProbe } from '../helpers/runnel.js';
import { useBroker } from './broker-fixture.js';

// Mutated CreateTopics may create topics: keep what they can ask for small.
const fx = useBroker({ args: ['--set', 'topic.max.partitions=16', '--set', 'cluster.max.partitions=2000'] });

const SEEDS = [1234, 42, 977];
const CID = 7;
const PROBE_CID = 0x50524f42;
const TOPIC = 'fuzz-target';

function mulberry32(seed: number): () => number {
  return () => {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Requests with content, so mutations hit arrays, strings, records and their lengths. */
function populated(): Array<{ api: ApiDef; version: number; body: Record<string, unknown> }> {
  const records = buildBatch([
    { key: Buffer.from('k1'), value: Buffer.from('v1'), headers: [['h', Buffer.from('x')]] },
    { key: null, value: Buffer.alloc(300, 7) },
  ]);
  const fetchParts = [0, 1, 2].map((p) => ({ partition: p, currentLeaderEpoch: -1, fetchOffset: 0, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 65536 }));
  const fetch = (topicId: string) => ({ replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
    topics: [{ topic: TOPIC, topicId, partitions: fetchParts }], forgottenTopicsData: [], rackId: '' });
  const group = { groupId: 'fuzz-group', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null };
  return [
    ...[3, 9, 11].map((version) => ({ api: Produce, version, body: { transactionalId: null, acks: 1, timeoutMs: 2000, topicData: [{ name: TOPIC, partitionData: [{ index: 0, records }, { index: 1, records }] }] } })),
    ...[4, 12].map((version) => ({ api: Fetch, version, body: fetch(ZERO_UUID) })),
    { api: Fetch, version: 16, body: fetch(ZERO_UUID) },
    ...[1, 12].map((version) => ({ api: Metadata, version, body: { topics: [{ topicId: ZERO_UUID, name: TOPIC }, { topicId: ZERO_UUID, name: 'fuzz-other' }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: true } })),
    { api: ListOffsets, version: 7, body: { replicaId: -1, isolationLevel: 0, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1 }, { partitionIndex: 1, currentLeaderEpoch: -1, timestamp: 0 }] }] } },
    { api: CreateTopics, version: 7, body: { topics: [{ name: 'fuzz-new', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [{ name: 'retention.ms', value: '60000' }] }], timeoutMs: 5000, validateOnly: true } },
    { api: OffsetCommit, version: 8, body: { ...group, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, committedMetadata: 'meta' }] }] } },
    { api: OffsetFetch, version: 8, body: { groups: [{ groupId: 'fuzz-group', topics: [{ name: TOPIC, partitionIndexes: [0, 1] }] }], requireStable: false } },
    { api: Heartbeat, version: 4, body: { groupId: 'fuzz-group', generationId: 1, memberId: 'm-1', groupInstanceId: null } },
    { api: DescribeConfigs, version: 4, body: { resources: [{ resourceType: 2, resourceName: TOPIC, configurationKeys: ['retention.ms'] }, { resourceType: 4, resourceName: '1', configurationKeys: null }], includeSynonyms: true, includeDocumentation: true } },
    { api: IncrementalAlterConfigs, version: 1, body: { resources: [{ resourceType: 2, resourceName: TOPIC, configs: [{ name: 'retention.ms', configOperation: 0, value: '600000' }] }], validateOnly: true } },
    { api: ApiVersions, version: 3, body: { clientSoftwareName: 'fuzz', clientSoftwareVersion: '1.0' } },
    { api: InitProducerId, version: 4, body: { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1, producerEpoch: -1 } },
    { api: DescribeProducers, version: 0, body: { topics: [{ name: TOPIC, partitionIndexes: [0, 1] }] } },
    { api: OffsetForLeaderEpoch, version: 4, body: { replicaId: -1, topics: [{ topic: TOPIC, partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] }] } },
  ];
}

/** Byte offsets a mutation must leave alone: Fetch's MaxWaitMs (a long poll is legal, not a hang). */
function protectedRange(api: ApiDef, version: number, frame: Buffer): [number, number] | null {
  if (api !== Fetch) return null;
  const clientIdLen = frame.readInt16BE(12);
  const header = 14 + clientIdLen + (isFlexible(api.request, version) ? 1 : 0);
  const at = header + (version < 15 ? 4 : 0); // ReplicaId precedes MaxWaitMs before v15
  return [at, at + 4];
}

function mutate(good: Buffer, rand: () => number, avoid: [number, number] | null): Buffer {
  const out = Buffer.from(good);
  const pick = (): number => {
    for (;;) {
      const at = 12 + Math.floor(rand() * Math.max(1, out.length - 12));
      if (!avoid || at < avoid[0] || at >= avoid[1]) return at;
    }
  };
  const kind = rand();
  if (kind < 0.5) {
    for (let i = 0; i < 1 + Math.floor(rand() * 4); i++) { const at = pick(); if (at < out.length) out[at] = Math.floor(rand() * 256); }
  } else {
    // A hostile length or count: a big, negative or off-by-some int32 (or varint byte run) somewhere in the body.
    const at = pick();
    const values = [0x7fffffff, -2, 0x00ffffff, 0x10000, -1];
    if (at + 4 <= out.length && !(avoid && at + 4 > avoid[0] && at < avoid[1])) out.writeInt32BE(values[Math.floor(rand() * values.length)]!, at);
    else if (at < out.length) out[at] = 0xff;
  }
  return out;
}

function truncate(good: Buffer, rand: () => number): Buffer {
  const cut = Buffer.from(good.subarray(0, Math.max(14, Math.floor(good.length * rand()))));
  cut.writeInt32BE(cut.length - 4, 0);
  return cut;
}

function junk(api: ApiDef, v: number, rand: () => number): Buffer {
  const body = Buffer.alloc(8 + Math.floor(rand() * 64));
  for (let i = 0; i < body.length; i++) body[i] = Math.floor(rand() * 256);
  const hdr = Buffer.alloc(12);
  hdr.writeInt32BE(8 + body.length, 0);
  hdr.writeInt16BE(api.apiKey, 4);
  hdr.writeInt16BE(v, 6);
  hdr.writeInt32BE(CID, 8);
  return Buffer.concat([hdr, body]);
}

interface Case { name: string; api: ApiDef; version: number; frame: Buffer }

function cases(seed: number): Case[] {
  const rand = mulberry32(seed);
  const out: Case[] = [];
  for (const api of ALL_APIS) {
    const range = parseVersions(api.request.validVersions);
    for (let v = range.min; v <= range.max; v++) {
      const good = WireClient.frame(api, v, {}, CID);
      out.push({ name: `${api.name} v${v} empty truncated`, api, version: v, frame: truncate(good, rand) });
      out.push({ name: `${api.name} v${v} empty mutated`, api, version: v, frame: mutate(good, rand, null) });
      out.push({ name: `${api.name} v${v} junk body`, api, version: v, frame: junk(api, v, rand) });
    }
  }
  for (const p of populated()) {
    const good = WireClient.frame(p.api, p.version, p.body, CID);
    const avoid = protectedRange(p.api, p.version, good);
    for (let i = 0; i < 12; i++) out.push({ name: `${p.api.name} v${p.version} populated mutation ${i}`, api: p.api, version: p.version, frame: mutate(good, rand, avoid) });
    for (let i = 0; i < 3; i++) out.push({ name: `${p.api.name} v${p.version} populated truncated ${i}`, api: p.api, version: p.version, frame: truncate(good, rand) });
  }
  return out;
}

const PROBE = (() => {
  const b = Buffer.alloc(4 + 10);
  b.writeInt32BE(10, 0);
  b.writeInt16BE(18, 4);
  b.writeInt16BE(0, 6);
  b.writeInt32BE(PROBE_CID, 8);
  b.writeInt16BE(-1, 12);
  return b;
})();

/** The request body as the broker decodes it, or null if it does not decode. */
function decodeRequest(c: Case): Record<string, any> | null {
  try {
    const r = new Reader(c.frame, 4);
    r.int16(); r.int16(); r.int32();
    const idLen = r.int16();
    if (idLen > 0) r.slice(idLen);
    if (isFlexible(c.api.request, c.version)) r.uvarint();
    return decode(c.api.request, c.version, r);
  } catch {
    return null;
  }
}

/** A Produce whose (mutated) body still decodes with acks=0 legitimately gets no response. */
function isAcksZeroProduce(c: Case): boolean {
  return c.api === Produce && decodeRequest(c)?.acks === 0;
}

/** A Fetch that decodes with partitions and a long MaxWaitMs legitimately long-polls: not a case for a hang check. */
function isLongPoll(c: Case): boolean {
  if (c.api !== Fetch) return false;
  const req = decodeRequest(c);
  return req !== null && req.maxWaitMs > 1000 && req.topics.some((t: any) => t.partitions.length > 0);
}

type Outcome = { ok: true; how: string } | { ok: false; why: string };

/** Sends one case plus the probe on a fresh connection and judges what comes back. */
function runCase(port: number, c: Case, timeoutMs = 10_000): Promise<Outcome> {
  return new Promise((resolve) => {
    const sock = net.connect({ host: HOST, port });
    let buf = Buffer.alloc(0);
    let answered: string | null = null;
    let done = false;
    const finish = (o: Outcome): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      resolve(o);
    };
    const timer = setTimeout(() => finish({ ok: false, why: `no response and no close within ${timeoutMs} ms${answered ? ` (after ${answered})` : ''}` }), timeoutMs);
    sock.on('connect', () => sock.write(Buffer.concat([c.frame, PROBE])));
    sock.on('error', () => undefined);
    sock.on('close', () => finish({ ok: true, how: answered ? `answered, then closed` : 'closed' }));
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, typeof d === 'string' ? Buffer.from(d) : d]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readInt32BE(0)) {
        const frame = buf.subarray(4, 4 + buf.readInt32BE(0));
        buf = buf.subarray(4 + frame.length);
        const cid = frame.readInt32BE(0);
        if (cid === PROBE_CID) {
          if (answered) return finish({ ok: true, how: 'answered' });
          return finish(isAcksZeroProduce(c) ? { ok: true, how: 'acks=0, no response' } : { ok: false, why: 'no response to the request, yet the connection stayed open and answered the next one' });
        }
        if (cid !== CID) return finish({ ok: false, why: `response with correlation id ${cid}, expected ${CID}` });
        if (answered) return finish({ ok: false, why: 'two responses to one request' });
        try {
          decodeResponse(c.api, c.version, frame);
          answered = 'a decodable response';
        } catch (e) {
          return finish({ ok: false, why: `undecodable response: ${(e as Error).message}` });
        }
      }
    });
  });
}

function decodeResponse(api: ApiDef, version: number, frame: Buffer): void {
  const r = new Reader(frame, 4);
  const flexibleHeader = api.apiKey !== 18 && isFlexible(api.response, version);
  if (flexibleHeader) r.uvarint();
  // UNSUPPORTED_VERSION answers to ApiVersions come in v0 (KIP-511).
  const body = decode(api.response, api.apiKey === 18 && frame.length >= 6 && frame.readInt16BE(4) === 35 ? 0 : version, r);
  if (r.remaining() !== 0) throw new Error(`${r.remaining()} bytes after the ${api.name} response body`);
  if (typeof body !== 'object') throw new Error('no body');
}

describe('malformed input', () => {
  it('answers or closes every malformed frame (each checked), while a good client keeps working', async () => {
    const kafka = new Kafka({ brokers: [fx.broker.bootstrap], clientId: 'good', logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 3 }] });
    await admin.disconnect();
    const producer = kafka.producer({ allowAutoTopicCreation: true });
    await producer.connect();
    let sent = 0;
    let stop = false;
    const goodLoop = (async () => {
      while (!stop) {
        await producer.send({ topic: 'fuzz-good', messages: [{ key: `k${sent}`, value: `v${sent}` }] });
        sent++;
      }
    })();

    const failures: string[] = [];
    const tally = new Map<string, number>();
    let total = 0;
    let longPolls = 0;
    for (const seed of SEEDS) {
      const all = cases(seed).filter((c) => !isLongPoll(c) || (longPolls++, false));
      total += all.length;
      for (let i = 0; i < all.length; i += 25) {
        await Promise.all(all.slice(i, i + 25).map(async (c) => {
          const o = await runCase(fx.broker.port, c);
          if (o.ok) tally.set(o.how, (tally.get(o.how) ?? 0) + 1);
          else failures.push(`seed ${seed} ${c.name}: ${o.why}`);
        }));
      }
    }
    stop = true;
    await goodLoop;
    await producer.disconnect();
    console.log(`malformed input: ${total} frames (${longPolls} long-poll fetches left out), outcomes ${JSON.stringify(Object.fromEntries(tally))}, good client sent ${sent}`);
    expect(failures).toEqual([]);
    // The corpus exercises both outcomes: the handlers answer populated garbage, the decoder closes the rest.
    expect(tally.get('answered') ?? 0).toBeGreaterThan(50);
    expect(tally.get('closed') ?? 0).toBeGreaterThan(50);
    expect(sent).toBeGreaterThan(10);
    expect((await apiVersionsProbe(fx.broker.port)).errorCode).toBe(0);
    expect(fx.broker.proc().running()).toBe(true);
  });

  it('closes a connection whose length prefix exceeds socket.request.max.bytes, others unaffected', async () => {
    const hostile = await WireClient.connect(fx.broker.port);
    const prefix = Buffer.alloc(4);
    prefix.writeInt32BE(0x7fffffff, 0);
    hostile.writeRaw(prefix);
    expect(await hostile.closedWithin(2000)).toBe(true);

    const negative = await WireClient.connect(fx.broker.port);
    prefix.writeInt32BE(-5, 0);
    negative.writeRaw(prefix);
    expect(await negative.closedWithin(2000)).toBe(true);

    expect((await apiVersionsProbe(fx.broker.port)).errorCode).toBe(0);
  });

  it('answers an unknown API key and an unsupported version instead of dropping the connection', async () => {
    const c = await WireClient.connect(fx.broker.port);
    const frame = (apiKey: number, version: number, cid: number): Buffer => {
      const b = Buffer.alloc(4 + 10);
      b.writeInt32BE(10, 0);
      b.writeInt16BE(apiKey, 4);
      b.writeInt16BE(version, 6);
      b.writeInt32BE(cid, 8);
      b.writeInt16BE(-1, 12);
      return b;
    };
    const unknown = await c.send(frame(999, 0, 41), 41);
    expect(unknown.readInt32BE(0)).toBe(41);
    expect(unknown.readInt16BE(4)).toBe(35); // UNSUPPORTED_VERSION
    const tooNew = await c.send(frame(3, 99, 42), 42);
    expect(tooNew.readInt32BE(0)).toBe(42);
    // ApiVersions with a future version gets a v0 answer with UNSUPPORTED_VERSION and our ranges (KIP-511)
    const av = await c.send(frame(18, 99, 43), 43);
    expect(av.readInt16BE(4)).toBe(35);
    expect(av.readInt32BE(6)).toBeGreaterThan(10);
    expect(c.closed).toBe(false);
    c.close();
  });
});
