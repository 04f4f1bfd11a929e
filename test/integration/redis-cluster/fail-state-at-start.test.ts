// A cluster that reports cluster_state:fail when the broker first connects
// (every cluster does for about 2 s after it is created or its primaries
// restart) becomes ready a moment later. Opening it must succeed then, not
// wait out redis.connection.timeout.ms: ioredis's first connect() never
// settles after a failed ready check, so common/redis/connect.ts also
// listens for 'ready'. Here the fail state lasts until the last slots are
// assigned (cluster-require-full-coverage), so it is not a matter of timing.
import { afterAll, describe, expect, it } from 'vitest';
import { openRedis, type RedisClient } from '../../../common/redis/connect.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { sleep } from '../../helpers/procs.js';

let redis: RedisServer | undefined;
let client: RedisClient | undefined;

afterAll(async () => {
  client?.disconnect();
  await redis?.stop();
});

describe('a cluster in the fail state at connect time', () => {
  it('is opened as soon as it turns ok, well before the connection timeout', async () => {
    redis = await startRedis({ cluster: false, args: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-announce-ip', '127.0.0.1'] });
    expect(await redis.command('CLUSTER ADDSLOTSRANGE 0 16000')).toMatch(/OK/);
    expect(await redis.command('CLUSTER INFO')).toMatch(/cluster_state:fail/);
    const t0 = Date.now();
    const opening = openRedis(redis.url, {}, 8_000);
    await sleep(1_500);
    expect(await redis.command('CLUSTER ADDSLOTSRANGE 16001 16383')).toMatch(/OK/);
    const opened = await opening;
    client = opened.client;
    const took = Date.now() - t0;
    expect(opened.cluster).toBe(true);
    expect(took).toBeLessThan(6_000);
    expect(await client.set('fail-state-key', 'v')).toBe('OK');
  });
});
