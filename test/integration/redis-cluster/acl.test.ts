// The least-privilege Redis ACL user documented in docs/redis-cluster.md
// (Redis Enterprise section) is enough for everything a broker does on a
// cluster: start-up checks, topics, fenced appends with acks=all, fetches, a
// consumer group with committed offsets, and `runnel placement`. The user is
// created on every node (ACLs are per node) with exactly the documented rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisCluster, type RedisCluster } from '../../helpers/redis-cluster.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { readAll, wireCreateTopic } from '../../helpers/faults.js';
import { runCommand } from '../../helpers/procs.js';
import { placementReport } from './support.js';

/** The rule, as documented (docs/redis-cluster.md). */
export const RUNNEL_ACL = '~rn:* +@stream +@hash +@string +@keyspace +@sortedset +@set +@transaction +@scripting +wait +waitaof +info +ping +memory|usage +command|info +cluster|slots +cluster|nodes +cluster|info +config|get';

let cluster: RedisCluster;
let broker: RunnelBroker;
let seeds: string;

beforeAll(async () => {
  cluster = await startRedisCluster({ primaries: 3, replicasPerPrimary: 0 });
  // WAITAOF (and so +waitaof) exists from Redis 7.2 / Valkey 8 on; Debian's redis-server 7.0 refuses the name.
  const hasWaitAof = !/^\*1\r\n(\*-1|\$-1|_)\r\n/.test(await cluster.nodes[0]!.command('COMMAND INFO WAITAOF'));
  const rule = hasWaitAof ? RUNNEL_ACL : RUNNEL_ACL.replace(' +waitaof', '');
  for (const n of cluster.nodes) expect(await n.command(`ACL SETUSER runnel on >pw-1234 ${rule}`)).toMatch(/OK/);
  seeds = cluster.seeds.replace('redis://', 'redis://runnel:pw-1234@');
  broker = await startRunnel({ redisUrl: seeds });
});

afterAll(async () => {
  await broker?.stop();
  await cluster?.stop();
});

describe('a least-privilege ACL user on a cluster', () => {
  it('serves produce (acks=all), fetch, a consumer group and the placement report', async () => {
    expect(await wireCreateTopic(broker.port, 'acl', 6)).toBe(0);
    const lines = Array.from({ length: 300 }, (_, i) => `v${i}`).join('\n') + '\n';
    const p = await runCommand('kcat', ['-b', broker.bootstrap, '-P', '-t', 'acl', '-X', 'acks=all', '-X', 'enable.idempotence=true'], { input: lines, timeoutMs: 30_000 });
    expect(p.code, p.stderr).toBe(0);
    expect((await readAll(broker.bootstrap, 'acl')).length).toBe(300);
    const g = await runCommand('kcat', ['-b', broker.bootstrap, '-G', 'acl-group', 'acl', '-e', '-q', '-X', 'auto.offset.reset=earliest', '-X', 'enable.auto.commit=true', '-X', 'auto.commit.interval.ms=100'], { timeoutMs: 60_000 });
    expect(g.code, g.stderr).toBe(0);
    expect(g.stdout.split('\n').filter(Boolean).length).toBe(300);
    // the group's offsets were written as the ACL user (group keys live under rn:g:{...})
    expect(await cluster.clusterCommand(['HLEN', 'rn:g:{acl-group}:offsets'])).toMatch(/^:[1-6]/);
    const report = await placementReport(seeds);
    // The topic's 6 partitions (the broker's own __consumer_offsets is in the report too).
    expect(report.primaries.reduce((a, x) => a + x.partitions.filter((q) => q.startsWith('acl/')).length, 0)).toBe(6);
    // the broker's connections are the ACL user's
    const list = await cluster.nodes[0]!.command('CLIENT LIST');
    expect(list).toMatch(/user=runnel/);
  });
});
