// `runnel status` against a live Redis and two brokers: the registered
// brokers, every partition's leader (one of them), the log end offsets of what
// kcat produced, the archived offset and lake lag, consumer groups with their
// lag (log end - committed; per partition with --verbose), and Redis memory;
// the table prints too; `__consumer_offsets` (with --internal) led by the
// coordinator slots' holders; status and placement next to a `runnel broker`
// with its embedded Redis and no --redis. Also: a broker's start-up log has one leadership summary
// line per tick instead of one line per unit.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keys } from '../../common/keys.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { apiVersionsProbe, RUNNEL_CLI, startRunnel, type RunnelBroker } from '../helpers/runnel.js';
import { freePort, runCommand, spawnManaged, waitFor, waitForPort } from '../helpers/procs.js';
import { commitSimpleOffsets } from '../helpers/wire.js';
import type { StatusReport } from '../../broker/src/redis/status-report.js';

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

  it('__consumer_offsets: hidden unless --internal; then every partition is led by its coordinator slot\'s holder with the slot\'s epoch', async () => {
    const plain = JSON.parse((await status(['--json'])).stdout) as StatusReport;
    expect(plain.topics.map((t) => t.name)).not.toContain('__consumer_offsets');
    expect((await status()).stdout).not.toContain('__consumer_offsets');
    let offsets: StatusReport['topics'][number] | undefined;
    await waitFor('every __consumer_offsets partition led', async () => {
      const r = await status(['--json', '--internal']);
      expect(r.code, r.stderr).toBe(0);
      offsets = (JSON.parse(r.stdout) as StatusReport).topics.find((t) => t.name === '__consumer_offsets');
      return Boolean(offsets && offsets.partitions.every((p) => p.leader !== null));
    }, { timeoutMs: 20_000, intervalMs: 300 });
    expect(offsets!.partitions.map((p) => p.partition)).toEqual(Array.from({ length: SLOTS }, (_, i) => i));
    const keys = new Keys('rn');
    for (const p of offsets!.partitions) {
      expect([1, 2]).toContain(p.leader);
      expect(p.leaderEpoch).toBeGreaterThan(0);
      // the lease it is led under is the coordinator slot's, and the epoch is the slot's coordinator epoch
      if (p.partition % 10 === 0 && !redis.cluster) {
        expect(await redis.command(`GET ${keys.coordinatorLease(p.partition)}`)).toContain(`${p.leader}:`);
        expect(await redis.command(`GET ${keys.coordinatorEpoch(p.partition)}`)).toContain(String(p.leaderEpoch));
      }
    }
    const human = (await status(['--internal'])).stdout;
    expect(human).not.toMatch(/__consumer_offsets\s+\d+\s+none\s/);
    expect(human.match(/\n\s+__consumer_offsets\s+\d+\s+[12]\s/g)?.length).toBe(SLOTS);
  });

  it('--help lists the flags; a missing --redis is named', async () => {
    const help = await runCommand(process.execPath, [RUNNEL_CLI, 'status', '--help'], { timeoutMs: 20_000 });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--json/);
    expect(help.stdout).toMatch(/-V, --verbose/);
    expect(help.stdout).toMatch(/--redis/);
    expect(help.stdout).toMatch(/--internal/);
  });
});

describe('runnel status and placement next to `runnel broker` (embedded Redis)', () => {
  it('find the embedded Redis through data/redis.url as the archiver does; with none, say what is missing', async () => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'runnel-status-embedded-'));
    const port = await freePort();
    const broker = spawnManaged('status-embedded-broker', process.execPath, [RUNNEL_CLI, 'broker', '--port', String(port)], { cwd });
    try {
      await waitForPort(port, { proc: broker, timeoutMs: 30_000 });
      await waitFor('ApiVersions', async () => (await apiVersionsProbe(port)).errorCode === 0, { proc: broker, timeoutMs: 30_000 });
      const r = await runCommand('kcat', ['-b', `127.0.0.1:${port}`, '-P', '-t', 'demo'], { input: 'hello\n', timeoutMs: 30_000 });
      expect(r.code, r.stderr).toBe(0);
      let out = '';
      await waitFor('demo led', async () => {
        const st = await runCommand(process.execPath, [RUNNEL_CLI, 'status'], { cwd, timeoutMs: 30_000 });
        expect(st.code, st.stderr).toBe(0);
        out = st.stdout;
        return /\n\s+demo\s+0\s+1\s+\d+\s+0\s+1\s/.test(out);
      }, { timeoutMs: 20_000, intervalMs: 300 });
      expect(out).toMatch(/^brokers \(1 live\)/);
      expect(out).toMatch(/topics \(1\)\n/);
      const placement = await runCommand(process.execPath, [RUNNEL_CLI, 'placement', '--json'], { cwd, timeoutMs: 30_000 });
      expect(placement.code, placement.stderr).toBe(0);
      const url = fs.readFileSync(path.join(cwd, 'data', 'redis.url'), 'utf8').trim();
      const rows = (JSON.parse(placement.stdout) as { primaries: Array<{ node: string; partitions: string[] }> }).primaries;
      expect(rows.map((x) => `redis://${x.node}`)).toEqual([url]);
      expect(rows[0]!.partitions).toContain('demo/0');
    } finally {
      await broker.stop(15_000);
    }
    const none = await runCommand(process.execPath, [RUNNEL_CLI, 'status'], { cwd, timeoutMs: 30_000 });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`runnel status needs --redis (or redis.url / RUNNEL_REDIS_URL), or a running \`runnel broker\` with its embedded Redis in the data folder (no ${path.join(cwd, 'data', 'redis.url')}`);
    fs.rmSync(cwd, { recursive: true, force: true });
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
