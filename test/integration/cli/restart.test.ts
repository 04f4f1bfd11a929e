// A running `runnel consume` rides out a restart of its broker: it reconnects
// and prints what is produced afterwards, each record once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { waitFor, type ManagedProcess } from '../../helpers/procs.js';
import { ok, runnel, runnelProcess } from './support.js';

let redis: RedisServer;
let broker: RunnelBroker;
let consumer: ManagedProcess | undefined;

beforeAll(async () => {
  redis = await startRedis();
  broker = await startRunnel({ redisUrl: redis.url });
}, 120_000);

afterAll(async () => {
  await consumer?.kill();
  await broker?.stop();
  await redis?.stop();
});

const printed = (p: ManagedProcess): string[] => p.tail(100_000).split('\n').filter((l) => l.startsWith('r-'));

describe('runnel consume across a broker restart', () => {
  it('reconnects and reads on from its position', async () => {
    ok(await runnel(broker.bootstrap, ['topic', 'create', 'cli-restart', '--partitions', '2']));
    const c = runnelProcess('cli-restart-consumer', broker.bootstrap, ['consume', 'cli-restart', '--from-beginning']);
    consumer = c;
    const batch = (from: number): string => `${Array.from({ length: 10 }, (_, i) => `r-${from + i}`).join('\n')}\n`;
    ok(await runnel(broker.bootstrap, ['produce', 'cli-restart'], { input: batch(0) }));
    await waitFor('the first 10 printed', () => printed(c).length === 10, { timeoutMs: 20_000, intervalMs: 200, proc: c });
    await broker.restart();
    ok(await runnel(broker.bootstrap, ['produce', 'cli-restart'], { input: batch(10) }));
    await waitFor('all 20 printed', () => printed(c).length >= 20, { timeoutMs: 60_000, intervalMs: 200, proc: c });
    expect(printed(c).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `r-${i}`).sort());
    expect(c.tail()).toContain('reconnecting');
    expect((await c.stop()).code).toBe(0);
  });
});
