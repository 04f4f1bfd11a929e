// `runnel status` against a live Redis and two brokers: the registered
// brokers, every partition's leader (one of them), the log end offsets of what
// kcat produced, the archived offset and lake lag, consumer groups with their
// lag (log end - committed; per partition with --verbose), and Redis memory;
// the table prints too. Also: a broker's start-up log has one leadership summary
// line per tick instead of one line per unit.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keys } from '../../common/keys.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { RUNNEL_CLI, startRunnel, type RunnelBroker } from '../helpers/runnel.js';
import { runCommand, waitFor } from '../helpers/procs.js';
import { commitSimpleOffsets } from '../helpers/wire.js';
import type { StatusReport } from '../../broker/src/storage/redis/status-report.js';

const PARTITIONS = 4;
const SLOTS = 50;
let redis: RedisServer;
const brokers: RunnelBroker[] = [];
const args = (id: number): string[] => ['--node-id', String(id), '--set', `num.partitions=${PARTITIONS}`, '--set', 'leadership.tick.ms=200', '--set', `offsets.topic.num.partitions=${SLOTS}`];

beforeAll(async () => {
  redis = await startRedis();
  for (const id of [1, 2]) brokers.push(await startRunnel({ redisUrl: redis.url, args: args(id) }));
}, 120_000);

afterAll(async () => {
  for (const b of brokers) await b.stop().catch(() => undefined);
  await redis?.stop();
});

const status = async (extra: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  runCommand(process.execPath, [RUNNEL_CLI, 'status', '--redis', redis.url, ...extra], { timeoutMs: 30_000 });

describe('runnel status', () => {
  it('reports brokers, partition leaders, log ends, lake lag and redis memory', async () => {
    const sent = [3, 1, 0, 5];
    for (let p = 0; p < PARTITIONS; p++) {
      if (sent[p] === 0) continue;
      const lines = Array.from({ length: sent[p]! }, (_, i) => `k${i}:v${p}-${i}\n`).join('');
      const r = await runCommand('kcat', ['-b', brokers[0]!.bootstrap, '-P', '-t', 'st', '-p', String(p), '-K:'], { input: lines, timeoutMs: 30_000 });
      expect(r.code, r.stderr).toBe(0);
    }
    // A group's committed offsets (through whichever broker coordinates it): lag = log end - committed.
    await waitFor('offsets committed', async () => {
      const codes = await Promise.all(brokers.map((b) => commitSimpleOffsets(b.port, 'st-group', 'st', [1, 1, 0, 2])));
      return codes.some((c) => c.every((e) => e === 0));
    }, { timeoutMs: 10_000, intervalMs: 200 });
    let report: StatusReport | null = null;
    // Leadership settles within a few ticks once both brokers see each other.
    await waitFor('every partition led', async () => {
      const r = await status(['--json']);
      expect(r.code, r.stderr).toBe(0);
      report = JSON.parse(r.stdout) as StatusReport;
      const t = report.topics.find((x) => x.name === 'st');
      return Boolean(t && t.partitions.every((p) => p.leader !== null));
    }, { timeoutMs: 20_000, intervalMs: 300 });
    const rep = report as unknown as StatusReport;
    expect(rep.brokers.filter((b) => b.live).map((b) => b.nodeId)).toEqual([1, 2]);
    expect(rep.brokers.map((b) => b.port).sort()).toEqual(brokers.map((b) => b.port).sort());
    const st = rep.topics.find((t) => t.name === 'st')!;
    expect(st.partitions.map((p) => p.partition)).toEqual([0, 1, 2, 3]);
    for (const p of st.partitions) {
      expect([1, 2]).toContain(p.leader);
      expect(p.leaderInstance).toMatch(new RegExp(`^${p.leader}:`));
      expect(p.leaderEpoch).toBeGreaterThan(0);
      expect(p.logEndOffset).toBe(sent[p.partition]);
      expect(p.archivedOffset).toBeNull();
      expect(p.lakeLagRecords).toBeNull();
    }
    expect(rep.redis.length).toBe(redis.cluster ? 3 : 1);
    for (const m of rep.redis) {
      expect(m.usedMemory).toBeGreaterThan(0);
      expect(m.usedMemoryHuman).toMatch(/^[\d.]+[BKMG]$/);
    }

    // An archived offset (as the archiver publishes it) gives the lake lag: next - 1 - archived.
    if (!redis.cluster) {
      const keys = new Keys('rn');
      expect(await redis.command(`HSET ${keys.meta({ topic: 'st', partition: 3 })} archived 1`)).toMatch(/^:/);
      const after = JSON.parse((await status(['--json'])).stdout) as StatusReport;
      const p3 = after.topics.find((t) => t.name === 'st')!.partitions[3]!;
      expect(p3).toMatchObject({ archivedOffset: 1, lakeLagRecords: 3, logEndOffset: 5 });
    }

    const g = rep.groups.find((x) => x.groupId === 'st-group')!;
    expect(g).toMatchObject({ state: 'Empty', members: [], totalLag: (3 - 1) + (1 - 1) + (0 - 0) + (5 - 2) });
    expect(g.partitions.map((p) => [p.partition, p.committedOffset, p.logEndOffset, p.lag])).toEqual([[0, 1, 3, 2], [1, 1, 1, 0], [2, 0, 0, 0], [3, 2, 5, 3]]);
    const human = await status(['--verbose']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/\n {2}group\s+state\s+members\s+partitions\s+lag\n {2}st-group\s+Empty\s+0\s+4\s+5\n/);
    expect(human.stdout).toMatch(/group\s+topic\s+partition\s+committed\s+log end\s+lag\s+client/);
    for (const [p, c, end, lag] of [[0, 1, 3, 2], [1, 1, 1, 0], [2, 0, 0, 0], [3, 2, 5, 3]]) {
      expect(human.stdout).toMatch(new RegExp(`\\n {2}st-group\\s+st\\s+${p}\\s+${c}\\s+${end}\\s+${lag}\\s+-\\n`));
    }

    expect(human.stdout).toMatch(/^brokers \(2 live\)/);
    expect(human.stdout).toMatch(/topic\s+partition\s+leader\s+epoch\s+log start\s+log end\s+archived\s+lake lag/);
    for (const p of st.partitions) expect(human.stdout).toMatch(new RegExp(`\\n\\s+st\\s+${p.partition}\\s+[12]\\s+\\d+\\s+0\\s+${sent[p.partition]}\\s`));
    expect(human.stdout).toMatch(/groups \(1\)\n/);
    expect(human.stdout).toMatch(/memory \(\d primar/);
    expect(human.stdout).toMatch(/used/);
  });

  it('--help lists the flags; a missing --redis is named', async () => {
    const help = await runCommand(process.execPath, [RUNNEL_CLI, 'status', '--help'], { timeoutMs: 20_000 });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--json/);
    expect(help.stdout).toMatch(/-V, --verbose/);
    expect(help.stdout).toMatch(/--redis/);
  });
});

describe('broker start-up log', () => {
  it('summarises leadership changes: one line per tick, per-unit lines only at debug', async () => {
    const log = fs.readFileSync(brokers[0]!.proc().logFile, 'utf8').split('\n').filter((l) => l.startsWith('{'));
    const events = log.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.filter((e) => e.msg === 'leadership acquired' || e.msg === 'leadership released')).toEqual([]);
    const changes = events.filter((e) => e.msg === 'leadership changed');
    // Broker 1 started alone: its first tick took every coordinator slot, in one line.
    expect(changes[0]).toMatchObject({ level: 'info', acquired: SLOTS, released: 0, acquiredCoordinatorSlots: `0-${SLOTS - 1}` });
    expect(changes.length).toBeLessThan(SLOTS);
    // Handing units over to broker 2 is summarised too.
    await waitFor('a release summary', async () => fs.readFileSync(brokers[0]!.proc().logFile, 'utf8').includes('"releasedCoordinatorSlots"'), { timeoutMs: 10_000 });
  });
});
