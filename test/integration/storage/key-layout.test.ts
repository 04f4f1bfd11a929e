// The key layout is a versioned contract (docs/redis-keys.md): a store
// written by layout 1 (topics, no layout key) or with an unknown layout is
// refused at start with the reason; a layout-2 store (same keys, no placement
// salts) is upgraded to layout 3 in place and its topics keep working.
// Runnel-only (Kafka has no Redis): skipped with RUNNEL_TEST_TARGET=kafka.
import { afterEach, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { brokerExit, startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { runCommand } from '../../helpers/procs.js';
import { targetKindFromEnv } from '../../helpers/target.js';

const onKafka = targetKindFromEnv() === 'kafka';

let redis: RedisServer | undefined;
let broker: RunnelBroker | undefined;

afterEach(async () => {
  await broker?.stop().catch(() => undefined);
  await redis?.stop().catch(() => undefined);
  broker = redis = undefined;
});

const record = (partitions: number): string => JSON.stringify({ id: '6f1f6c8e-1111-4c1c-9c1c-00000000abcd', partitions, configs: {}, created: Date.now() });

describe.skipIf(onKafka)('key layout version', () => {
  it('refuses a layout-1 store (topics but no layout key) and an unknown layout, saying why', async () => {
    redis = await startRedis({ cluster: false });
    expect(await redis.command(`HSET rn:topics old '${record(1)}'`)).toMatch(/:1/);
    const a = await brokerExit(redis.url);
    expect(a.exit.code).not.toBe(0);
    expect(a.log).toMatch(/before key layout 3/);
    expect(await redis.command('SET rn:layout 9')).toMatch(/OK/);
    const b = await brokerExit(redis.url);
    expect(b.exit.code).not.toBe(0);
    expect(b.log).toMatch(/use key layout 9; this broker speaks layout 3/);
  });

  it('upgrades a layout-2 store in place; its topic keeps its keys and records', async () => {
    redis = await startRedis({ cluster: false });
    expect(await redis.command('SET rn:layout 2')).toMatch(/OK/);
    expect(await redis.command(`HSET rn:topics kept '${record(1)}'`)).toMatch(/:1/);
    expect(await redis.command('HSET rn:topic-ids 6f1f6c8e-1111-4c1c-9c1c-00000000abcd kept')).toMatch(/:1/);
    broker = await startRunnel({ redisUrl: redis.url });
    expect(await redis.command('GET rn:layout')).toMatch(/\r\n3\r\n/);
    const p = await runCommand('kcat', ['-b', broker.bootstrap, '-P', '-t', 'kept', '-p', '0'], { input: 'a\nb\n', timeoutMs: 30_000 });
    expect(p.code, p.stderr).toBe(0);
    // layout-2 key names (no salt) hold the data
    expect(await redis.command("XLEN 'rn:p:{kept/0}:log'")).toMatch(/^:[12]/);
    const c = await runCommand('kcat', ['-b', broker.bootstrap, '-C', '-t', 'kept', '-e', '-q', '-o', 'beginning'], { timeoutMs: 30_000 });
    expect(c.stdout.trim().split('\n')).toEqual(['a', 'b']);
  });
});
