// Java VerifiableConsumer group over Runnel: 3 members on 12 partitions while
// an idempotent VerifiableProducer writes; members leave (gracefully and by
// SIGKILL) and join during the run. Checks, from the consumers' own events:
//   - at every settled generation each partition is owned by exactly one member,
//   - ownership intervals of one partition never overlap (no two owners at once),
//   - every acknowledged record was consumed with its value,
//   - redeliveries only of records above the offset committed before them
//     (at-least-once with commits), counted and reported.
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createTopic, JAVA_CP, javaCds, log4jConfig, parseJsonLines, type VerifiableEvent } from '../../helpers/java.js';
import { spawnManaged, waitFor, type ManagedProcess } from '../../helpers/procs.js';
import { useBroker } from '../broker-fixture.js';
import { idempotentProducer } from '../support.js';

const fx = useBroker({ args: ['--set', 'group.initial.rebalance.delay.ms=0'] });
const TOPIC = 'vgroup';
const GROUP = 'vgroup-consumers';
const PARTITIONS = 12;
const MESSAGES = 15_000;

interface TP { topic: string; partition: number }

class Consumer {
  readonly proc: ManagedProcess;
  stoppedAt: number | null = null;
  killed = false;
  constructor(readonly name: string, bootstrap: string) {
    this.proc = spawnManaged(`vc-${name}`, 'java', [
      '-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', ...javaCds(true).args, `-Dlog4j2.configurationFile=${log4jConfig('WARN')}`,
      '-cp', JAVA_CP, 'org.apache.kafka.tools.VerifiableConsumer',
      '--bootstrap-server', bootstrap, '--topic', TOPIC, '--group-id', GROUP,
      '--session-timeout', '6000', '--reset-policy', 'earliest', '--verbose',
      '--assignment-strategy', 'org.apache.kafka.clients.consumer.CooperativeStickyAssignor',
    ]);
  }
  events(): VerifiableEvent[] {
    return parseJsonLines(fs.readFileSync(this.proc.logFile, 'utf8'));
  }
  /** Partitions currently owned according to the events so far (incremental assign/revoke). */
  owned(): Set<number> {
    const s = new Set<number>();
    for (const e of this.events()) {
      const parts = (e.partitions as TP[] | undefined) ?? [];
      if (e.name === 'partitions_assigned') for (const p of parts) s.add(p.partition);
      if (e.name === 'partitions_revoked' || e.name === 'partitions_lost') for (const p of parts) s.delete(p.partition);
    }
    return s;
  }
  async stop(): Promise<void> {
    await this.proc.stop(20_000);
    this.stoppedAt = Date.now();
  }
  async kill(): Promise<void> {
    this.killed = true;
    this.stoppedAt = Date.now();
    await this.proc.kill();
  }
}

const consumers: Consumer[] = [];
afterAll(async () => {
  await Promise.all(consumers.map((c) => c.proc.stop(5000)));
});

/** Waits until the live members own every partition exactly once; returns how long that took. */
async function settle(live: Consumer[], label: string, timeoutMs = 60_000): Promise<number> {
  const t0 = Date.now();
  let last = '';
  await waitFor(`group settled (${label})`, () => {
    const sets = live.map((c) => c.owned());
    const all = sets.flatMap((s) => [...s]);
    last = live.map((c, i) => `${c.name}=[${[...sets[i]!].sort((a, b) => a - b).join(',')}]`).join(' ');
    return sets.every((s) => s.size > 0) && all.length === PARTITIONS && new Set(all).size === PARTITIONS;
  }, { timeoutMs, intervalMs: 100 }).catch((e) => { throw new Error(`${String(e)}; ownership: ${last}`); });
  const ms = Date.now() - t0;
  console.log(`[groups/java] settled ${label} in ${ms} ms: ${last}`);
  return ms;
}

describe('Java VerifiableConsumer group', () => {
  it('3 members over 12 partitions, members leaving and joining while an idempotent producer writes', async () => {
    const started = Date.now();
    const bootstrap = fx.broker.bootstrap;
    await createTopic(bootstrap, TOPIC, PARTITIONS);

    const producing = idempotentProducer({ bootstrap, topic: TOPIC, maxMessages: MESSAGES, throughput: 800 });
    const [c1, c2, c3] = ['c1', 'c2', 'c3'].map((n) => new Consumer(n, bootstrap));
    consumers.push(c1!, c2!, c3!);
    const timings: Record<string, number> = {};
    timings.initial3 = await settle([c1!, c2!, c3!], '3 members start (incl. JVM start)');

    await c2!.stop();
    timings.leave = await settle([c1!, c3!], 'c2 left gracefully');

    const c4 = new Consumer('c4', bootstrap);
    consumers.push(c4);
    timings.join = await settle([c1!, c3!, c4], 'c4 joined (incl. JVM start)');

    await c1!.kill();
    timings.crash = await settle([c3!, c4], 'c1 killed (session timeout 6 s)');

    const c5 = new Consumer('c5', bootstrap);
    consumers.push(c5);
    timings.join2 = await settle([c3!, c4, c5], 'c5 joined (incl. JVM start)');

    const produced = await producing;
    const acked = produced.events.filter((e) => e.name === 'producer_send_success') as Array<VerifiableEvent & { partition: number; offset: number; value: string }>;
    expect(acked.length).toBe(MESSAGES);
    const live = [c3!, c4, c5];

    // Wait until the live members have consumed up to the end of every partition.
    const end = new Map<number, number>();
    for (const a of acked) end.set(a.partition, Math.max(end.get(a.partition) ?? -1, a.offset));
    await waitFor('all acknowledged records consumed', () => {
      const seen = new Set<string>();
      for (const c of consumers) for (const e of c.events()) if (e.name === 'record_data') seen.add(`${e.partition}:${e.offset}`);
      return acked.every((a) => seen.has(`${a.partition}:${a.offset}`));
    }, { timeoutMs: 60_000, intervalMs: 500 });
    // The final generation, just before shutdown, is exact too.
    await settle(live, 'final generation');
    for (const c of live) await c.stop();

    // ---- analysis over every consumer's events
    type Rec = { partition: number; offset: number; value: string; ts: number; by: string };
    const records: Rec[] = [];
    const commits: Array<{ partition: number; offset: number; ts: number }> = [];
    const intervals = new Map<number, Array<{ from: number; to: number; by: string }>>();
    for (const c of consumers) {
      const open = new Map<number, number>();
      let lastTs = 0;
      for (const e of c.events()) {
        lastTs = e.timestamp;
        if (e.name === 'record_data') records.push({ partition: e.partition as number, offset: e.offset as number, value: String(e.value), ts: e.timestamp, by: c.name });
        if (e.name === 'offsets_committed' && e.success) for (const o of e.offsets as Array<TP & { offset: number }>) commits.push({ partition: o.partition, offset: o.offset, ts: e.timestamp });
        const parts = ((e.partitions as TP[] | undefined) ?? []).map((p) => p.partition);
        if (e.name === 'partitions_assigned') for (const p of parts) open.set(p, e.timestamp);
        if (e.name === 'partitions_revoked' || e.name === 'partitions_lost') {
          for (const p of parts) {
            const from = open.get(p);
            if (from !== undefined) (intervals.get(p) ?? intervals.set(p, []).get(p)!).push({ from, to: e.timestamp, by: c.name });
            open.delete(p);
          }
        }
      }
      // Still owned at exit (killed, or closed without a revoke event).
      const to = c.killed ? c.stoppedAt! : Math.max(lastTs, c.stoppedAt ?? lastTs);
      for (const [p, from] of open) (intervals.get(p) ?? intervals.set(p, []).get(p)!).push({ from, to, by: c.name });
    }
    // No two owners of one partition at the same time.
    const overlaps: string[] = [];
    for (const [p, list] of intervals) {
      list.sort((a, b) => a.from - b.from);
      for (let i = 1; i < list.length; i++) if (list[i]!.from < list[i - 1]!.to) overlaps.push(`p${p}: ${list[i - 1]!.by} until ${list[i - 1]!.to}, ${list[i]!.by} from ${list[i]!.from}`);
    }
    expect(overlaps).toEqual([]);

    // Every acknowledged record consumed with its value.
    const byKey = new Map<string, Rec[]>();
    for (const r of records) (byKey.get(`${r.partition}:${r.offset}`) ?? byKey.set(`${r.partition}:${r.offset}`, []).get(`${r.partition}:${r.offset}`)!).push(r);
    const missing = acked.filter((a) => !byKey.get(`${a.partition}:${a.offset}`)?.some((r) => r.value === a.value));
    expect(missing.slice(0, 5)).toEqual([]);
    // Nothing consumed that was not produced (dense offsets, no phantom records).
    expect(records.filter((r) => !acked.some((a) => a.partition === r.partition && a.offset === r.offset)).length).toBe(0);

    // Redelivery: only of records at or above the offset committed before the redelivery.
    let redelivered = 0;
    const violations: string[] = [];
    for (const [k, list] of byKey) {
      if (list.length < 2) continue;
      list.sort((a, b) => a.ts - b.ts);
      for (const r of list.slice(1)) {
        redelivered++;
        const committed = Math.max(-1, ...commits.filter((c) => c.partition === r.partition && c.ts < r.ts).map((c) => c.offset));
        if (r.offset < committed) violations.push(`${k} redelivered to ${r.by} at ${r.ts} below committed offset ${committed}`);
      }
    }
    // At-least-once bound: at each end of ownership, what the owner had consumed beyond the committed offset
    // may be delivered again, nothing more.
    let bound = 0;
    for (const [p, list] of intervals) {
      for (const iv of list) {
        const consumed = records.filter((r) => r.by === iv.by && r.partition === p && r.ts >= iv.from && r.ts <= iv.to);
        if (consumed.length === 0) continue;
        const maxConsumed = Math.max(...consumed.map((r) => r.offset));
        const committed = Math.max(0, ...commits.filter((c) => c.partition === p && c.ts <= iv.to).map((c) => c.offset));
        bound += Math.max(0, maxConsumed + 1 - committed);
      }
    }
    const failedCommits = consumers.reduce((n, c) => n + c.events().filter((e) => e.name === 'offsets_committed' && !e.success).length, 0);
    console.log(`[groups/java] ${records.length} deliveries of ${acked.length} records, ${redelivered} redelivered (${((100 * redelivered) / acked.length).toFixed(2)}%, at-least-once bound ${bound}), ${commits.length} commits ok, ${failedCommits} refused during rebalances; timings ms ${JSON.stringify(timings)}; total ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(violations.slice(0, 5)).toEqual([]);
    expect(redelivered).toBeLessThanOrEqual(bound);
  });
});
