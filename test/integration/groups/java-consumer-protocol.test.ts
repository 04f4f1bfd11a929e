// Java 4.x consumers with group.protocol=consumer (KIP-848) over Runnel (or,
// with RUNNEL_TEST_TARGET=kafka, Apache Kafka): Kafka's VerifiableConsumer
// (--group-protocol consumer) splits a 6-partition topic while an idempotent
// VerifiableProducer writes; a third member joins and later leaves. Checks,
// from the consumers' own events and kafka-consumer-groups:
//   - the broker's uniform assignor gives each live member 6/n partitions,
//   - a join or leave moves only some partitions: a member present before and
//     after never loses all of its partitions (no stop-the-world rebalance),
//   - each acknowledged record is consumed exactly once (graceful moves commit
//     before revoking), and the group's lag is 0 at the end,
//   - kafka-consumer-groups --describe lists the consumer-protocol members,
//     kafka-groups --list its type, kafka-features group.version 1, and
//     `runnel group describe` its members and their partitions,
//   - a member killed with SIGKILL loses its partitions to the other once its
//     session (group.consumer.session.timeout.ms, 6 s here) expires,
//   - (Runnel only) a broker SIGKILL and restart mid-run: the restarted broker
//     loads the group from Redis, the members carry on with the partitions
//     they had, and no record is lost or read twice.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertOk, createTopic, JAVA_CP, javaCds, log4jConfig, parseJsonLines, runJava, type VerifiableEvent } from '../../helpers/java.js';
import { spawnManaged, waitFor, type ManagedProcess } from '../../helpers/procs.js';
import { startTarget, type Target } from '../../helpers/target.js';
import { idempotentProducer } from '../support.js';
import { ok, runnel } from '../cli/support.js';
import type { GroupDescription } from '../../../cli/commands/group.js';

const TOPIC = 'kip848';
const GROUP = 'kip848-group';
const PARTITIONS = 6;
const MESSAGES = 2400;

let target: Target;
beforeAll(async () => {
  // A 1 s heartbeat interval (Kafka's default is 5 s) so reassignments reach members quickly in both targets.
  // A 6 s session timeout (Kafka's default is 45 s) so a killed member's partitions move within the test.
  target = await startTarget({
    runnel: { args: ['--set', 'group.consumer.heartbeat.interval.ms=1000', '--set', 'group.consumer.session.timeout.ms=6000'] },
    kafka: { props: {
      'group.consumer.heartbeat.interval.ms': 1000, 'group.consumer.min.heartbeat.interval.ms': 1000,
      'group.consumer.session.timeout.ms': 6000, 'group.consumer.min.session.timeout.ms': 6000,
    } },
  });
});

interface TP { topic: string; partition: number }

class Consumer {
  readonly proc: ManagedProcess;
  constructor(readonly name: string, bootstrap: string) {
    this.proc = spawnManaged(`kip848-${name}`, 'java', [
      '-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', ...javaCds(true).args, `-Dlog4j2.configurationFile=${log4jConfig('WARN')}`,
      '-cp', JAVA_CP, 'org.apache.kafka.tools.VerifiableConsumer',
      '--bootstrap-server', bootstrap, '--topic', TOPIC, '--group-id', GROUP,
      '--group-protocol', 'consumer', '--reset-policy', 'earliest', '--verbose',
    ]);
  }
  events(): VerifiableEvent[] {
    return parseJsonLines(fs.readFileSync(this.proc.logFile, 'utf8'));
  }
  /** Partitions owned after each assignment event (incremental assign/revoke). */
  history(): Array<Set<number>> {
    const s = new Set<number>();
    const out: Array<Set<number>> = [];
    for (const e of this.events()) {
      const parts = (e.partitions as TP[] | undefined) ?? [];
      if (e.name === 'partitions_assigned') for (const p of parts) s.add(p.partition);
      else if (e.name === 'partitions_revoked' || e.name === 'partitions_lost') for (const p of parts) s.delete(p.partition);
      else continue;
      out.push(new Set(s));
    }
    return out;
  }
  owned(): Set<number> {
    return this.history().at(-1) ?? new Set();
  }
}

const consumers: Consumer[] = [];
afterAll(async () => {
  await Promise.all(consumers.map((c) => c.proc.stop(5000)));
  await target?.stop();
});

/** Waits until the live members own every partition exactly once, `each` apiece; returns how long that took. */
async function settle(live: Consumer[], each: number, label: string): Promise<number> {
  const t0 = Date.now();
  let last = '';
  await waitFor(`group settled (${label})`, () => {
    const sets = live.map((c) => c.owned());
    const all = sets.flatMap((s) => [...s]);
    last = live.map((c, i) => `${c.name}=[${[...sets[i]!].sort((a, b) => a - b).join(',')}]`).join(' ');
    return sets.every((s) => s.size === each) && new Set(all).size === PARTITIONS;
  }, { timeoutMs: 45_000, intervalMs: 100 }).catch((e) => { throw new Error(`${String(e)}; ownership: ${last}`); });
  const ms = Date.now() - t0;
  console.log(`[groups/kip848 ${target.kind}] settled ${label} in ${ms} ms: ${last}`);
  return ms;
}

function cgc(args: string[]) {
  return runJava('org.apache.kafka.tools.consumer.group.ConsumerGroupCommand', ['--bootstrap-server', target.bootstrap, ...args], { timeoutMs: 60_000 });
}

interface Row { logEnd: number; lag: number | null; consumerId: string }

/** `--describe` rows by partition. */
function parseDescribe(stdout: string): Map<number, Row> {
  const rows = new Map<number, Row>();
  for (const line of stdout.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f[0] !== GROUP || f[1] !== TOPIC || !/^\d+$/.test(f[2] ?? '')) continue;
    rows.set(Number(f[2]), { logEnd: Number(f[4]), lag: f[5] === '-' ? null : Number(f[5]), consumerId: f[6] ?? '' });
  }
  return rows;
}

describe('Java consumers with group.protocol=consumer (KIP-848)', () => {
  it('two members split 6 partitions; a third joins and leaves without stopping them; each record once, lag 0', async () => {
    const started = Date.now();
    const bootstrap = target.bootstrap;
    await createTopic(bootstrap, TOPIC, PARTITIONS);
    const producing = idempotentProducer({ bootstrap, topic: TOPIC, maxMessages: MESSAGES, throughput: 200 });

    const [c1, c2] = ['c1', 'c2'].map((n) => new Consumer(n, bootstrap));
    consumers.push(c1!, c2!);
    const timings: Record<string, number> = {};
    timings.initial = await settle([c1!, c2!], 3, 'c1 and c2 start (incl. JVM start)');
    const before = [c1!.history().length, c2!.history().length];

    const c3 = new Consumer('c3', bootstrap);
    consumers.push(c3);
    timings.join = await settle([c1!, c2!, c3], 2, 'c3 joined (incl. JVM start)');

    // The group describes as a consumer-protocol group with three members.
    const described = assertOk('describe members', await cgc(['--describe', '--group', GROUP, '--members']));
    expect(described.stdout.split('\n').filter((l) => l.startsWith(GROUP)).length, described.stdout).toBe(3);

    // runnel group describe falls back to ConsumerGroupDescribe: three members, each with its partitions by topic name.
    const d = JSON.parse(ok(await runnel(bootstrap, ['group', 'describe', GROUP, '--json']))) as GroupDescription;
    expect(d).toMatchObject({ protocolType: 'consumer', protocol: 'uniform' });
    expect(d.members.map((m) => m.assignment.flatMap((a) => a.partitions.map((p) => `${a.topic}-${p}`))).flat().sort()).toEqual(Array.from({ length: PARTITIONS }, (_, p) => `${TOPIC}-${p}`));
    // kafka-groups --list: the group's type is Consumer (ListGroups v5); kafka-features: group.version finalized at 1.
    const groups = assertOk('kafka-groups --list', await runJava('org.apache.kafka.tools.GroupsCommand', ['--bootstrap-server', bootstrap, '--list']));
    expect(groups.stdout, groups.stdout).toMatch(new RegExp(`^${GROUP}\\s+Consumer\\s+consumer\\s*$`, 'm'));
    const features = assertOk('kafka-features describe', await runJava('org.apache.kafka.tools.FeatureCommand', ['--bootstrap-server', bootstrap, 'describe']));
    expect(features.stdout, features.stdout).toMatch(/Feature: group\.version\s+SupportedMinVersion: 0\s+SupportedMaxVersion: 1\s+FinalizedVersionLevel: 1/);

    await c3.proc.stop(20_000);
    timings.leave = await settle([c1!, c2!], 3, 'c3 left');

    // Incremental: c1 and c2 never went without partitions while c3 came and went.
    for (const [i, c] of [c1!, c2!].entries()) {
      const sizes = c.history().slice(before[i]!).map((s) => s.size);
      expect(sizes.every((n) => n > 0), `${c.name} owned counts ${sizes.join(',')}`).toBe(true);
    }

    const ownership = (): string[] => [c1!.owned(), c2!.owned()].map((x) => [...x].sort().join(','));
    const owned = ownership();
    if (target.runnel) {
      // Coordinator failover: the group (epochs, members, assignments) and its offsets come back from Redis.
      const t0 = Date.now();
      await target.runnel.kill();
      await target.runnel.restart();
      const probe = (await cgc(['--describe', '--group', GROUP, '--members'])).stdout;
      timings.restart = Date.now() - t0;
      expect(probe.split('\n').filter((l) => l.startsWith(GROUP)).length, probe).toBe(2);
      expect(ownership()).toEqual(owned);
    }

    const produced = await producing;
    const acked = produced.events.filter((e) => e.name === 'producer_send_success') as Array<VerifiableEvent & { partition: number; offset: number }>;
    expect(acked.length).toBe(MESSAGES);
    const deliveries = (): Map<string, number> => {
      const seen = new Map<string, number>();
      for (const c of consumers) for (const e of c.events()) if (e.name === 'record_data') seen.set(`${e.partition}:${e.offset}`, (seen.get(`${e.partition}:${e.offset}`) ?? 0) + 1);
      return seen;
    };
    await waitFor('all acknowledged records consumed', () => acked.every((a) => deliveries().has(`${a.partition}:${a.offset}`)), { timeoutMs: 60_000, intervalMs: 500 });
    const seen = deliveries();
    const twice = [...seen].filter(([, n]) => n > 1).map(([k]) => k);
    expect(twice.slice(0, 5), `${twice.length} records consumed more than once`).toEqual([]);
    expect(seen.size).toBe(MESSAGES);

    // Lag 0 on every partition once the members have committed what they read.
    let rows = new Map<number, Row>();
    let out = '';
    await waitFor('lag 0', async () => {
      out = assertOk('describe', await cgc(['--describe', '--group', GROUP])).stdout;
      rows = parseDescribe(out);
      // A partition the producer never wrote to has no committed offset ('-'), as in Kafka.
      return rows.size === PARTITIONS && [...rows.values()].every((r) => r.lag === 0 || (r.lag === null && r.logEnd === 0));
    }, { timeoutMs: 30_000, intervalMs: 1000 }).catch((e) => {
      const failed = consumers.flatMap((c) => c.events().filter((x) => x.name === 'offsets_committed' && !x.success).map((x) => `${c.name}: ${JSON.stringify(x)}`));
      throw new Error(`${String(e)}\n${out}\nfailed commits: ${failed.slice(0, 5).join('\n')}`);
    });
    expect(new Set([...rows.values()].map((r) => r.consumerId)).size).toBe(2);
    // Nothing moved after c3 left (across the restart on Runnel).
    expect(ownership()).toEqual(owned);

    // A member killed (SIGKILL, no leave): its session expires and c1 gets its partitions.
    await c2!.proc.kill();
    timings.crash = await settle([c1!], PARTITIONS, 'c2 killed (session timeout 6 s)');
    console.log(`[groups/kip848 ${target.kind}] ${seen.size} records once each; timings ms ${JSON.stringify(timings)}; total ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });
});
