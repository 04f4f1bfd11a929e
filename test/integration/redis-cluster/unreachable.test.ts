// A cluster whose node announces an address nobody can reach (here: a
// one-node cluster that never met another node announces an empty IP in
// CLUSTER SLOTS) never becomes ready. The broker says so, with the reason, and
// exits after redis.connection.timeout.ms, instead of hanging silently with no
// port open.
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { RUNNEL_CLI } from '../../helpers/runnel.js';
import { freePort, HOST, spawnManaged, waitFor, type ManagedProcess } from '../../helpers/procs.js';

let redis: RedisServer | undefined;
let broker: ManagedProcess | undefined;

afterAll(async () => {
  await broker?.stop(3000);
  await redis?.stop();
});

describe('a cluster that cannot be reached as announced', () => {
  it('says "not ready within" with the advice and exits after redis.connection.timeout.ms, instead of hanging silently', async () => {
    redis = await startRedis({ cluster: false, args: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf'] });
    expect(await redis.command('CLUSTER ADDSLOTSRANGE 0 16383')).toMatch(/OK/);
    await waitFor('cluster_state:ok', async () => /cluster_state:ok/.test(await redis!.command('CLUSTER INFO')), { timeoutMs: 10_000 });
    const port = await freePort();
    broker = spawnManaged(`runnel-unreachable-${port}`, process.execPath, [RUNNEL_CLI, 'broker', '--host', HOST, '--port', String(port), '--redis', redis.url, '--set', 'redis.connection.timeout.ms=2000']);
    const exit = await Promise.race([broker.exited, new Promise<null>((r) => setTimeout(() => r(null), 15_000))]);
    expect(exit?.code).toBe(1);
    expect(fs.readFileSync(broker.logFile, 'utf8')).toMatch(/cannot connect to redis at .*redis cluster not ready within 2000 ms .*reachable at the address it announces.*gave up after 1 attempt in 2000 ms/);
  });
});
