// Apache Kafka's kafka-consumer-groups (ConsumerGroupCommand from kafka-tools)
// against Runnel: --list, --describe with offsets/lag checked against known
// numbers, --reset-offsets (earliest, latest, datetime, shift-by) with
// --execute, and --delete.
import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertOk, runJava } from '../../helpers/java.js';
import { waitFor } from '../../helpers/procs.js';
import { useBroker } from '../broker-fixture.js';

const { Kafka, logLevel } = kafkajs;
const fx = useBroker({ args: ['--set', 'group.initial.rebalance.delay.ms=0'] });
const TOPIC = 'cg-topic';
const GROUP = 'cg-group';
const COUNTS = [10, 20, 30];
const BASE = Date.parse('2024-01-01T00:00:00.000Z');

function cgc(args: string[]) {
  return runJava('org.apache.kafka.tools.consumer.group.ConsumerGroupCommand', ['--bootstrap-server', fx.broker.bootstrap, ...args], { timeoutMs: 120_000 });
}

interface Row { topic: string; partition: number; current: number | null; logEnd: number; lag: number | null; consumerId: string }

/** Rows of `--describe` (the first six columns never contain blanks). */
function parseDescribe(stdout: string): Row[] {
  const rows: Row[] = [];
  for (const line of stdout.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f[0] !== GROUP || f.length < 6 || !/^\d+$/.test(f[2]!)) continue;
    const num = (s: string): number | null => (s === '-' ? null : Number(s));
    rows.push({ topic: f[1]!, partition: Number(f[2]), current: num(f[3]!), logEnd: Number(f[4]), lag: num(f[5]!), consumerId: f[6] ?? '' });
  }
  return rows.sort((a, b) => a.partition - b.partition);
}

/** Rows of `--reset-offsets` output: GROUP TOPIC PARTITION NEW-OFFSET. */
function parseReset(stdout: string): number[] {
  const out: number[] = [];
  for (const line of stdout.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f[0] === GROUP && f[1] === TOPIC && f.length === 4) out[Number(f[2])] = Number(f[3]);
  }
  return out;
}

async function describeOffsets(): Promise<Row[]> {
  const r = assertOk('describe', await cgc(['--describe', '--group', GROUP]));
  return parseDescribe(r.stdout);
}

async function reset(how: string[]): Promise<number[]> {
  const r = assertOk(`reset ${how.join(' ')}`, await cgc(['--reset-offsets', '--group', GROUP, '--topic', TOPIC, ...how, '--execute']));
  const next = parseReset(r.stdout);
  expect(next, r.stdout).toHaveLength(3);
  // What --describe reports afterwards is what was written.
  expect((await describeOffsets()).map((x) => x.current)).toEqual(next);
  return next;
}

const kafka = () => new Kafka({ clientId: 'cg', brokers: [fx.broker.bootstrap], logLevel: logLevel.NOTHING });

let t0 = 0;
beforeAll(async () => {
  t0 = Date.now();
  const admin = kafka().admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 3 }] });
  await admin.disconnect();
  const producer = kafka().producer();
  await producer.connect();
  for (let p = 0; p < 3; p++) {
    // Record i of every partition has timestamp BASE + i s.
    await producer.send({ topic: TOPIC, messages: Array.from({ length: COUNTS[p]! }, (_, i) => ({ partition: p, value: `v${i}`, timestamp: String(BASE + i * 1000) })) });
  }
  await producer.disconnect();
});

afterAll(() => {
  console.log(`[groups/consumer-groups] total ${((Date.now() - t0) / 1000).toFixed(1)} s`);
});

describe('kafka-consumer-groups', () => {
  it('--list and --describe an active group with known offsets and lag; reset refused while active', async () => {
    const consumer = kafka().consumer({ groupId: GROUP, sessionTimeout: 10_000, heartbeatInterval: 1000, maxWaitTimeInMs: 200 });
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    let seen = 0;
    await consumer.run({ autoCommit: false, eachMessage: async () => { seen++; } });
    await waitFor('consumer joined and read', () => seen === 60, { timeoutMs: 60_000, intervalMs: 50 });
    await consumer.commitOffsets([{ topic: TOPIC, partition: 0, offset: '4' }, { topic: TOPIC, partition: 1, offset: '8' }, { topic: TOPIC, partition: 2, offset: '30' }]);
    try {
      const list = assertOk('list', await cgc(['--list']));
      expect(list.stdout.split('\n').map((l) => l.trim())).toContain(GROUP);
      const rows = await describeOffsets();
      expect(rows.map((r) => [r.partition, r.current, r.logEnd, r.lag])).toEqual([[0, 4, 10, 6], [1, 8, 20, 12], [2, 30, 30, 0]]);
      for (const r of rows) expect(r.consumerId).toMatch(/^kafkajs-|^cg-/);
      const state = assertOk('describe --state', await cgc(['--describe', '--group', GROUP, '--state']));
      expect(state.stdout).toMatch(/Stable/);
      expect(state.stdout).toMatch(/RoundRobinAssigner/);
      const members = assertOk('describe --members', await cgc(['--describe', '--group', GROUP, '--members']));
      const memberRows = members.stdout.split('\n').filter((l) => l.startsWith(GROUP));
      expect(memberRows).toHaveLength(1);
      expect(memberRows[0]!.trim().split(/\s+/).pop()).toBe('3'); // #PARTITIONS
      // Offsets of a live group cannot be reset.
      const refused = await cgc(['--reset-offsets', '--group', GROUP, '--topic', TOPIC, '--to-earliest', '--execute']);
      expect(refused.stdout + refused.stderr).toMatch(/inactive|current state is Stable/i);
      expect((await describeOffsets()).map((r) => r.current)).toEqual([4, 8, 30]);
    } finally {
      await consumer.disconnect();
    }
  });

  it('--reset-offsets --to-earliest / --to-latest / --to-datetime / --shift-by with --execute on the now empty group', async () => {
    const inactive = assertOk('describe', await cgc(['--describe', '--group', GROUP]));
    expect(inactive.stdout + inactive.stderr).toMatch(/Consumer group 'cg-group' has no active members/);
    expect(await reset(['--to-earliest'])).toEqual([0, 0, 0]);
    expect((await describeOffsets()).map((r) => r.lag)).toEqual([10, 20, 30]);
    expect(await reset(['--to-latest'])).toEqual([10, 20, 30]);
    expect((await describeOffsets()).map((r) => r.lag)).toEqual([0, 0, 0]);
    expect(await reset(['--to-datetime', '2024-01-01T00:00:05.000Z'])).toEqual([5, 5, 5]);
    expect(await reset(['--to-datetime', '2024-01-01T00:00:14.500Z'])).toEqual([10, 15, 15]);
    expect(await reset(['--shift-by', '-2'])).toEqual([8, 13, 13]);
    expect(await reset(['--shift-by', '100'])).toEqual([10, 20, 30]); // clamped to the log end
    // Dry run (no --execute) changes nothing.
    const dry = assertOk('dry run', await cgc(['--reset-offsets', '--group', GROUP, '--topic', TOPIC, '--to-earliest', '--dry-run']));
    expect(parseReset(dry.stdout)).toEqual([0, 0, 0]);
    expect((await describeOffsets()).map((r) => r.current)).toEqual([10, 20, 30]);
  });

  it('--delete removes the group and its offsets', async () => {
    const del = assertOk('delete', await cgc(['--delete', '--group', GROUP]));
    expect(del.stdout).toMatch(/Deletion of requested consumer groups \('cg-group'\) was successful/);
    const list = assertOk('list', await cgc(['--list']));
    expect(list.stdout.split('\n').map((l) => l.trim())).not.toContain(GROUP);
    const again = await cgc(['--delete', '--group', GROUP]);
    expect(again.stdout + again.stderr).toMatch(/does not exist|GroupIdNotFound/);
  });
});
