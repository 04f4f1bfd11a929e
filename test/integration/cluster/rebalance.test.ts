// Brokers joining or leaving move leadership gradually: a newcomer takes over
// its share a few partitions per tick, never all at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metadata } from '../../../broker/src/protocol/messages/metadata.js';
import { CreateTopics } from '../../../broker/src/protocol/messages/create-topics.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { sleep } from '../../helpers/procs.js';
import { WireClient } from '../../helpers/wire.js';

const HANDOFF = 2;
const TICK = 400;
let redis: RedisServer;
const brokers: RunnelBroker[] = [];
const args = (id: number) => ['--node-id', String(id), '--set', 'leadership.tick.ms=' + TICK, '--set', `leadership.handoff.per.tick=${HANDOFF}`, '--set', 'offsets.topic.num.partitions=4'];

beforeAll(async () => {
  redis = await startRedis();
  brokers.push(await startRunnel({ redisUrl: redis.url, args: args(1) }));
});

afterAll(async () => {
  for (const b of brokers) await b.stop().catch(() => undefined);
  await redis?.stop();
});

async function leaders(port: number): Promise<number[]> {
  const c = await WireClient.connect(port);
  try {
    const r = await c.request(Metadata, 12, { topics: [{ topicId: '00000000-0000-0000-0000-000000000000', name: 'spread' }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    return r.topics[0].partitions.map((p: { leaderId: number }) => p.leaderId);
  } finally {
    c.close();
  }
}

describe('leadership rebalancing', () => {
  it('a joining broker takes its share gradually', async () => {
    const c = await WireClient.connect(brokers[0]!.port);
    await c.request(CreateTopics, 7, { topics: [{ name: 'spread', numPartitions: 24, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000 });
    c.close();
    for (let i = 0; i < 20 && !(await leaders(brokers[0]!.port)).every((l) => l === 1); i++) await sleep(200);
    expect((await leaders(brokers[0]!.port)).every((l) => l === 1)).toBe(true);

    brokers.push(await startRunnel({ redisUrl: redis.url, args: args(2) }));
    const samples: number[] = [];
    for (let i = 0; i < 40; i++) {
      samples.push((await leaders(brokers[0]!.port)).filter((l) => l === 2).length);
      await sleep(TICK / 2);
    }
    const final = samples[samples.length - 1]!;
    console.log(`partitions led by the newcomer, sampled every ${TICK / 2} ms: ${samples.join(' ')}`);
    expect(final).toBeGreaterThanOrEqual(6); // roughly half of 24 by rendezvous hashing
    expect(final).toBeLessThanOrEqual(18);
    // never more than a few per tick (two samples per tick; allow one tick of slack for timing)
    for (let i = 1; i < samples.length; i++) expect(samples[i]! - samples[i - 1]!).toBeLessThanOrEqual(2 * HANDOFF);
    expect(samples.findIndex((n) => n === final)).toBeGreaterThan(2);
  });
});
