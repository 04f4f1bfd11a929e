// Even placement on a real 3-primary Redis Cluster: for topics of 1, 6, 16
// and 48 partitions every primary holds within one partition of an even
// share, the choice is stored with the topic (a restarted broker and grown
// topics keep it), and `runnel placement` tells the truth: each partition's
// keys really are on the primary it names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisCluster, type RedisCluster } from '../../helpers/redis-cluster.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { wireCreateTopic } from '../../helpers/faults.js';
import { runCommand } from '../../helpers/procs.js';
import { kafkaTopics } from '../../helpers/java.js';
import { countsOf, holderOf, placementReport } from './support.js';

let cluster: RedisCluster;
let broker: RunnelBroker;

beforeAll(async () => {
  cluster = await startRedisCluster({ primaries: 3, replicasPerPrimary: 0 });
  broker = await startRunnel({ redisUrl: cluster.seeds });
});

afterAll(async () => {
  await broker?.stop();
  await cluster?.stop();
});

function expectEven(counts: Map<string, number>, n: number): void {
  expect(counts.size).toBe(3);
  for (const [node, c] of counts) {
    expect(Math.abs(c - n / 3), `${node} holds ${c} of ${n}`).toBeLessThan(1);
  }
}

describe('partition placement on a 3-primary cluster', () => {
  it('spreads topics of 1, 6, 16 and 48 partitions within one partition of an even share', async () => {
    for (const n of [1, 6, 16, 48]) expect(await wireCreateTopic(broker.port, `even-${n}`, n)).toBe(0);
    const report = await placementReport(cluster.seeds);
    expect(report.cluster).toBe(true);
    const table: string[] = [];
    for (const n of [1, 6, 16, 48]) {
      const counts = countsOf(report, `even-${n}`);
      expectEven(counts, n);
      table.push(`${String(n).padStart(2)} partitions: ${[...counts.values()].join(' / ')}`);
    }
    // __consumer_offsets (the broker creates it, one partition per coordinator slot) is spread evenly too,
    expectEven(new Map(report.primaries.map((p) => [p.node, p.partitions.filter((x) => x.startsWith('__consumer_offsets/')).length])), 50);
    // and over all topics (71 + 50 partitions) the primaries are balanced.
    expectEven(new Map(report.primaries.map((p) => [p.node, p.partitions.length])), 121);
    console.log(`placement per primary (${report.primaries.map((p) => p.node).join(' / ')}):\n  ${table.join('\n  ')}`);
  });

  it('puts every partition key on the primary the report names, and counts its bytes there', async () => {
    const topic = 'even-6';
    for (let p = 0; p < 6; p++) {
      const r = await runCommand('kcat', ['-b', broker.bootstrap, '-P', '-t', topic, '-p', String(p)], { input: `record-${p}\n`.repeat(200), timeoutMs: 30_000 });
      expect(r.code, r.stderr).toBe(0);
    }
    const report = await placementReport(cluster.seeds);
    const record = JSON.parse((await cluster.clusterCommand(['HGET', 'rn:topics', topic])).split('\r\n')[1]!) as { placement: number[] };
    expect(record.placement).toHaveLength(6);
    for (let p = 0; p < 6; p++) {
      const salt = record.placement[p]!;
      const key = `rn:p:{${topic}/${p}${salt ? `/${salt}` : ''}}:log`;
      const owner = await cluster.slotOwner(cluster.keySlot(key));
      expect(`${owner.host}:${owner.port}`).toBe(holderOf(report, topic, p));
      // the stream is on that node itself (no redirection) and holds the records
      expect(await owner.command(['XLEN', key])).toMatch(/^:[1-9]/);
    }
    for (const p of report.primaries) if (p.partitions.some((x) => x.startsWith(`${topic}/`))) expect(p.bytes).toBeGreaterThan(0);
  });

  it('keeps the stored placement across a broker restart and places grown partitions evenly', async () => {
    const before = await placementReport(cluster.seeds);
    await broker.stop();
    broker = await startRunnel({ redisUrl: cluster.seeds });
    const grown = await kafkaTopics(broker.bootstrap, ['--alter', '--topic', 'even-6', '--partitions', '12']);
    expect(grown.code, grown.stderr).toBe(0);
    const after = await placementReport(cluster.seeds);
    for (let p = 0; p < 6; p++) expect(holderOf(after, 'even-6', p)).toBe(holderOf(before, 'even-6', p));
    expectEven(countsOf(after, 'even-6'), 12);
  });

  it('keeps salt 0 for partitions of a record written without placement when the topic grows (their keys never move)', async () => {
    // A topic record from before placement existed (single-node era, or an older Runnel).
    const legacy = JSON.stringify({ id: '3d4f1c2e-0000-4000-8000-00000000beef', partitions: 12, configs: {}, created: Date.now() });
    expect(await cluster.clusterCommand(['HSET', 'rn:topics', 'legacy', legacy])).toMatch(/^:1/);
    expect(await cluster.clusterCommand(['HSET', 'rn:topic-ids', '3d4f1c2e-0000-4000-8000-00000000beef', 'legacy'])).toMatch(/^:1/);
    await broker.stop();
    broker = await startRunnel({ redisUrl: cluster.seeds });
    for (let p = 0; p < 12; p++) {
      const sent = await runCommand('kcat', ['-b', broker.bootstrap, '-P', '-t', 'legacy', '-p', String(p)], { input: `before-growth-${p}\n`, timeoutMs: 30_000 });
      expect(sent.code, sent.stderr).toBe(0);
    }
    const grown = await kafkaTopics(broker.bootstrap, ['--alter', '--topic', 'legacy', '--partitions', '15']);
    expect(grown.code, grown.stderr).toBe(0);
    const record = JSON.parse((await cluster.clusterCommand(['HGET', 'rn:topics', 'legacy'])).split('\r\n')[1]!) as { partitions: number; placement: number[] };
    expect(record.partitions).toBe(15);
    expect(record.placement.slice(0, 12)).toEqual(new Array(12).fill(0));
    expect(record.placement).toHaveLength(15);
    for (let p = 0; p < 12; p++) {
      const read = await runCommand('kcat', ['-b', broker.bootstrap, '-C', '-t', 'legacy', '-p', String(p), '-o', 'beginning', '-e', '-q'], { timeoutMs: 30_000 });
      expect(read.stdout.trim()).toBe(`before-growth-${p}`);
    }
  });
});
