// Share groups (KIP-932) with Kafka 4.x's own KafkaShareConsumer (from the
// installed jars; test/integration/groups/java/ShareConsumerApp.java) over
// Runnel, or with RUNNEL_TEST_TARGET=kafka over Apache Kafka. Checks, from
// the records and delivery counts the consumers print:
//   - two share consumers on one partition read each record once between them,
//   - a RELEASEd record is delivered again (delivery count 2), a REJECTed one never,
//   - a record RELEASEd on every delivery is delivered group.share.delivery.count.limit
//     (5) times and then archived: never again,
//   - a member killed (SIGKILL) without acknowledging: its records go to another
//     member once the acquisition lock (group.share.record.lock.duration.ms) ran out,
//   - kafka-features describe shows share.version finalized,
//   - kafka-console-share-consumer --reject: the records it rejected are never
//     delivered to the next console share consumer of the group, later ones are,
//   - kafka-share-groups (ShareGroupCommand) lists the group, describes its
//     start offset, lag and members, resets the offsets of the empty group to
//     the earliest (a new member reads everything again) and deletes it,
//   - (Runnel only) a broker SIGKILL and restart: every record acknowledged
//     before it stays acknowledged (not delivered again), and the rest is read.
// share.auto.offset.reset is Kafka's default (latest): before the records of a
// case, warm-up records are produced until every consumer has read one (the
// group's share-partition then exists and starts before the case's records).
// Records are named by their value v0, v1, ...
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTopic, JAVA_CP, log4jConfig, runJava } from '../../helpers/java.js';
import { runCommand, spawnManaged, waitFor, type ManagedProcess } from '../../helpers/procs.js';
import { startTarget, type Target } from '../../helpers/target.js';
import { compileShareConsumerApp, shareConsumer } from './share-support.js';

const LOCK_MS = 5000;

let target: Target;
let classes = '';
const running: ManagedProcess[] = [];

beforeAll(async () => {
  target = await startTarget({
    runnel: { args: ['--set', `group.share.record.lock.duration.ms=${LOCK_MS}`] },
    kafka: { props: { 'group.share.record.lock.duration.ms': LOCK_MS, 'group.share.min.record.lock.duration.ms': 1000 } },
  });
  classes = await compileShareConsumerApp();
}, 180_000);

afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop(3000)));
});

afterAll(async () => {
  await target?.stop();
});

interface Rec { event: string; partition: number; offset: number; deliveryCount: number; value: string; ack: string }

function consumer(name: string, topic: string, group: string, mode: string, maxPollRecords?: number): ManagedProcess {
  const p = shareConsumer(classes, target.bootstrap, `share-${name}`, topic, group, mode, maxPollRecords);
  running.push(p);
  return p;
}

function events(p: ManagedProcess): Rec[] {
  return fs.readFileSync(p.logFile, 'utf8').split('\n').filter((l) => l.startsWith('{"event"')).map((l) => JSON.parse(l) as Rec);
}
const records = (p: ManagedProcess): Rec[] => events(p).filter((e) => e.event === 'record');

/** Sends warm-up records until each consumer has read one. */
async function ready(topic: string, ...ps: ManagedProcess[]): Promise<void> {
  const deadline = Date.now() + 90_000;
  for (let i = 0; !ps.every((p) => events(p).some((e) => e.event === 'warm')); i++) {
    if (Date.now() > deadline) throw new Error(`no warm-up record read by ${ps.filter((p) => !events(p).some((e) => e.event === 'warm')).map((p) => p.name).join(', ')}`);
    await produceValues(topic, [`warm${i}`]);
    await new Promise((r) => setTimeout(r, 300));
  }
}

async function produceValues(topic: string, values: string[]): Promise<void> {
  const r = await runCommand('kcat', ['-b', target.bootstrap, '-P', '-t', topic, '-p', '0'], { input: values.join('\n') + '\n', timeoutMs: 60_000 });
  expect(r.code, r.stderr).toBe(0);
}

const produce = (topic: string, n: number, from = 0): Promise<void> => produceValues(topic, Array.from({ length: n }, (_, i) => `v${from + i}`));
/** The record's number n (value v<n>). */
const num = (r: Rec): number => Number(r.value.slice(1));
const range = (n: number, from = 0): number[] => Array.from({ length: n }, (_, i) => from + i);
const sorted = (xs: number[]): number[] => [...xs].sort((x, y) => x - y);

describe('Java KafkaShareConsumer (KIP-932)', () => {
  it('kafka-features describe lists share.version finalized (Runnel: supported 0-1, finalized 1, as Kafka 4.2)', async () => {
    const r = await runJava('org.apache.kafka.tools.FeatureCommand', ['--bootstrap-server', target.bootstrap, 'describe']);
    expect(r.code, r.stderr).toBe(0);
    const line = /^Feature: share\.version\s+SupportedMinVersion: (\d+)\s+SupportedMaxVersion: (\d+)\s+FinalizedVersionLevel: (\d+)\s+Epoch: \d+\s*$/m.exec(r.stdout);
    expect(line, r.stdout).not.toBeNull();
    expect(Number(line![3])).toBeGreaterThanOrEqual(1);
    if (target.kind === 'runnel') expect(line!.slice(1, 4).map(Number)).toEqual([0, 1, 1]);
    console.log(`[share ${target.kind}] ${line![0].trim()}`);
  }, 60_000);

  it('two share consumers on one partition read each record once between them', async () => {
    await createTopic(target.bootstrap, 'share-split', 1);
    // 10 records a poll (MaxRecords of each ShareFetch).
    const a = consumer('split-a', 'share-split', 'sg-split', 'accept', 10);
    const b = consumer('split-b', 'share-split', 'sg-split', 'accept', 10);
    await ready('share-split', a, b);
    // 30 batches of 10 over a few seconds: Kafka acquires whole batches, so one big batch would go to one member.
    for (let i = 0; i < 30; i++) {
      await produce('share-split', 10, i * 10);
      await new Promise((r) => setTimeout(r, 100));
    }
    const all = (): Rec[] => [...records(a), ...records(b)];
    await waitFor('300 records read', () => new Set(all().map(num)).size >= 300, { timeoutMs: 60_000, intervalMs: 250 });
    await new Promise((r) => setTimeout(r, 1500));
    const rs = all();
    expect(rs.length).toBe(300);
    expect(sorted(rs.map(num))).toEqual(range(300));
    expect(rs.every((r) => r.deliveryCount === 1)).toBe(true);
    // Both members shared the partition.
    expect(records(a).length).toBeGreaterThan(0);
    expect(records(b).length).toBeGreaterThan(0);
    console.log(`[share ${target.kind}] split: a read ${records(a).length}, b read ${records(b).length}`);
  }, 120_000);

  it('a released record is delivered again; a rejected one is not', async () => {
    await createTopic(target.bootstrap, 'share-acks', 1);
    const rel = consumer('release', 'share-acks', 'sg-release', 'release-first');
    const rej = consumer('reject', 'share-acks', 'sg-reject', 'reject-odd');
    await ready('share-acks', rel, rej);
    await produce('share-acks', 20);
    await waitFor('released records redelivered', () => records(rel).filter((r) => r.deliveryCount === 2).length >= 20, { timeoutMs: 60_000, intervalMs: 250 });
    await waitFor('rejecting consumer read all', () => records(rej).length >= 20, { timeoutMs: 60_000, intervalMs: 250 });
    await new Promise((r) => setTimeout(r, LOCK_MS + 1000));
    const released = records(rel);
    expect(released.length).toBe(40);
    for (let n = 0; n < 20; n++) expect(released.filter((r) => num(r) === n).map((r) => r.deliveryCount)).toEqual([1, 2]);
    const rejected = records(rej);
    expect(rejected.length).toBe(20);
    expect(sorted(rejected.map(num))).toEqual(range(20));
    expect(rejected.filter((r) => num(r) % 2 === 1).every((r) => r.ack === 'REJECT')).toBe(true);
  }, 120_000);

  it('a record released on every delivery is archived at the delivery-count limit (5)', async () => {
    await createTopic(target.bootstrap, 'share-limit', 1);
    const c = consumer('limit', 'share-limit', 'sg-limit', 'release-always');
    await ready('share-limit', c);
    await produce('share-limit', 3);
    await waitFor('5 deliveries each', () => records(c).length >= 15, { timeoutMs: 60_000, intervalMs: 250 });
    await new Promise((r) => setTimeout(r, LOCK_MS + 1000));
    const rs = records(c);
    expect(rs.length).toBe(15);
    for (let n = 0; n < 3; n++) expect(rs.filter((r) => num(r) === n).map((r) => r.deliveryCount)).toEqual([1, 2, 3, 4, 5]);
  }, 120_000);

  it('the records of a member killed without acknowledging go to another member after the lock duration', async () => {
    await createTopic(target.bootstrap, 'share-kill', 1);
    const holder = consumer('holder', 'share-kill', 'sg-kill', 'hold');
    await ready('share-kill', holder);
    await produce('share-kill', 10);
    await waitFor('the holder acquired 10', () => records(holder).length >= 10, { timeoutMs: 60_000, intervalMs: 200 });
    await holder.kill();
    const killedAt = Date.now();
    const other = consumer('other', 'share-kill', 'sg-kill', 'accept');
    await waitFor('the other member read the 10', () => records(other).length >= 10, { timeoutMs: 60_000, intervalMs: 200 });
    const took = Date.now() - killedAt;
    const rs = records(other);
    expect(sorted(rs.map(num))).toEqual(range(10));
    expect(rs.every((r) => r.deliveryCount === 2)).toBe(true);
    // Not before the lock ran out (it started at the holder's acquisition, before the kill).
    expect(took).toBeGreaterThan(LOCK_MS - 3000);
    console.log(`[share ${target.kind}] killed member's records redelivered after ${took} ms (lock ${LOCK_MS} ms)`);
  }, 120_000);

  it.runIf(process.env.RUNNEL_TEST_TARGET !== 'kafka')('(Runnel) a broker SIGKILL and restart loses no acknowledgement', async () => {
    await createTopic(target.bootstrap, 'share-crash', 1);
    const c = consumer('crash', 'share-crash', 'sg-crash', 'accept');
    await ready('share-crash', c);
    await produce('share-crash', 100);
    await waitFor('100 read and acknowledged', () => records(c).length >= 100, { timeoutMs: 60_000, intervalMs: 200 });
    // commitSync ran after the last poll's records: give it time to be answered before the crash.
    await new Promise((r) => setTimeout(r, 2000));
    const before = records(c).length;
    await target.runnel!.kill();
    await target.runnel!.restart();
    await produce('share-crash', 100, 100);
    await waitFor('the next 100 read', () => new Set(records(c).map(num)).size >= 200, { timeoutMs: 90_000, intervalMs: 250 });
    await new Promise((r) => setTimeout(r, LOCK_MS + 1000));
    const rs = records(c);
    expect(before).toBe(100);
    // Acknowledged before the crash: never delivered again.
    expect(rs.filter((r) => num(r) < 100).length).toBe(100);
    expect(sorted([...new Set(rs.map(num))])).toEqual(range(200));
    expect(rs.length).toBe(200);
  }, 180_000);

  it('kafka-share-groups lists, describes, resets and deletes a share group', async () => {
    const tool = async (...args: string[]): Promise<string> => {
      const r = await runJava('org.apache.kafka.tools.consumer.group.ShareGroupCommand', ['--bootstrap-server', target.bootstrap, ...args]);
      expect(r.code, `${args.join(' ')}:\n${r.stdout}\n${r.stderr}`).toBe(0);
      return r.stdout;
    };
    await createTopic(target.bootstrap, 'share-admin', 1);
    const c = consumer('admin', 'share-admin', 'sg-admin', 'accept');
    await ready('share-admin', c);
    await produce('share-admin', 20);
    await waitFor('20 read', () => records(c).length >= 20, { timeoutMs: 60_000, intervalMs: 200 });
    const warm = events(c).filter((e) => e.event === 'warm');
    // Every record up to the log end is acknowledged: the lag is 0 and the start offset past the warm-up records
    // (Runnel moves it to the log end at once; Kafka's stored start offset may trail the acknowledged records).
    const firstRecord = Math.min(...records(c).map((r) => r.offset));
    const logEnd = Math.max(...records(c).map((r) => r.offset)) + 1;
    expect(await tool('--list')).toMatch(/^sg-admin$/m);
    let lastOffsets = '';
    /** `--describe --offsets` rows of share-admin: partition, start offset, lag. */
    const offsets = async (): Promise<Array<{ partition: number; start: number; lag: number }>> => {
      const out = await tool('--describe', '--offsets', '--group', 'sg-admin');
      lastOffsets = out;
      return out.split('\n').filter((l) => /^sg-admin\s+share-admin\s/.test(l)).map((l) => {
        const [, , partition, start, lag] = l.trim().split(/\s+/);
        return { partition: Number(partition), start: Number(start), lag: Number(lag) };
      });
    };
    await waitFor('lag 0', async () => (await offsets()).some((o) => o.partition === 0 && o.lag === 0 && o.start >= firstRecord), { timeoutMs: 30_000, intervalMs: 1000 })
      .catch((e: unknown) => { throw new Error(`${String(e)}; records ${firstRecord}..${logEnd - 1}; last --describe --offsets:\n${lastOffsets}`); });
    const [row] = await offsets();
    expect(row!.start).toBeGreaterThanOrEqual(firstRecord);
    expect(row!.start).toBeLessThanOrEqual(logEnd);
    if (target.kind === 'runnel') expect(row!.start).toBe(logEnd);
    const members = await tool('--describe', '--members', '--group', 'sg-admin');
    expect(members).toMatch(/share-admin:0/);
    console.log(`[share ${target.kind}] kafka-share-groups --describe --members:\n${members}`);

    // The group must be empty to be reset: the member leaves.
    await c.stop(10_000);
    await waitFor('the group is empty', async () => !/share-admin:0/.test(await tool('--describe', '--members', '--group', 'sg-admin')), { timeoutMs: 60_000, intervalMs: 1000 });
    await tool('--reset-offsets', '--to-earliest', '--execute', '--group', 'sg-admin', '--topic', 'share-admin');
    expect((await offsets())[0]?.start).toBe(0);
    const again = consumer('admin-again', 'share-admin', 'sg-admin', 'accept');
    await waitFor('everything read again', () => records(again).length >= 20, { timeoutMs: 60_000, intervalMs: 200 });
    expect(sorted(records(again).map(num))).toEqual(range(20));
    expect(events(again).filter((e) => e.event === 'warm').length).toBeGreaterThanOrEqual(warm.length);
    await again.stop(10_000);

    await waitFor('the group is empty', async () => !/share-admin:0/.test(await tool('--describe', '--members', '--group', 'sg-admin')), { timeoutMs: 60_000, intervalMs: 1000 });
    await tool('--delete', '--group', 'sg-admin');
    expect(await tool('--list')).not.toMatch(/^sg-admin$/m);
  }, 240_000);

  it('kafka-console-share-consumer: rejected records are not delivered again, later ones are', async () => {
    await createTopic(target.bootstrap, 'share-console', 1);
    const console = (name: string, ...extra: string[]): ManagedProcess => {
      const p = spawnManaged(`share-${name}`, 'java', ['-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', `-Dlog4j2.configurationFile=${log4jConfig('WARN')}`,
        '-cp', JAVA_CP, 'org.apache.kafka.tools.consumer.ConsoleShareConsumer', '--bootstrap-server', target.bootstrap, '--topic', 'share-console', '--group', 'sg-console', ...extra]);
      running.push(p);
      return p;
    };
    const printed = (p: ManagedProcess): string[] => fs.readFileSync(p.logFile, 'utf8').split('\n').filter((l) => /^(v|warm)\d+$/.test(l));
    const rejecting = console('console-reject', '--reject');
    // Warm-up records until the console consumer prints one (its share-partition then exists).
    for (let i = 0; !printed(rejecting).some((l) => l.startsWith('warm')); i++) {
      if (i > 300) throw new Error('no warm-up record printed');
      await produceValues('share-console', [`warm${i}`]);
      await new Promise((r) => setTimeout(r, 300));
    }
    await produce('share-console', 5);
    await waitFor('v0..v4 printed (and rejected)', () => printed(rejecting).filter((l) => l.startsWith('v')).length >= 5, { timeoutMs: 60_000, intervalMs: 200 });
    await rejecting.stop(10_000);
    const accepting = console('console-accept');
    await produce('share-console', 5, 5);
    await waitFor('v5..v9 printed', () => printed(accepting).filter((l) => l.startsWith('v')).length >= 5, { timeoutMs: 60_000, intervalMs: 200 });
    await new Promise((r) => setTimeout(r, 2000));
    expect(printed(accepting).filter((l) => l.startsWith('v'))).toEqual(['v5', 'v6', 'v7', 'v8', 'v9']);
  }, 180_000);
});
