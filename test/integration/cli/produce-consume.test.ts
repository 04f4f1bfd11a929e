// `runnel produce` then `runnel consume` against a real broker
// (RUNNEL_TEST_TARGET: Runnel or Apache Kafka): 100,000 keyed records with
// per-line headers and values of arbitrary bytes come back byte-identical
// (JSON with base64 and the text format alike), keyed records sit on the
// partition Kafka's default partitioner picks, every codec round-trips,
// --partition/--offset/--max-messages select what is read, and kcat reads what
// runnel wrote and the other way round.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTarget, type Target } from '../../helpers/target.js';
import { runCommand } from '../../helpers/procs.js';
import { RUNNEL_CLI } from '../../helpers/runnel.js';
import { partitionForKey } from '../../../cli/kafka/partitioner.js';
import { fromJsonBytes, type JsonBytes } from '../../../cli/kafka/format.js';
import { ok, runnel } from './support.js';

let target: Target;
const PARTITIONS = 4;
const N = 100_000;

beforeAll(async () => {
  target = await startTarget();
}, 180_000);

afterAll(async () => {
  await target?.stop();
});

interface Sent { key: Buffer; value: Buffer; headers: Array<[Buffer, Buffer]>; line: Buffer }

/** Values of random bytes except newline; some empty, some not UTF-8. Headers: an id and a varying one. */
function makeRecords(n: number, seed: string): Sent[] {
  const out: Sent[] = [];
  // one draw of random bytes for all values (a call per record is most of the time at 100,000)
  const pool = crypto.randomBytes(n * 200).map((b) => (b === 0x0a ? 0x0b : b));
  for (let i = 0; i < n; i++) {
    const key = Buffer.from(`${seed}-${i}`);
    const len = i % 97 === 0 ? 0 : 20 + (i % 180);
    const value = Buffer.from(pool.subarray(i * 200, i * 200 + len));
    const headers: Array<[Buffer, Buffer]> = [[Buffer.from('id'), Buffer.from(String(i))], [Buffer.from('kind'), Buffer.from(i % 3 === 0 ? 'ü-üni' : 'plain')]];
    const line = Buffer.concat([Buffer.from(headers.map(([k, v]) => `${k}:${v}`).join(',')), Buffer.from('\t'), key, Buffer.from('\t'), value]);
    out.push({ key, value, headers, line });
  }
  return out;
}

const input = (rs: Sent[]): Buffer => Buffer.concat(rs.flatMap((r) => [r.line, Buffer.from('\n')]));

interface Consumed { topic: string; partition: number; offset: number; key: JsonBytes; value: JsonBytes; headers: Array<{ key: JsonBytes; value: JsonBytes }> }
const jsonLines = (s: string): Consumed[] => s.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Consumed);

/** `runnel consume` with stdout kept as bytes. */
function consumeBytes(args: string[]): Buffer {
  const r = spawnSync(process.execPath, [RUNNEL_CLI, 'consume', ...args, '--bootstrap-server', target.bootstrap], { timeout: 120_000, maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`consume exited ${r.status}: ${r.stderr.toString()}`);
  return r.stdout;
}

async function createTopic(name: string, partitions = PARTITIONS): Promise<void> {
  ok(await runnel(target.bootstrap, ['topic', 'create', name, '--partitions', String(partitions)]));
}

describe('runnel produce and consume', () => {
  it(`round-trips ${N} keyed records with headers byte-identical, on the default partitioner's partitions`, async () => {
    await createTopic('cli-rt');
    const sent = makeRecords(N, 'k');
    ok(await runnel(target.bootstrap, ['produce', 'cli-rt', '--parse-key', '--parse-headers'], { input: input(sent), timeoutMs: 120_000 }));

    const r = await runnel(target.bootstrap, ['consume', 'cli-rt', '--from-beginning', '--max-messages', String(N), '--json'], { timeoutMs: 120_000 });
    expect(r.stderr).toContain(`Processed a total of ${N} messages`);
    const got = jsonLines(ok(r));
    expect(got.length).toBe(N);
    const byKey = new Map(got.map((g) => [fromJsonBytes(g.key)!.toString('latin1'), g]));
    expect(byKey.size).toBe(N);
    // every record compared; the differences collected and asserted once (an expect per record is seconds at 100,000)
    let nonUtf8 = 0;
    const same = (a: JsonBytes, b: Buffer): boolean => fromJsonBytes(a)?.equals(b) === true;
    const differ: string[] = [];
    for (const s of sent) {
      const k = s.key.toString('latin1');
      const g = byKey.get(k);
      if (!g) {
        differ.push(`${k}: not consumed`);
        continue;
      }
      if (!same(g.value, s.value)) differ.push(`${k}: value ${JSON.stringify(g.value)}`);
      if (g.headers.length !== s.headers.length || g.headers.some((h, i) => !same(h.key, s.headers[i]![0]) || !same(h.value, s.headers[i]![1]))) {
        differ.push(`${k}: headers ${JSON.stringify(g.headers)}`);
      }
      const p = partitionForKey(s.key, 0, s.key.length, PARTITIONS);
      if (g.partition !== p) differ.push(`${k}: partition ${g.partition}, not ${p}`);
      if (typeof g.value === 'object' && g.value !== null) nonUtf8++;
    }
    expect(differ.slice(0, 20), `${differ.length} of ${N} records differ`).toEqual([]);
    expect(nonUtf8).toBeGreaterThan(N / 2);
    // per partition, offsets run 0.. in the order the lines were produced
    for (let p = 0; p < PARTITIONS; p++) {
      const mine = got.filter((g) => g.partition === p);
      expect(mine.map((g) => g.offset)).toEqual(mine.map((_, i) => i));
      const order = sent.filter((s) => partitionForKey(s.key, 0, s.key.length, PARTITIONS) === p).map((s) => s.key.toString());
      expect(mine.map((g) => fromJsonBytes(g.key)!.toString())).toEqual(order);
    }

    // the text format prints headers, key and value as the producer read them: the same lines
    const text = consumeBytes(['cli-rt', '--from-beginning', '--max-messages', String(N), '--print-headers', '--print-key']);
    const lines = (b: Buffer): string[] => b.toString('latin1').split('\n').slice(0, -1).sort();
    expect(lines(text)).toEqual(lines(input(sent)));
  });

  it('writes the text format byte for byte (stdout as bytes)', async () => {
    await createTopic('cli-bytes', 1);
    const sent = makeRecords(300, 'b');
    ok(await runnel(target.bootstrap, ['produce', 'cli-bytes', '--parse-key', '--parse-headers'], { input: input(sent) }));
    const out = consumeBytes(['cli-bytes', '--from-beginning', '--max-messages', '300', '--print-headers', '--print-key']);
    expect(Buffer.compare(out, input(sent))).toBe(0);
  });

  it('round-trips with every codec; --partition and --offset select what is read', async () => {
    await createTopic('cli-codecs', 2);
    const codecs = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
    for (const c of codecs) {
      const lines = Array.from({ length: 200 }, (_, i) => `${c}-${i}-${'x'.repeat(i % 50)}`).join('\n');
      ok(await runnel(target.bootstrap, ['produce', 'cli-codecs', '--partition', '1', '--compression', c, '--header', `codec=${c}`], { input: `${lines}\n` }));
    }
    const all = jsonLines(ok(await runnel(target.bootstrap, ['consume', 'cli-codecs', '--partition', '1', '--offset', '0', '--max-messages', '1000', '--json'])));
    expect(all.map((g) => g.value)).toEqual(codecs.flatMap((c) => Array.from({ length: 200 }, (_, i) => `${c}-${i}-${'x'.repeat(i % 50)}`)));
    expect(all.map((g) => g.headers[0]!.value)).toEqual(codecs.flatMap((c) => Array(200).fill(c)));
    expect(all.every((g) => g.partition === 1 && g.key === null)).toBe(true);
    const tail = ok(await runnel(target.bootstrap, ['consume', 'cli-codecs', '--partition', '1', '--offset', '995', '--max-messages', '5', '--print-offset']));
    expect(tail).toBe(Array.from({ length: 5 }, (_, i) => `Offset:${995 + i}\tzstd-${195 + i}-${'x'.repeat((195 + i) % 50)}\n`).join(''));
    // nothing on partition 0; --timeout-ms ends the wait
    const none = await runnel(target.bootstrap, ['consume', 'cli-codecs', '--partition', '0', '--from-beginning', '--timeout-ms', '1500']);
    expect(ok(none)).toBe('');
    expect(none.stderr).toContain('Processed a total of 0 messages');
  });

  it('spreads records without a key over the partitions, a batch at a time', async () => {
    await createTopic('cli-sticky', 3);
    const lines = Array.from({ length: 30_000 }, (_, i) => `v${i}`).join('\n');
    ok(await runnel(target.bootstrap, ['produce', 'cli-sticky', '--batch-size', '16384'], { input: `${lines}\n` }));
    const got = jsonLines(ok(await runnel(target.bootstrap, ['consume', 'cli-sticky', '--from-beginning', '--max-messages', '30000', '--json'])));
    const per = [0, 1, 2].map((p) => got.filter((g) => g.partition === p).length);
    expect(per.reduce((a, b) => a + b)).toBe(30_000);
    // 16 KiB batches of ~12-byte records: about 30 batches, handed to the partitions in turn
    for (const n of per) expect(n).toBeGreaterThan(5000);
  });

  it('kcat reads what runnel produced, and runnel reads what kcat produced', async () => {
    await createTopic('cli-kcat', 2);
    ok(await runnel(target.bootstrap, ['produce', 'cli-kcat', '--key-separator', ':', '--header', 'from=runnel'], { input: 'a:1\nb:2\nc:3\n' }));
    const k = await runCommand('kcat', ['-b', target.bootstrap, '-C', '-t', 'cli-kcat', '-o', 'beginning', '-e', '-q', '-f', '%k=%s %h\n'], { timeoutMs: 30_000 });
    expect(k.code, k.stderr).toBe(0);
    expect(k.stdout.split('\n').filter(Boolean).sort()).toEqual(['a=1 from=runnel', 'b=2 from=runnel', 'c=3 from=runnel']);
    const p = await runCommand('kcat', ['-b', target.bootstrap, '-P', '-t', 'cli-kcat', '-p', '0', '-K:', '-H', 'from=kcat'], { input: 'x:9\n', timeoutMs: 30_000 });
    expect(p.code, p.stderr).toBe(0);
    const got = jsonLines(ok(await runnel(target.bootstrap, ['consume', 'cli-kcat', '--from-beginning', '--max-messages', '4', '--json'])));
    expect(got.find((g) => g.key === 'x')).toMatchObject({ value: '9', headers: [{ key: 'from', value: 'kcat' }] });
  });

  it('creates a missing topic on first use, as kafka-console-producer does (auto.create.topics.enable)', async () => {
    ok(await runnel(target.bootstrap, ['produce', 'cli-auto'], { input: 'first\n' }));
    expect(ok(await runnel(target.bootstrap, ['consume', 'cli-auto', '--from-beginning', '--max-messages', '1']))).toBe('first\n');
  });

  it('exits 1 naming the error when the topic does not exist or a line lacks its key', async () => {
    const r = await runnel(target.bootstrap, ['consume', 'cli-nope', '--from-beginning', '--max-messages', '1'], { input: 'x\n' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('UNKNOWN_TOPIC_OR_PARTITION');
    const invalid = await runnel(target.bootstrap, ['produce', 'bad/name'], { input: 'x\n' });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('INVALID_TOPIC_EXCEPTION');
    await createTopic('cli-nokey', 1);
    const bad = await runnel(target.bootstrap, ['produce', 'cli-nokey', '--parse-key'], { input: 'k\tv\nnokey\n' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('no key separator on line 2');
    // the line before it was sent
    expect(ok(await runnel(target.bootstrap, ['consume', 'cli-nokey', '--from-beginning', '--timeout-ms', '1500', '--print-key']))).toBe('k\tv\n');
  });
});
