// A burst of partitions must not overload the broker that takes them, and a
// SIGKILL and restart must not either: three CreateTopics at once (scaled
// down from the reported 3 x 10,000, RUNNEL_BURST_PARTITIONS per topic;
// leadership.tick.ms=250 so the backlog, 200 acquisitions a tick, drains in
// about 12 s), while a probe produces to an unrelated,
// already-led partition every 100 ms. Every produce must succeed (no
// NOT_LEADER_OR_FOLLOWER 6, no KAFKA_STORAGE_ERROR 56) within 2 s, and every
// partition must end up led. Before leadership.acquire.per.tick, every free
// partition was acquired at once, and renewals waited in the same tick.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateTopics } from '../../../broker/src/protocol/messages/create-topics.js';
import { Metadata } from '../../../broker/src/protocol/messages/metadata.js';
import { Produce } from '../../../broker/src/protocol/messages/produce.js';
import { ErrorCode } from '../../../common/errors.js';
import { buildBatch } from '../../helpers/batches.js';
import { sleep } from '../../helpers/procs.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { WireClient } from '../../helpers/wire.js';

const BURSTS = 3;
const PER_BURST = Number(process.env.RUNNEL_BURST_PARTITIONS ?? 3000);
const SLOTS = 50; // offsets.topic.num.partitions
const UNITS = BURSTS * PER_BURST + 1 + SLOTS; // the bursts, the probe topic, the coordinator slots
const PRODUCE_BOUND_MS = 2000;

let redis: RedisServer;
let broker: RunnelBroker;

beforeAll(async () => {
  redis = await startRedis();
  broker = await startRunnel({ redisUrl: redis.url, args: ['--node-id', '1', '--set', 'leadership.tick.ms=250'] });
});

afterAll(async () => {
  await broker?.stop();
  await redis?.stop();
});

/** Leases (partitions and coordinator slots) per holding instance, as stored in Redis. */
async function leaseHolders(): Promise<Map<string, number>> {
  const lua = "local c={} for _,k in ipairs(redis.call('KEYS','*:leader')) do local v=redis.call('GET',k) if v then c[v]=(c[v] or 0)+1 end end local o={} for v,n in pairs(c) do o[#o+1]=v..'='..n end return table.concat(o,',')";
  const raw = await redis.command(`EVAL "${lua}" 0`);
  const body = raw.split('\r\n')[1] ?? '';
  return new Map(body.split(',').filter(Boolean).map((x) => { const [k, n] = x.split('='); return [k!, Number(n)]; }));
}

/** Produces one record to probe/0 every 100 ms until stop(); each produce's error code and latency. */
function probe(c: WireClient): { stop(): Promise<Array<{ code: number; ms: number }>> } {
  const out: Array<{ code: number; ms: number }> = [];
  let on = true;
  const loop = (async () => {
    while (on) {
      const t = Date.now();
      const records = buildBatch([{ key: null, value: Buffer.from('probe') }]);
      try {
        const r = await c.request(Produce, 9, { transactionalId: null, acks: 1, timeoutMs: 10_000, topicData: [{ name: 'probe', partitionData: [{ index: 0, records }] }] }, 30_000);
        out.push({ code: r.responses[0].partitionResponses[0].errorCode, ms: Date.now() - t });
      } catch {
        out.push({ code: -1, ms: Date.now() - t }); // no answer within 30 s
      }
      await sleep(Math.max(0, 100 - (Date.now() - t)));
    }
  })();
  return { stop: async () => { on = false; await loop; return out; } };
}

/** Waits until one broker instance other than `not` holds every unit's lease; fails past `limitMs`. Returns it and the time taken. */
async function allHeld(limitMs: number, not?: string): Promise<{ instance: string; ms: number }> {
  const t0 = Date.now();
  for (;;) {
    const holders = await leaseHolders();
    const full = [...holders].find(([k, n]) => k !== not && n === UNITS);
    if (full) return { instance: full[0], ms: Date.now() - t0 };
    if (Date.now() - t0 > limitMs) throw new Error(`after ${limitMs} ms, leases held: ${JSON.stringify([...holders])} (want ${UNITS})`);
    await sleep(250);
  }
}

function expectServed(samples: Array<{ code: number; ms: number }>, phase: string): void {
  const bad = samples.filter((s) => s.code !== ErrorCode.NONE || s.ms >= PRODUCE_BOUND_MS);
  const max = Math.max(...samples.map((s) => s.ms));
  console.log(`${phase}: ${samples.length} produces to probe/0, max ${max} ms, ${bad.length} failed or slower than ${PRODUCE_BOUND_MS} ms`);
  expect(bad, `${phase}: produces that failed or took >= ${PRODUCE_BOUND_MS} ms`).toEqual([]);
  expect(samples.length).toBeGreaterThanOrEqual(5);
}

describe('a burst of partitions on one broker', () => {
  it(`3 CreateTopics of ${PER_BURST} partitions: an unrelated partition keeps serving, every partition ends up led, also after SIGKILL and restart`, async () => {
    let c = await WireClient.connect(broker.port);
    const created = await c.request(CreateTopics, 7, { topics: [{ name: 'probe', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 30_000, validateOnly: false });
    expect(created.topics[0].errorCode).toBe(ErrorCode.NONE);
    await sleep(1000);
    let p = probe(c);
    await sleep(1000);

    // The burst: three clients, three CreateTopics at once.
    const admins = await Promise.all(Array.from({ length: BURSTS }, () => WireClient.connect(broker.port)));
    const results = await Promise.all(admins.map((a, i) => a.request(CreateTopics, 7, {
      topics: [{ name: `burst-${i}`, numPartitions: PER_BURST, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 30_000, validateOnly: false,
    }, 60_000)));
    for (const r of results) expect(r.topics[0].errorCode).toBe(ErrorCode.NONE);
    for (const a of admins) a.close();
    const burst = await allHeld(45_000);
    expectServed(await p.stop(), `burst (all ${UNITS} units held after ${burst.ms} ms)`);

    // Every partition is led by the broker, as clients see it.
    const md = await c.request(Metadata, 12, {
      topics: Array.from({ length: BURSTS }, (_, i) => ({ topicId: '00000000-0000-0000-0000-000000000000', name: `burst-${i}` })),
      allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false,
    }, 30_000);
    for (const t of md.topics) {
      expect(t.partitions).toHaveLength(PER_BURST);
      expect(t.partitions.filter((x: { leaderId: number }) => x.leaderId !== 1)).toEqual([]);
    }
    c.close();

    // SIGKILL and restart: the new process finds every lease held by the dead
    // one until it expires, then takes them all back without overloading itself.
    await broker.kill();
    await broker.restart();
    c = await WireClient.connect(broker.port);
    // The probe partition comes back like any other: produce once it is led again.
    for (let i = 0; ; i++) {
      const records = buildBatch([{ key: null, value: Buffer.from('again') }]);
      const r = await c.request(Produce, 9, { transactionalId: null, acks: 1, timeoutMs: 10_000, topicData: [{ name: 'probe', partitionData: [{ index: 0, records }] }] }, 30_000);
      if (r.responses[0].partitionResponses[0].errorCode === ErrorCode.NONE) break;
      if (i > 200) throw new Error('probe/0 not led 20 s after the restart');
      await sleep(100);
    }
    p = probe(c);
    const again = await allHeld(45_000, burst.instance);
    await sleep(1000);
    expectServed(await p.stop(), `after restart (all ${UNITS} units held ${again.ms} ms after the restart)`);
    c.close();
  });
});
