// A broker SIGKILLed at any point of a compaction pass leaves a correct log:
// the pass writes its result aside and swaps it in with one script, so a
// crash before the swap leaves the old log (and a scratch stream the next
// pass drops), and a crash after it leaves the new one. Four brokers in turn
// die at the four crash points of the same partition's passes; a fifth reads
// the log: exactly the compacted result, every offset once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { waitFor } from '../../helpers/procs.js';
import { connect, createTopic, expectedCompacted, produce, readAll, rec, FAST_COMPACTION, type ReadRecord } from './support.js';

let redis: RedisServer;
const brokers: RunnelBroker[] = [];

beforeAll(async () => { redis = await startRedis(); }, 60_000);
afterAll(async () => {
  for (const b of brokers) await b.stop().catch(() => undefined);
  await redis?.stop();
});

const FAST_LEASES = ['--set', 'broker.lease.ms=1000', '--set', 'leadership.tick.ms=200'];

function start(nodeId: number, crashAt: string | null): Promise<RunnelBroker> {
  const env: Record<string, string> = { RUNNEL_LOG_CLEANER_BACKOFF_MS: '200' };
  if (crashAt) env.RUNNEL_TEST_CLEANER_CRASH_POINTS = `${crashAt}:1`;
  return startRunnel({ redisUrl: redis.url, env, args: [...FAST_LEASES, '--set', `node.id=${nodeId}`] }).then((b) => { brokers.push(b); return b; });
}

const TOPIC = 'crashy';
const meta = async (field: string): Promise<string> => (await redis.command(`HGET rn:p:{${TOPIC}/0}:meta ${field}`)).trim();
const exists = async (suffix: string): Promise<boolean> => (await redis.command(`EXISTS rn:p:{${TOPIC}/0}:${suffix}`)).trim() === ':1';

describe('compaction survives SIGKILL at every step', () => {
  it('mapped / writing / written / swapped: the log stays whole and ends compacted', async () => {
    let broker = await start(1, 'cleaner-mapped');
    let c = await connect(broker.bootstrap);
    await createTopic(c, TOPIC, FAST_COMPACTION);
    const written: ReadRecord[] = [];
    // One batch of 300 records cycling over 15 keys, so no pass can start (and
    // kill the broker) before the input is complete: the newest batch is never
    // compacted, so the first pass waits for the batch after it.
    const batch = Array.from({ length: 300 }, (_, i) => rec(`k${i % 15}`, `v${Math.floor(i / 15)}-${i}`));
    const r = await produce(c, TOPIC, batch);
    expect(r.errorCode).toBe(0);
    batch.forEach((x, i) => written.push({ offset: r.baseOffset + i, key: x.key!.toString(), value: x.value!.toString() }));
    await new Promise((r) => setTimeout(r, 300));
    const last = await produce(c, TOPIC, [rec('k0', 'newest')]);
    written.push({ offset: last.baseOffset, key: 'k0', value: 'newest' });
    c.close();
    const want = expectedCompacted(written, last.baseOffset, { tombstones: true });

    const steps: Array<{ crashAt: string; after: () => Promise<void> }> = [
      // Killed after mapping the keys: nothing written anywhere.
      { crashAt: 'cleaner-mapped', after: async () => { expect(await meta('cleanedTo')).toBe('$-1'); expect(await exists('clog-new')).toBe(false); } },
      // Killed after the first chunk of the new prefix: it sits aside, unused.
      { crashAt: 'cleaner-writing', after: async () => { expect(await meta('cleanedTo')).toBe('$-1'); expect(await exists('clog-new')).toBe(true); } },
      // Killed with the new prefix complete but not swapped in.
      { crashAt: 'cleaner-written', after: async () => { expect(await meta('cleanedTo')).toBe('$-1'); expect(await exists('clog-new')).toBe(true); } },
      // Killed right after the swap: the new log is in place.
      { crashAt: 'cleaner-swapped', after: async () => { expect(await meta('cleanedTo')).toMatch(/^\$\d+\r\n300$/); expect(await exists('clog-new')).toBe(false); } },
    ];
    for (const [i, step] of steps.entries()) {
      if (i > 0) broker = await start(i + 1, step.crashAt);
      const exit = await Promise.race([broker.proc().exited, new Promise<null>((r) => setTimeout(() => r(null), 20_000))]);
      expect(exit, `broker ${i + 1} should have died at ${step.crashAt}`).toMatchObject({ signal: 'SIGKILL' });
      await step.after();
    }

    broker = await start(9, null);
    c = await connect(broker.bootstrap);
    let got: ReadRecord[] = [];
    await waitFor('the survivor to serve the compacted log', async () => {
      got = await readAll(c, TOPIC).catch(() => []);
      return JSON.stringify(got) === JSON.stringify(want);
    }, { timeoutMs: 20_000, intervalMs: 300 }).catch(() => undefined);
    expect(got).toEqual(want);
    // The producer side is intact too: the log end and the next append continue densely.
    const next = await produce(c, TOPIC, [rec('k1', 'after')]);
    expect(next).toMatchObject({ errorCode: 0, baseOffset: 301 });
    c.close();
  }, 120_000);
});
