// Acceptance tests with Apache Kafka's own Java tools and Java client
// (kafka-tools / kafka-clients 4.x from .cache/java/lib, see test/setup/install.sh).
//
// Target (see test/helpers/target.ts):
//   RUNNEL_TEST_TARGET=runnel (default)  Runnel on Redis/Valkey (RUNNEL_TEST_BACKEND=redis|valkey)
//   RUNNEL_TEST_TARGET=kafka             a real Apache Kafka 4.x KRaft node (reference)
//
// Environment flags:
//   RUNNEL_GROUPS          consumer-group dependent parts run against Runnel by default
//                          (VerifiableConsumer, ConsumerPerformance). They always run
//                          against Kafka; RUNNEL_GROUPS=0 forces the group-free paths.
//   RUNNEL_SKIP_PERF=1     skip the 300,000-record ProducerPerformance test
//                          (test/run-all.sh sets it for the valkey pass).
//   RUNNEL_PERF_RECORDS=N  record count for that test (default 300000: ~300 MiB through one
//                          partition, enough batches to prove the tool end to end; speed is
//                          measured by npm run bench, not here).
//
// Every test prints its wall time; logs of every JVM and server are under
// .cache/test-logs.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertOk,
  compileJava,
  consoleConsumeCount,
  consumerPerf,
  createTopic,
  describeTopic,
  errorLines,
  getOffsets,
  kafkaConfigs,
  kafkaJarVersion,
  kafkaTopics,
  listTopics,
  parseConfigDescribe,
  producerPerf,
  runJava,
  verifiableConsumer,
  verifiableProducer,
  type VerifiableEvent,
} from '../helpers/java.js';
import { logFilePath, REPO_ROOT, waitFor } from '../helpers/procs.js';
import { groupsEnabled, startTarget, targetKindFromEnv, type Target } from '../helpers/target.js';

const KIND = targetKindFromEnv();
const GROUPS = groupsEnabled(KIND);
const SKIP_PERF = process.env.RUNNEL_SKIP_PERF === '1';
const PERF_RECORDS = Number(process.env.RUNNEL_PERF_RECORDS ?? 100_000);

let target: Target;

function timed(label: string, started: number): void {
  // eslint-disable-next-line no-console
  console.log(`[java-tools/${KIND}] ${label}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

function sum(m: Map<number, number>): number {
  let s = 0;
  for (const v of m.values()) s += v;
  return s;
}

beforeAll(async () => {
  const t0 = Date.now();
  target = await startTarget();
  timed(`target up (${KIND}${target.redis ? `/${target.redis.flavor}` : ''}, kafka jars ${kafkaJarVersion()}) at ${target.bootstrap}`, t0);
});

afterAll(async () => {
  await target?.stop();
});

describe(`Java tools against ${KIND}`, () => {
  // ------------------------------------------------------------------ perf ---
  it.skipIf(SKIP_PERF)(`ProducerPerformance ${PERF_RECORDS} x 1024 B, then read all back`, async () => {
    const t0 = Date.now();
    const topic = 'perf-1k';
    await createTopic(target.bootstrap, topic, 1);

    const pp = await producerPerf({ bootstrap: target.bootstrap, topic, numRecords: PERF_RECORDS, recordSize: 1024 });
    timed(`ProducerPerformance ${pp.records} rec, ${pp.recordsPerSec.toFixed(0)} rec/s, ${pp.mbPerSec} MB/s, p99 ${pp.p99} ms`, t0);
    expect(pp.raw.code, pp.raw.stderr.slice(-3000)).toBe(0);
    expect(pp.records).toBe(PERF_RECORDS);
    expect(errorLines(pp.raw.stderr)).toEqual([]);

    const latest = await getOffsets(target.bootstrap, topic, -1);
    const earliest = await getOffsets(target.bootstrap, topic, -2);
    expect(sum(latest)).toBe(PERF_RECORDS);
    expect([...earliest.values()]).toEqual([0]);

    const t1 = Date.now();
    if (GROUPS) {
      const cp = await consumerPerf({ bootstrap: target.bootstrap, topic, numRecords: PERF_RECORDS, group: 'perf-consumer-group' });
      timed(`ConsumerPerformance ${cp.records} rec, ${cp.recordsPerSec.toFixed(0)} rec/s, ${cp.mbPerSec} MB/s`, t1);
      expect(cp.raw.code, cp.raw.stderr.slice(-3000)).toBe(0);
      expect(cp.records).toBe(PERF_RECORDS);
      expect(cp.mb).toBeCloseTo((PERF_RECORDS * 1024) / (1024 * 1024), 1);
    } else {
      // No consumer groups yet: console consumer in assign mode.
      const cc = await consoleConsumeCount({ bootstrap: target.bootstrap, topic, partition: 0, maxMessages: PERF_RECORDS });
      timed(`ConsoleConsumer (assign) ${cc.count} rec`, t1);
      expect(cc.raw.code, cc.raw.stderr.slice(-3000)).toBe(0);
      expect(cc.count).toBe(PERF_RECORDS);
    }
    timed('perf test total', t0);
  });

  // ------------------------------------------------------------ verifiable ---
  it('VerifiableProducer (acks=all) + VerifiableConsumer: no loss, no duplicates', async () => {
    const t0 = Date.now();
    const topic = 'verifiable';
    const N = 20_000;
    await createTopic(target.bootstrap, topic, 3);

    const vp = await verifiableProducer({ bootstrap: target.bootstrap, topic, maxMessages: N, acks: 'all' });
    timed(`VerifiableProducer ${N}`, t0);
    expect(vp.raw.code, vp.raw.stderr.slice(-3000)).toBe(0);
    const errors = vp.events.filter((e) => e.name === 'producer_send_error');
    expect(errors.slice(0, 5)).toEqual([]);
    const acked = vp.events.filter((e) => e.name === 'producer_send_success') as (VerifiableEvent & {
      value: string;
      partition: number;
      offset: number;
    })[];
    expect(acked.length).toBe(N);
    const toolData = vp.events.find((e) => e.name === 'tool_data');
    expect(toolData).toMatchObject({ sent: N, acked: N });
    // Every value 0..N-1 acked exactly once, at distinct (partition, offset).
    expect(new Set(acked.map((e) => e.value)).size).toBe(N);
    expect(new Set(acked.map((e) => `${e.partition}:${e.offset}`)).size).toBe(N);
    // Offsets per partition are dense 0..n-1 on a fresh topic.
    const perPartition = new Map<number, number[]>();
    for (const e of acked) perPartition.set(e.partition, [...(perPartition.get(e.partition) ?? []), e.offset]);
    for (const [p, offs] of perPartition) {
      offs.sort((a, b) => a - b);
      expect(offs[0], `partition ${p}`).toBe(0);
      expect(offs[offs.length - 1], `partition ${p}`).toBe(offs.length - 1);
    }
    const latest = await getOffsets(target.bootstrap, topic, -1);
    expect(sum(latest)).toBe(N);
    for (const [p, offs] of perPartition) expect(latest.get(p)).toBe(offs.length);

    if (!GROUPS) {
      timed('VerifiableConsumer skipped (RUNNEL_GROUPS=0)', t0);
      return;
    }
    const t1 = Date.now();
    const vc = await verifiableConsumer({ bootstrap: target.bootstrap, topic, group: 'verifiable-group', maxMessages: N });
    timed(`VerifiableConsumer ${N}`, t1);
    expect(vc.raw.code, vc.raw.stderr.slice(-3000)).toBe(0);
    const names = new Set(vc.events.map((e) => e.name));
    expect(names.has('partitions_assigned')).toBe(true);
    const records = vc.events.filter((e) => e.name === 'record_data') as (VerifiableEvent & {
      value: string;
      partition: number;
      offset: number;
    })[];
    // No duplicates...
    const seen = new Map<string, string>();
    const dups: string[] = [];
    for (const r of records) {
      const k = `${r.partition}:${r.offset}`;
      if (seen.has(k)) dups.push(k);
      seen.set(k, r.value);
    }
    expect(dups.slice(0, 10)).toEqual([]);
    // ...and every acked record consumed with its value.
    const missing = acked.filter((a) => seen.get(`${a.partition}:${a.offset}`) !== a.value);
    expect(missing.slice(0, 10)).toEqual([]);
    expect(records.length).toBe(N);
    // records_consumed batches add up; offset commits (sync, after each batch) succeed.
    const batches = vc.events.filter((e) => e.name === 'records_consumed') as (VerifiableEvent & { count: number })[];
    expect(batches.reduce((s, b) => s + b.count, 0)).toBe(N);
    const commits = vc.events.filter((e) => e.name === 'offsets_committed') as (VerifiableEvent & {
      success: boolean;
      offsets?: { topic: string; partition: number; offset: number }[];
    })[];
    expect(commits.length).toBeGreaterThan(0);
    expect(commits.filter((c) => !c.success)).toEqual([]);
    // The last committed offset of each partition is its end offset.
    const lastCommitted = new Map<number, number>();
    for (const c of commits) for (const o of c.offsets ?? []) lastCommitted.set(o.partition, o.offset);
    for (const [p, end] of latest) if (end > 0) expect(lastCommitted.get(p), `partition ${p}`).toBe(end);
    timed('verifiable total', t0);
  });

  // ---------------------------------------------------------- kafka-topics ---
  it('TopicCommand: create / describe / alter partitions / delete', async () => {
    const t0 = Date.now();
    const topic = 'topics-cmd';
    const bs = target.bootstrap;
    const created = assertOk(
      'create',
      await kafkaTopics(bs, ['--create', '--topic', topic, '--partitions', '3', '--replication-factor', '1', '--config', 'retention.ms=3600000']),
    );
    expect(created.stdout).toContain(`Created topic ${topic}.`);
    expect(await listTopics(bs)).toContain(topic);

    const d1 = await describeTopic(bs, topic);
    expect(d1.partitionCount).toBe(3);
    expect(d1.replicationFactor).toBe(1);
    expect(d1.configs['retention.ms']).toBe('3600000');
    expect(d1.partitions.map((p) => p.partition).sort()).toEqual([0, 1, 2]);
    for (const p of d1.partitions) expect(p.leader).toBeGreaterThanOrEqual(0);

    // Creating it again fails with TopicExistsException.
    const again = await kafkaTopics(bs, ['--create', '--topic', topic, '--partitions', '3', '--replication-factor', '1']);
    expect(again.code).not.toBe(0);
    expect(again.stdout + again.stderr).toMatch(/already exists/);

    assertOk('alter', await kafkaTopics(bs, ['--alter', '--topic', topic, '--partitions', '5']));
    await waitFor('5 partitions', async () => (await describeTopic(bs, topic)).partitionCount === 5, { timeoutMs: 30_000, intervalMs: 500 });
    const d2 = await describeTopic(bs, topic);
    expect(d2.partitions.map((p) => p.partition).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(d2.configs['retention.ms']).toBe('3600000');

    // Shrinking is refused.
    const shrink = await kafkaTopics(bs, ['--alter', '--topic', topic, '--partitions', '2']);
    expect(shrink.code).not.toBe(0);

    assertOk('delete', await kafkaTopics(bs, ['--delete', '--topic', topic]));
    await waitFor('topic gone from --list', async () => !(await listTopics(bs)).includes(topic), { timeoutMs: 30_000, intervalMs: 500 });
    const desc = await kafkaTopics(bs, ['--describe', '--topic', topic]);
    expect(desc.code).not.toBe(0);
    expect(desc.stdout + desc.stderr).toMatch(/does not exist/);
    timed('TopicCommand total', t0);
  });

  // --------------------------------------------------------- kafka-configs ---
  it('ConfigCommand: describe / alter --add-config / --delete-config on a topic', async () => {
    const t0 = Date.now();
    const topic = 'configs-cmd';
    const bs = target.bootstrap;
    await createTopic(bs, topic, 1);
    const base = ['--entity-type', 'topics', '--entity-name', topic];

    const d0 = assertOk('describe', await kafkaConfigs(bs, [...base, '--describe']));
    expect(d0.stdout).toContain(`Dynamic configs for topic ${topic} are:`);
    expect(parseConfigDescribe(d0.stdout)['retention.ms']).toBeUndefined();

    const alter = assertOk('alter', await kafkaConfigs(bs, [...base, '--alter', '--add-config', 'retention.ms=86400000,max.message.bytes=2097152']));
    expect(alter.stdout).toMatch(/Completed updating config for topic/);
    await waitFor(
      'config visible',
      async () => parseConfigDescribe((await kafkaConfigs(bs, [...base, '--describe'])).stdout)['retention.ms'] === '86400000',
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    const d1 = parseConfigDescribe(assertOk('describe', await kafkaConfigs(bs, [...base, '--describe'])).stdout);
    expect(d1['retention.ms']).toBe('86400000');
    expect(d1['max.message.bytes']).toBe('2097152');
    // kafka-topics --describe shows it as well.
    expect((await describeTopic(bs, topic)).configs['retention.ms']).toBe('86400000');

    assertOk('delete-config', await kafkaConfigs(bs, [...base, '--alter', '--delete-config', 'retention.ms']));
    await waitFor(
      'config removed',
      async () => parseConfigDescribe((await kafkaConfigs(bs, [...base, '--describe'])).stdout)['retention.ms'] === undefined,
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    const d2 = parseConfigDescribe(assertOk('describe', await kafkaConfigs(bs, [...base, '--describe'])).stdout);
    expect(d2['max.message.bytes']).toBe('2097152');

    // An unknown config is rejected.
    const bad = await kafkaConfigs(bs, [...base, '--alter', '--add-config', 'no.such.config=1']);
    expect(bad.code).not.toBe(0);
    timed('ConfigCommand total', t0);
  });

  // ----------------------------------------------------- kafka-get-offsets ---
  it('GetOffsetShell: latest (-1), earliest (-2) and by timestamp', async () => {
    const t0 = Date.now();
    const topic = 'get-offsets';
    const bs = target.bootstrap;
    await createTopic(bs, topic, 3);
    await compileRoundTrip();
    const counts = [10, 25, 0];
    const base = Date.now() - 24 * 3600_000;
    const lines: string[] = [];
    for (let p = 0; p < counts.length; p++) {
      for (let i = 0; i < counts[p]!; i++) {
        lines.push([p, base + i * 1000, '~', Buffer.from(`p${p}-${i}`).toString('base64'), ''].join('\t'));
      }
    }
    const spec = logFilePath('get-offsets-spec', 'tsv');
    const out = logFilePath('get-offsets-out', 'jsonl');
    fs.writeFileSync(spec, lines.join('\n') + '\n');
    assertOk('RoundTrip produce-only', await runRoundTrip([bs, topic, 'none', spec, out, '60000', 'produce-only']));

    const latest = await getOffsets(bs, topic, -1);
    expect(Object.fromEntries(latest)).toEqual({ 0: 10, 1: 25, 2: 0 });
    const earliest = await getOffsets(bs, topic, -2);
    expect(Object.fromEntries(earliest)).toEqual({ 0: 0, 1: 0, 2: 0 });
    // First offset whose timestamp >= base+5s is 5 in both non-empty partitions.
    const byTs = await getOffsets(bs, topic, base + 5000);
    expect(byTs.get(0)).toBe(5);
    expect(byTs.get(1)).toBe(5);
    timed('GetOffsetShell total', t0);
  });

  // ------------------------------------------------- kafka-clients roundtrip ---
  describe('kafka-clients round trip (assign, no group)', () => {
    for (const compression of ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const) {
      it(`compression.type=${compression}: every byte, header, timestamp and order`, async () => {
        const t0 = Date.now();
        const topic = `roundtrip-${compression}`;
        const bs = target.bootstrap;
        await createTopic(bs, topic, 2, { 'retention.ms': -1 });
        await compileRoundTrip();
        const records = makeRecords(COMPRESSION_SEEDS[compression], 600, 2);
        const spec = logFilePath(`roundtrip-${compression}-spec`, 'tsv');
        const out = logFilePath(`roundtrip-${compression}-out`, 'jsonl');
        fs.writeFileSync(spec, records.map(specLine).join('\n') + '\n');

        const r = await runRoundTrip([bs, topic, compression, spec, out, '60000']);
        expect(r.code, r.stderr.slice(-4000)).toBe(0);
        checkRoundTrip(records, fs.readFileSync(out, 'utf8'));
        timed(`RoundTrip ${compression} (${records.length} records)`, t0);
      });
    }
  });
});

// =============================================================== helpers ===

const ROUNDTRIP_SRC = path.join(REPO_ROOT, 'test', 'interop', 'java', 'RoundTrip.java');
let compiled: Promise<string> | undefined;
function compileRoundTrip(): Promise<string> {
  compiled ??= compileJava([ROUNDTRIP_SRC]);
  return compiled;
}

async function runRoundTrip(args: string[]): Promise<Awaited<ReturnType<typeof runJava>>> {
  const classes = await compileRoundTrip();
  return runJava('RoundTrip', args, { classpath: [classes], timeoutMs: 180_000 });
}

const COMPRESSION_SEEDS = { none: 11, gzip: 22, snappy: 33, lz4: 44, zstd: 55 } as const;

interface TestRecord {
  partition: number;
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: [string, Buffer | null][];
}

/** Deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function makeRecords(seed: number, n: number, partitions: number): TestRecord[] {
  const rnd = prng(seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1));
  const bytes = (len: number): Buffer => {
    const b = Buffer.alloc(len);
    for (let i = 0; i < len; i++) b[i] = int(0, 255);
    return b;
  };
  const compressible = (len: number): Buffer => Buffer.from('runnel-stream-'.repeat(Math.ceil(len / 14)).slice(0, len));
  const headerKeys = ['trace-id', 'h', 'dup', 'ключ-✓', '', 'x'.repeat(100)];
  const now = Date.now();
  const out: TestRecord[] = [];
  for (let i = 0; i < n; i++) {
    const kr = rnd();
    const key = kr < 0.15 ? null : kr < 0.2 ? Buffer.alloc(0) : bytes(int(1, 64));
    const vr = rnd();
    const value =
      vr < 0.1 ? null
      : vr < 0.15 ? Buffer.alloc(0)
      : vr < 0.2 ? bytes(int(16_000, 70_000)) // big, incompressible
      : vr < 0.4 ? compressible(int(100, 20_000))
      : bytes(int(1, 1500));
    const headers: [string, Buffer | null][] = [];
    const nh = rnd() < 0.3 ? 0 : int(1, 5);
    for (let h = 0; h < nh; h++) {
      const hk = rnd() < 0.35 ? 'dup' : headerKeys[int(0, headerKeys.length - 1)]!; // repeated keys
      const hv = rnd() < 0.2 ? null : rnd() < 0.1 ? Buffer.alloc(0) : bytes(int(1, 40));
      headers.push([hk, hv]);
    }
    // Explicit, non-monotonic CreateTime timestamps, some far in the past, none
    // more than 1 h in the future (Kafka's log.message.timestamp.after.max.ms).
    const tr = rnd();
    const timestamp =
      i === 0 ? 0
      : tr < 0.05 ? int(1, 1_000_000_000_000) // 1970..2001
      : tr < 0.1 ? now + int(0, 30 * 60_000)
      : now - int(0, 30 * 24 * 3600_000);
    out.push({ partition: int(0, partitions - 1), timestamp, key, value, headers });
  }
  return out;
}

const b64 = (b: Buffer | null): string | null => (b === null ? null : b.toString('base64'));

function specLine(r: TestRecord): string {
  const enc = (b: Buffer | null): string => (b === null ? '~' : b.toString('base64'));
  const headers = r.headers.map(([k, v]) => `${Buffer.from(k, 'utf8').toString('base64')}:${enc(v)}`).join(',');
  return [r.partition, r.timestamp, enc(r.key), enc(r.value), headers].join('\t');
}

interface AckLine { t: 'ack'; i: number; p: number; o: number; ts: number }
interface RecLine { t: 'rec'; p: number; o: number; ts: number; tt: string; k: string | null; v: string | null; h: [string, string | null][] }
interface DoneLine { t: 'done'; produced: number; consumed: number }

function checkRoundTrip(records: TestRecord[], dump: string): void {
  const lines = dump.split('\n').filter(Boolean).map((l) => JSON.parse(l) as AckLine | RecLine | DoneLine);
  const acks = lines.filter((l): l is AckLine => l.t === 'ack');
  const recs = lines.filter((l): l is RecLine => l.t === 'rec');
  const done = lines.find((l): l is DoneLine => l.t === 'done');
  expect(done).toEqual({ t: 'done', produced: records.length, consumed: records.length });
  expect(acks.length).toBe(records.length);
  expect(recs.length).toBe(records.length);

  // Acks: right partition, the record's own timestamp, offsets increasing per partition in send order.
  const lastOffset = new Map<number, number>();
  for (const a of acks) {
    const r = records[a.i]!;
    expect(a.p, `ack ${a.i} partition`).toBe(r.partition);
    expect(a.ts, `ack ${a.i} timestamp`).toBe(r.timestamp);
    expect(a.o, `ack ${a.i} offset after ${lastOffset.get(a.p)}`).toBeGreaterThan(lastOffset.get(a.p) ?? -1);
    lastOffset.set(a.p, a.o);
  }

  // Consumed: unique (p, o); per partition in offset order == send order.
  const byPos = new Map<string, RecLine>();
  for (const r of recs) {
    const k = `${r.p}:${r.o}`;
    expect(byPos.has(k), `duplicate record ${k}`).toBe(false);
    byPos.set(k, r);
  }
  const consumedOrder = new Map<number, number[]>();
  for (const r of recs) consumedOrder.set(r.p, [...(consumedOrder.get(r.p) ?? []), r.o]);
  for (const [p, offs] of consumedOrder) {
    expect(offs, `partition ${p} delivered in offset order`).toEqual([...offs].sort((x, y) => x - y));
  }

  for (const a of acks) {
    const want = records[a.i]!;
    const got = byPos.get(`${a.p}:${a.o}`);
    const expected = {
      ts: want.timestamp,
      tt: 'CreateTime',
      k: b64(want.key),
      v: b64(want.value),
      h: want.headers.map(([k, v]) => [Buffer.from(k, 'utf8').toString('base64'), b64(v)]),
    };
    const actual = got ? { ts: got.ts, tt: got.tt, k: got.k, v: got.v, h: got.h } : undefined;
    expect(actual, `record #${a.i} at ${a.p}:${a.o}`).toEqual(expected);
  }
}
