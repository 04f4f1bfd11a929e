// The CLI on two Runnel brokers sharing one Redis: produce and consume go to
// each partition's leader (both brokers lead some), whichever broker they
// start from; group describe asks the group's coordinator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { waitFor } from '../../helpers/procs.js';
import type { GroupDescription } from '../../../cli/commands/group.js';
import { ok, runnel } from './support.js';

let redis: RedisServer;
const brokers: RunnelBroker[] = [];

beforeAll(async () => {
  redis = await startRedis();
  for (const id of [1, 2]) brokers.push(await startRunnel({ redisUrl: redis.url, args: ['--node-id', String(id), '--set', 'leadership.tick.ms=200', '--set', 'offsets.topic.num.partitions=10'] }));
}, 120_000);

afterAll(async () => {
  for (const b of brokers) await b.stop().catch(() => undefined);
  await redis?.stop();
});

describe('runnel produce/consume on two brokers', () => {
  it('routes every partition to its leader', async () => {
    const [b1, b2] = brokers.map((b) => b.bootstrap) as [string, string];
    ok(await runnel(b1, ['topic', 'create', 'cli-two', '--partitions', '6']));
    await waitFor('both brokers lead partitions', async () => {
      const d = JSON.parse(ok(await runnel(b2, ['topic', 'describe', 'cli-two', '--json']))) as { partitions: Array<{ leader: number }> };
      const leaders = new Set(d.partitions.map((p) => p.leader));
      return leaders.has(1) && leaders.has(2) && !leaders.has(-1);
    }, { timeoutMs: 30_000, intervalMs: 300 });
    const lines = Array.from({ length: 3000 }, (_, i) => `k${i}\tv${i}`);
    ok(await runnel(b1, ['produce', 'cli-two', '--parse-key'], { input: `${lines.join('\n')}\n` }));
    const got = ok(await runnel(b2, ['consume', 'cli-two', '--from-beginning', '--max-messages', '3000', '--print-key', '--group', 'two'])).split('\n').filter(Boolean);
    expect(got.sort()).toEqual([...lines].sort());
    const d = JSON.parse(ok(await runnel(b1, ['group', 'describe', 'two', '--json']))) as GroupDescription;
    expect(d.partitions.reduce((a, p) => a + (p.committed ?? 0), 0)).toBe(3000);
    expect(d.partitions.every((p) => p.lag === 0)).toBe(true);
  });
});
