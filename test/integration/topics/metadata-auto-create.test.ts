// Issue 27, defect 6: a Metadata request naming 2,000 unknown topics is
// answered at once, LEADER_NOT_AVAILABLE (5) for each (Kafka's
// AutoTopicCreationManager answer while it creates them), and the topics are
// created in bulk in the background: a later Metadata finds every one.
// Before, the broker created them one at a time (re-reading every topic
// record for each) and the request timed out. Asking again while the
// creation runs creates nothing twice; past cluster.max.partitions the rest
// is not created (UNKNOWN_TOPIC_OR_PARTITION, as a synchronous refusal was).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metadata } from '../../../broker/src/protocol/messages/metadata.js';
import { ErrorCode } from '../../../common/errors.js';
import { waitFor } from '../../helpers/procs.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { WireClient } from '../../helpers/wire.js';

let redis: RedisServer;
let broker: RunnelBroker;
let c: WireClient;
const ZERO = '00000000-0000-0000-0000-000000000000';

beforeAll(async () => {
  redis = await startRedis();
  broker = await startRunnel({ redisUrl: redis.url, args: ['--set', 'cluster.max.partitions=2500'] });
  c = await WireClient.connect(broker.port);
});

afterAll(async () => {
  c?.close();
  await broker?.stop();
  await redis?.stop();
});

const metadata = async (names: string[], allowAutoTopicCreation: boolean): Promise<Array<{ name: string; errorCode: number; partitions: unknown[] }>> =>
  (await c.request(Metadata, 12, { topics: names.map((name) => ({ topicId: ZERO, name })), allowAutoTopicCreation, includeTopicAuthorizedOperations: false }, 60_000)).topics;

const countBy = (codes: number[]): Record<number, number> => codes.reduce<Record<number, number>>((m, x) => ({ ...m, [x]: (m[x] ?? 0) + 1 }), {});

describe('Metadata auto-creation of many topics', () => {
  it('answers 2,000 unknown topics at once with LEADER_NOT_AVAILABLE and creates them all in the background', async () => {
    const names = Array.from({ length: 2000 }, (_, i) => `auto-${i}`);
    const t0 = Date.now();
    const first = await metadata(names, true);
    const answeredMs = Date.now() - t0;
    expect(first.map((t) => t.name)).toEqual(names);
    expect(countBy(first.map((t) => t.errorCode))).toEqual({ [ErrorCode.LEADER_NOT_AVAILABLE]: 2000 });
    expect(answeredMs).toBeLessThan(5_000);
    // The same names again while they are being created: answered at once, nothing created twice.
    const again = await metadata(names.slice(0, 100), true);
    expect(again.every((t) => t.errorCode === ErrorCode.LEADER_NOT_AVAILABLE || t.errorCode === ErrorCode.NONE)).toBe(true);
    await waitFor('all 2,000 topics exist', async () => (await metadata(names, false)).every((t) => t.errorCode === ErrorCode.NONE), { timeoutMs: 30_000, intervalMs: 250 });
    const later = await metadata(names, false);
    expect(later.every((t) => t.partitions.length === 1)).toBe(true);
    // One record per topic, each with its own id in the id index.
    expect(await redis.command('HLEN rn:topics')).toMatch(/^:2001\r\n$/); // + __consumer_offsets
    expect(await redis.command('HLEN rn:topic-ids')).toMatch(/^:2001\r\n$/);
    console.log(`2,000 unknown topics: answered in ${answeredMs} ms, all created ${Date.now() - t0} ms after the request`);
  });

  it('creates no more than cluster.max.partitions allows; the rest is UNKNOWN_TOPIC_OR_PARTITION', async () => {
    // 2,000 partitions exist, the limit is 2,500: 500 more fit.
    const names = Array.from({ length: 800 }, (_, i) => `more-${i}`);
    const first = await metadata(names, true);
    expect(countBy(first.map((t) => t.errorCode))).toEqual({ [ErrorCode.LEADER_NOT_AVAILABLE]: 500, [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]: 300 });
    await waitFor('500 topics exist', async () => (await metadata(names, false)).filter((t) => t.errorCode === ErrorCode.NONE).length === 500, { timeoutMs: 30_000, intervalMs: 250 });
    expect(await redis.command('HLEN rn:topics')).toMatch(/^:2501\r\n$/);
  });
});
