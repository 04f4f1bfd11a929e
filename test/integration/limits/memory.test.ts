// Hostile clients must not be able to make the broker hold unbounded memory or
// connections: a Fetch naming one partition many times, a client pipelining
// Fetches without ever reading the responses, a frame that never completes,
// idle connections, and more connections than max.connections.
//
// RSS bounds (Runnel only; a JVM's RSS says nothing about one request): the
// partition holds DATA_MIB MiB. One Fetch of it needs at most one copy of
// that in the ioredis reply and one in the response, so a fixed broker grows by
// a few times DATA_MIB; the bound below (GROWTH_LIMIT) leaves room for V8's
// garbage that is not collected yet. The unfixed broker grew by hundreds of
// MiB in both scenarios (one copy per mention / per pipelined request).
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateTopics } from '../../../broker/src/protocol/messages/create-topics.js';
import { Fetch } from '../../../broker/src/protocol/messages/fetch.js';
import { ErrorCode } from '../../../common/errors.js';
import { HOST, sleep } from '../../helpers/procs.js';
import { apiVersionsProbe } from '../../helpers/runnel.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { startTarget, targetKindFromEnv, type Target } from '../../helpers/target.js';
import { WireClient } from '../../helpers/wire.js';
import { MiB, fetchFrame, produceValues, rssBytes, rssSampler } from './support.js';

const DATA_MIB = 4;
const GROWTH_LIMIT = 96 * MiB;
const PARTIAL_TIMEOUT_MS = 1000;
const IDLE_MS = 3000;
const onRunnel = targetKindFromEnv() === 'runnel';
const portOf = (bootstrap: string): number => Number(bootstrap.split(':').pop());

let target: Target;
let port: number;
const brokerPid = (): number => target.runnel!.proc().pid;

/** Answered ApiVersions within `ms` on a fresh connection. */
async function answers(ms = 5000): Promise<boolean> {
  return apiVersionsProbe(port, HOST, ms).then((r) => r.errorCode === 0, () => false);
}

beforeAll(async () => {
  target = await startTarget({
    runnel: { args: ['--set', `socket.partial.request.timeout.ms=${PARTIAL_TIMEOUT_MS}`, '--set', `connections.max.idle.ms=${IDLE_MS}`] },
    kafka: { props: { 'connections.max.idle.ms': IDLE_MS } },
  });
  port = portOf(target.bootstrap);
  const c = await WireClient.connect(port);
  const r = await c.request(CreateTopics, 7, { topics: [{ name: 'big', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 30_000, validateOnly: false });
  expect(r.topics[0].errorCode).toBe(ErrorCode.NONE);
  // DATA_MIB MiB in 512 KiB batches (under message.max.bytes).
  expect(await produceValues(c, 'big', DATA_MIB * 2, 512 * 1024)).toEqual(Array(DATA_MIB * 2).fill(0));
  c.close();
});
afterAll(async () => { await target?.stop(); });

describe('memory bounds', () => {
  it('a Fetch naming the same partition 100 times is answered once for it (Kafka keys fetches by partition), memory bounded', async () => {
    const c = await WireClient.connect(port);
    // Warm up: one ordinary fetch of everything, so lazily built state is not counted as growth.
    const warm = await c.send(fetchFrame('big', 1, 1), 1, 30_000);
    expect(warm.length).toBeGreaterThan(DATA_MIB * MiB);
    const before = onRunnel ? rssBytes(brokerPid()) : 0;
    const peak = onRunnel ? rssSampler(brokerPid()) : null;
    const partitions = Array.from({ length: 100 }, () => ({ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 52428800 }));
    const r = await c.request(Fetch, 12, {
      replicaId: -1, maxWaitMs: 0, minBytes: 1, maxBytes: 52428800, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
      topics: [{ topic: 'big', topicId: '00000000-0000-0000-0000-000000000000', partitions }], forgottenTopicsData: [], rackId: '',
    }, 60_000);
    const growth = peak ? peak.stop() - before : 0;
    const entries = r.responses.flatMap((t: any) => t.partitions);
    console.log(`duplicate-partition fetch on ${target.kind}: errorCode ${r.errorCode}, ${entries.length} entries, broker RSS growth ${(growth / MiB).toFixed(1)} MiB (limit ${GROWTH_LIMIT / MiB}, runnel only)`);
    // Either the request is refused as a whole, or each partition appears once with its data.
    if (r.errorCode !== ErrorCode.NONE) expect(r.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    else {
      expect(entries.length).toBe(1);
      expect(entries[0].errorCode).toBe(ErrorCode.NONE);
      expect(entries[0].highWatermark).toBe(DATA_MIB * 2);
    }
    if (onRunnel) expect(growth).toBeLessThan(GROWTH_LIMIT);
    c.close();
  });

  it('a client pipelining Fetches and never reading holds bounded memory; other clients keep being served', async () => {
    const hostile = net.connect({ host: HOST, port });
    await new Promise<void>((res, rej) => { hostile.once('connect', res); hostile.once('error', rej); });
    hostile.pause(); // never read: responses pile up in the broker unless it stops
    hostile.on('error', () => undefined);
    const before = onRunnel ? rssBytes(brokerPid()) : 0;
    const peak = onRunnel ? rssSampler(brokerPid()) : null;
    const frames = Buffer.concat(Array.from({ length: 200 }, (_, i) => fetchFrame('big', 1, 1000 + i)));
    hostile.write(frames);

    // Meanwhile a well-behaved client fetches and produces, with answers in time.
    const good = await WireClient.connect(port);
    const started = Date.now();
    for (let i = 0; i < 5; i++) {
      const f = await good.send(fetchFrame('big', 1, 10 + i, 1024, 1024), 10 + i, 10_000);
      expect(f.readInt32BE(0)).toBe(10 + i);
      expect(await produceValues(good, 'big', 1, 100)).toEqual([0]);
    }
    const goodMs = Date.now() - started;
    await sleep(1500);
    const growth = peak ? peak.stop() - before : 0;
    console.log(`pipelining non-reader: good client 10 requests in ${goodMs} ms; broker RSS growth ${(growth / MiB).toFixed(1)} MiB`);
    expect(goodMs).toBeLessThan(10_000);
    if (onRunnel) expect(growth).toBeLessThan(GROWTH_LIMIT);
    hostile.destroy();
    good.close();
    expect(await answers()).toBe(true);
  });
});

describe('connection timeouts', () => {
  it.skipIf(!onRunnel)('a frame that never completes is dropped after socket.partial.request.timeout.ms, even while it trickles', async () => {
    const c = await WireClient.connect(port);
    const prefix = Buffer.alloc(4);
    prefix.writeInt32BE(60 * MiB, 0);
    const t0 = Date.now();
    c.writeRaw(Buffer.concat([prefix, Buffer.alloc(64 * 1024)]));
    const trickle = setInterval(() => { if (!c.closed) c.writeRaw(Buffer.alloc(1)); }, 100);
    const closed = await c.closedWithin(PARTIAL_TIMEOUT_MS + 4000);
    clearInterval(trickle);
    const after = Date.now() - t0;
    console.log(`partial frame: closed=${closed} after ${after} ms (timeout ${PARTIAL_TIMEOUT_MS} ms)`);
    expect(closed).toBe(true);
    expect(after).toBeGreaterThanOrEqual(PARTIAL_TIMEOUT_MS - 50);
    expect(await answers()).toBe(true);
  });

  it('an idle connection is closed after connections.max.idle.ms; an active one is not', async () => {
    const idle = await WireClient.connect(port);
    const active = await WireClient.connect(port);
    const t0 = Date.now();
    expect((await apiVersionsOn(idle, 1)).readInt32BE(0)).toBe(1);
    const keepAlive = setInterval(() => { void apiVersionsOn(active, 2).catch(() => undefined); }, 500);
    const closed = await idle.closedWithin(IDLE_MS * 3);
    clearInterval(keepAlive);
    const after = Date.now() - t0;
    console.log(`idle connection: closed=${closed} after ${after} ms (connections.max.idle.ms ${IDLE_MS})`);
    expect(closed).toBe(true);
    expect(after).toBeGreaterThanOrEqual(IDLE_MS - 100);
    expect(active.closed).toBe(false);
    active.close();
  });
});

/** ApiVersions v0 with a fixed correlation id on an existing connection. */
function apiVersionsOn(c: WireClient, cid: number): Promise<Buffer> {
  const b = Buffer.alloc(4 + 10);
  b.writeInt32BE(10, 0);
  b.writeInt16BE(18, 4);
  b.writeInt16BE(0, 6);
  b.writeInt32BE(cid, 8);
  b.writeInt16BE(-1, 12);
  return c.send(b, cid, 5000);
}

describe.skipIf(!onRunnel)('max.connections', () => {
  let redis: RedisServer;
  let broker: RunnelBroker;
  beforeAll(async () => {
    redis = await startRedis();
    broker = await startRunnel({ redisUrl: redis.url, args: ['--set', 'max.connections=5'] });
  });
  afterAll(async () => {
    await broker?.stop();
    await redis?.stop();
  });

  it('accepts max.connections clients and closes the next one at once; a freed slot is usable again', async () => {
    await sleep(300); // the start-up probe's connection is gone
    const held: WireClient[] = [];
    for (let i = 0; i < 5; i++) {
      const c = await WireClient.connect(broker.port);
      expect((await apiVersionsOn(c, 1)).readInt32BE(0)).toBe(1);
      held.push(c);
    }
    const extra = await WireClient.connect(broker.port);
    expect(await extra.closedWithin(2000)).toBe(true);
    await expect(apiVersionsProbe(broker.port, HOST, 2000)).rejects.toThrow();
    held.pop()!.close();
    await sleep(200);
    expect((await apiVersionsProbe(broker.port)).errorCode).toBe(0);
    for (const c of held) expect(c.closed).toBe(false);
    for (const c of held) c.close();
  });
});
