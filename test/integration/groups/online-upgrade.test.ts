// Kafka's online upgrade of a classic group (group.consumer.migration.policy
// bidirectional, the default), over Runnel (or, with RUNNEL_TEST_TARGET=kafka,
// Apache Kafka 4.4): a Java 4.4 VerifiableConsumer with the classic protocol
// (an eager assignor, then a cooperative one) owns a 6-partition topic while an idempotent producer writes; a second one
// with group.protocol=consumer joins the same group, which becomes a consumer
// group with the classic member still in it (JoinGroup/SyncGroup/Heartbeat,
// made to rejoin with REBALANCE_IN_PROGRESS); the two split the partitions;
// then the consumer-protocol member leaves, the group becomes classic again
// (the downgrade) and the classic member takes them all back. Every
// acknowledged record is read (exactly once with the eager assignor, at least
// once with the cooperative one, as on Kafka) and the lag is 0.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertOk, createTopic, JAVA_CP, javaCds, log4jConfig, parseJsonLines, runJava, type VerifiableEvent } from '../../helpers/java.js';
import { spawnManaged, waitFor, type ManagedProcess } from '../../helpers/procs.js';
import { startTarget, type Target } from '../../helpers/target.js';
import { idempotentProducer } from '../support.js';

const PARTITIONS = 6;
const MESSAGES = 1600;

let target: Target;
beforeAll(async () => {
  // A 1 s heartbeat interval (Kafka's default is 5 s) so reassignments reach members quickly on both targets.
  target = await startTarget({
    runnel: { args: ['--set', 'group.consumer.heartbeat.interval.ms=1000', '--set', 'group.consumer.session.timeout.ms=6000'] },
    kafka: { props: {
      'group.consumer.heartbeat.interval.ms': 1000, 'group.consumer.min.heartbeat.interval.ms': 1000,
      'group.consumer.session.timeout.ms': 6000, 'group.consumer.min.session.timeout.ms': 6000,
    } },
  });
}, 120_000);

interface TP { topic: string; partition: number }

/** The classic member's assignor: eager (range, the Java default's first) or cooperative (incremental revocation). */
type Strategy = 'range' | 'cooperative-sticky';
const STRATEGY_CLASS: Record<Strategy, string> = {
  range: 'org.apache.kafka.clients.consumer.RangeAssignor',
  'cooperative-sticky': 'org.apache.kafka.clients.consumer.CooperativeStickyAssignor',
};

class Consumer {
  readonly proc: ManagedProcess;
  constructor(readonly name: string, bootstrap: string, protocol: 'classic' | 'consumer', readonly topic: string, group: string, strategy: Strategy = 'range') {
    this.proc = spawnManaged(`upgrade-${name}`, 'java', [
      '-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', ...javaCds(true).args, `-Dlog4j2.configurationFile=${log4jConfig('WARN')}`,
      '-cp', JAVA_CP, 'org.apache.kafka.tools.VerifiableConsumer',
      '--bootstrap-server', bootstrap, '--topic', topic, '--group-id', group,
      '--group-protocol', protocol, '--reset-policy', 'earliest', '--verbose',
      // The classic member's session (10 s) is within the classic bounds of both targets.
      ...(protocol === 'classic' ? ['--session-timeout', '10000', '--assignment-strategy', STRATEGY_CLASS[strategy]] : []),
    ]);
  }
  events(): VerifiableEvent[] {
    return parseJsonLines(fs.readFileSync(this.proc.logFile, 'utf8'));
  }
  /** How many partitions it owned after each assignment event. */
  history(): number[] {
    const s = new Set<number>();
    const out: number[] = [];
    for (const e of this.events()) {
      const parts = (e.partitions as TP[] | undefined) ?? [];
      if (e.name === 'partitions_assigned') for (const p of parts) s.add(p.partition);
      else if (e.name === 'partitions_revoked' || e.name === 'partitions_lost') for (const p of parts) s.delete(p.partition);
      else continue;
      out.push(s.size);
    }
    return out;
  }
  owned(): Set<number> {
    const s = new Set<number>();
    for (const e of this.events()) {
      const parts = (e.partitions as TP[] | undefined) ?? [];
      if (e.name === 'partitions_assigned') for (const p of parts) s.add(p.partition);
      else if (e.name === 'partitions_revoked' || e.name === 'partitions_lost') for (const p of parts) s.delete(p.partition);
    }
    return s;
  }
}

const consumers: Consumer[] = [];
afterAll(async () => {
  await Promise.all(consumers.map((c) => c.proc.stop(5000)));
  await target?.stop();
});

/** Waits until the live members own every partition exactly once, `sizes` apiece (in order). */
async function settle(live: Consumer[], sizes: number[], label: string): Promise<void> {
  let last = '';
  const t0 = Date.now();
  await waitFor(`group settled (${label})`, () => {
    const sets = live.map((c) => c.owned());
    last = live.map((c, i) => `${c.name}=[${[...sets[i]!].sort((a, b) => a - b).join(',')}]`).join(' ');
    return sets.every((s, i) => s.size === sizes[i]) && new Set(sets.flatMap((s) => [...s])).size === PARTITIONS;
  }, { timeoutMs: 60_000, intervalMs: 200 }).catch((e) => { throw new Error(`${String(e)}; ownership: ${last}`); });
  console.log(`[groups/upgrade ${target.kind}] settled ${label} in ${Date.now() - t0} ms: ${last}`);
}

function cgc(args: string[]) {
  return runJava('org.apache.kafka.tools.consumer.group.ConsumerGroupCommand', ['--bootstrap-server', target.bootstrap, ...args], { timeoutMs: 60_000 });
}

describe('online upgrade: a consumer-protocol member joins a classic group with a member', () => {
  it.each(['range', 'cooperative-sticky'] as const)('classic member with %s: the two split the partitions, then the classic one takes them back; each record read, lag 0', async (strategy) => {
    const TOPIC = `upgrade-${strategy}`;
    const GROUP = `upgrade-group-${strategy}`;
    const bootstrap = target.bootstrap;
    await createTopic(bootstrap, TOPIC, PARTITIONS);
    const producing = idempotentProducer({ bootstrap, topic: TOPIC, maxMessages: MESSAGES, throughput: 200 });

    const classic = new Consumer(`classic-${strategy}`, bootstrap, 'classic', TOPIC, GROUP, strategy);
    consumers.push(classic);
    await settle([classic], [PARTITIONS], 'classic member alone');
    const before = assertOk('kafka-groups --list', await runJava('org.apache.kafka.tools.GroupsCommand', ['--bootstrap-server', bootstrap, '--list']));
    expect(before.stdout).toMatch(new RegExp(`^${GROUP}\\s+Classic\\s+consumer\\s*$`, 'm'));

    const modern = new Consumer(`modern-${strategy}`, bootstrap, 'consumer', TOPIC, GROUP);
    consumers.push(modern);
    await settle([classic, modern], [PARTITIONS / 2, PARTITIONS / 2], 'consumer-protocol member joined');
    // The group is a consumer group now, the classic member in it.
    const after = assertOk('kafka-groups --list', await runJava('org.apache.kafka.tools.GroupsCommand', ['--bootstrap-server', bootstrap, '--list']));
    expect(after.stdout).toMatch(new RegExp(`^${GROUP}\\s+Consumer\\s+consumer\\s*$`, 'm'));

    await modern.proc.stop(20_000);
    await settle([classic], [PARTITIONS], 'consumer-protocol member left');
    // Only a classic member left: the group is classic again (the downgrade).
    await waitFor('a classic group again', async () => {
      const r = assertOk('kafka-groups --list', await runJava('org.apache.kafka.tools.GroupsCommand', ['--bootstrap-server', bootstrap, '--list']));
      return new RegExp(`^${GROUP}\\s+Classic\\s+consumer\\s*$`, 'm').test(r.stdout);
    }, { timeoutMs: 30_000, intervalMs: 1000 });

    if (strategy === 'cooperative-sticky') {
      // Incremental on both sides of the conversion: the cooperative classic member never went without partitions.
      const sizes = classic.history();
      expect(sizes.slice(sizes.indexOf(PARTITIONS)).every((n) => n > 0), `owned counts ${sizes.join(',')}`).toBe(true);
    }

    const produced = await producing;
    const acked = produced.events.filter((e) => e.name === 'producer_send_success') as Array<VerifiableEvent & { partition: number; offset: number }>;
    expect(acked.length).toBe(MESSAGES);
    const deliveries = (): Map<string, number> => {
      const seen = new Map<string, number>();
      for (const c of [classic, modern]) for (const e of c.events()) if (e.name === 'record_data') seen.set(`${e.partition}:${e.offset}`, (seen.get(`${e.partition}:${e.offset}`) ?? 0) + 1);
      return seen;
    };
    await waitFor('all acknowledged records consumed', () => acked.every((a) => deliveries().has(`${a.partition}:${a.offset}`)), { timeoutMs: 60_000, intervalMs: 500 });
    const seen = deliveries();
    const twice = [...seen].filter(([, n]) => n > 1).map(([k]) => k);
    console.log(`[groups/upgrade ${target.kind}] ${strategy}: ${twice.length} records read twice`);
    // Eager: the classic member commits before it rejoins, so nothing is read twice. Cooperative: at least once
    // (Apache Kafka 4.4 itself re-delivered 2 records of a partition moving to the consumer-protocol member).
    if (strategy === 'range') expect(twice.slice(0, 5), `${twice.length} records consumed more than once`).toEqual([]);
    expect(seen.size).toBe(MESSAGES);

    let out = '';
    await waitFor('lag 0', async () => {
      out = assertOk('describe', await cgc(['--describe', '--group', GROUP])).stdout;
      const rows = out.split('\n').map((l) => l.trim().split(/\s+/)).filter((f) => f[0] === GROUP && f[1] === TOPIC);
      return rows.length === PARTITIONS && rows.every((f) => f[5] === '0' || (f[5] === '-' && f[4] === '0'));
    }, { timeoutMs: 30_000, intervalMs: 1000 }).catch((e) => { throw new Error(`${String(e)}\n${out}`); });
  }, 300_000);
});
