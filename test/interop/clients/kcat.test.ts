// kcat (librdkafka, legacy group-less consumer) interop: -L metadata, and -P/-C
// round trips for every codec with keys, nulls, headers, custom delimiters and
// whole-file binary messages, compared byte-exactly (see support.ts for -J decoding).
//
// Timestamps: kcat 1.7 cannot set a per-message timestamp on produce, so records
// carry librdkafka's CreateTime; we assert tstype=create and that each timestamp
// lies inside the wall-clock window of the kcat invocation that produced it.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import type { Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTarget } from '../../helpers/target.js';
import { byPartition, hex, kcatConsume, parseKcatJson, requireKcat, run, uniqueTopic, type ReadRecord } from './support.js';

type Target = Awaited<ReturnType<typeof startTarget>>;

const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
const b = (s: string): Buffer => Buffer.from(s, 'utf8');

interface Exp {
  key: Buffer | null;
  value: Buffer | null;
  headers: Array<[string, Buffer | null]>;
  window: [number, number];
}

function view(r: { key: Buffer | null; value: Buffer | null; headers: Array<[string, Buffer | null]> }) {
  return { key: hex(r.key), value: hex(r.value), headers: r.headers.map(([k, v]) => [k, hex(v)]) };
}

describe('kcat 1.7 interop', () => {
  let target: Target;
  let admin: Admin;
  let dir: string;

  const kcat = async (args: string[], input?: Buffer | string) => {
    const r = await run('kcat', ['-b', target.bootstrap, '-q', '-m', '15', ...args], { input, timeoutMs: 60_000 });
    if (r.code !== 0) throw new Error(`kcat ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return r;
  };

  beforeAll(async () => {
    await requireKcat();
    target = await startTarget();
    // kcat cannot create topics; use KafkaJS's admin client for that.
    admin = new kafkajs.Kafka({ clientId: 'runnel-interop-kcat', brokers: [target.bootstrap], logLevel: kafkajs.logLevel.NOTHING }).admin();
    await admin.connect();
    dir = await mkdtemp(join(tmpdir(), 'runnel-kcat-'));
  });

  afterAll(async () => {
    await admin?.disconnect().catch(() => {});
    if (dir) await rm(dir, { recursive: true, force: true });
    await target?.stop();
  });

  it('kcat -L lists brokers, the topic and its 3 partitions', async () => {
    const topic = uniqueTopic('kcat-md');
    expect(await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 1 }], waitForLeaders: true })).toBe(true);

    const js = JSON.parse((await kcat(['-L', '-J', '-t', topic])).stdout.toString('utf8')) as {
      brokers: Array<{ id: number; name: string }>;
      controllerid: number;
      topics: Array<{ topic: string; error?: string; partitions: Array<{ partition: number; leader: number; replicas: Array<{ id: number }>; isrs: Array<{ id: number }> }> }>;
    };
    expect(js.brokers.length).toBeGreaterThanOrEqual(1);
    const brokerIds = js.brokers.map((x) => x.id);
    for (const br of js.brokers) expect(br.name).toMatch(/^[^:]+:\d+$/);
    // The bootstrap address is one of the advertised brokers.
    expect(js.brokers.map((x) => x.name)).toContain(target.bootstrap);
    expect(js.topics).toHaveLength(1);
    const t = js.topics[0]!;
    expect(t.topic).toBe(topic);
    expect(t.error).toBeUndefined();
    expect(t.partitions.map((p) => p.partition).sort()).toEqual([0, 1, 2]);
    for (const p of t.partitions) {
      expect(brokerIds).toContain(p.leader);
      expect(p.replicas.map((r) => r.id)).toContain(p.leader);
      expect(p.isrs.map((r) => r.id)).toContain(p.leader);
    }

    // Plain-text listing of all topics includes ours.
    const text = (await kcat(['-L'])).stdout.toString('utf8');
    expect(text).toContain(`topic "${topic}" with 3 partitions:`);

    // Unknown topic is reported as an error, not as a topic with partitions.
    const missing = JSON.parse((await kcat(['-L', '-J', '-t', uniqueTopic('kcat-missing'), '-X', 'allow.auto.create.topics=false'])).stdout.toString('utf8')) as {
      topics: Array<{ error?: string; partitions: unknown[] }>;
    };
    expect(missing.topics[0]?.error ?? '').toMatch(/Unknown topic|UNKNOWN_TOPIC/i);
    await admin.deleteTopics({ topics: [topic] }).catch(() => {});
  });

  for (const codec of CODECS) {
    it(`kcat -P -z ${codec} then kcat -C -J round trip`, async () => {
      const topic = uniqueTopic(`kcat-rt-${codec}`);
      expect(await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 1 }], waitForLeaders: true })).toBe(true);
      const common = ['-P', '-t', topic, '-z', codec, '-X', 'linger.ms=20'];
      const expected = new Map<number, Exp[]>([
        [0, []],
        [1, []],
        [2, []],
      ]);

      // --- partition 0: newline-delimited stdin, -K ':' key delimiter, -Z (empty => NULL), 4 headers incl. a repeated key.
      {
        const headers: Array<[string, Buffer | null]> = [
          ['trace', b('abc-123')],
          ['dup', b('1')],
          ['dup', b('2')],
          ['empty', b('')],
        ];
        const lines: Array<[string, Buffer | null, Buffer | null]> = [
          ['k1:v1', b('k1'), b('v1')],
          [':null-key', null, b('null-key')], // empty key with -Z => NULL key
          ['k3:', b('k3'), null], // empty value with -Z => NULL value (tombstone)
          ['no-delimiter-line', null, b('no-delimiter-line')], // no key delimiter => NULL key
          ['k5:a:b:c', b('k5'), b('a:b:c')], // only the first ':' splits
          ['ké✓:välüe ✓ "quoted" \\ back', b('ké✓'), b('välüe ✓ "quoted" \\ back')],
          [`big:${'compressible '.repeat(4000)}`, b('big'), b('compressible '.repeat(4000))], // ~52 KB
        ];
        for (let i = 0; i < 13; i++) lines.push([`seq-${i}:value-${i}`, b(`seq-${i}`), b(`value-${i}`)]);
        const t0 = Date.now();
        await kcat([...common, '-p', '0', '-K', ':', '-Z', ...headers.flatMap(([k, v]) => ['-H', `${k}=${v!.toString()}`])], lines.map((l) => l[0]).join('\n') + '\n');
        const win: [number, number] = [t0, Date.now()];
        for (const [, key, value] of lines) expected.get(0)!.push({ key, value, headers, window: win });
      }

      // --- partition 1: custom delimiters (\x1e records, \x1f key), values with \n and \t,
      //     no -Z (so empty key/value stay empty, not NULL), header with '=' in value and a NULL-valued header.
      {
        const headers: Array<[string, Buffer | null]> = [
          ['h', b('v=with=equals')],
          ['null-valued', null],
        ];
        const recs: Array<[Buffer, Buffer]> = [
          [b('a'), b('multi\nline\nvalue')],
          [b('tab'), b('x\ty\r\n')],
          [b(''), b('empty-key-not-null')],
          [b('empty-value-not-null'), b('')],
          [b('ctl'), Buffer.from([1, 2, 3, 0x7f, 0xc3, 0xa9, 0xff, 0xfe])],
        ];
        const input = Buffer.concat(recs.flatMap(([k, v]) => [k, Buffer.from([0x1f]), v, Buffer.from([0x1e])]));
        const t0 = Date.now();
        await kcat([...common, '-p', '1', '-K', '\\x1f', '-D', '\\x1e', '-H', 'h=v=with=equals', '-H', 'null-valued'], input);
        const win: [number, number] = [t0, Date.now()];
        for (const [key, value] of recs) expected.get(1)!.push({ key, value, headers, window: win });
      }

      // --- partition 2: each file is sent whole as one message (arbitrary binary incl. NUL, \n), fixed key via -k.
      {
        const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
        const files: Buffer[] = [all, Buffer.concat(Array.from({ length: 64 }, () => all)), Buffer.from([0]), b('last\n')];
        const paths: string[] = [];
        for (let i = 0; i < files.length; i++) {
          const p = join(dir, `${codec}-${i}.bin`);
          await writeFile(p, files[i]!);
          paths.push(p);
        }
        const t0 = Date.now();
        await kcat([...common, '-p', '2', '-k', 'bin-key', '-H', 'kind=file', ...paths]);
        const win: [number, number] = [t0, Date.now()];
        for (const f of files) expected.get(2)!.push({ key: b('bin-key'), value: f, headers: [['kind', b('file')]], window: win });
      }

      const got = byPartition(await kcatConsume(target.bootstrap, topic));
      expect([...got.keys()].sort()).toEqual([0, 1, 2]);
      for (const [p, exp] of expected) {
        const recs = got.get(p)!;
        expect(recs.map((r) => r.offset)).toEqual(exp.map((_, i) => i));
        expect(recs.map(view)).toEqual(exp.map(view));
        recs.forEach((r, i) => {
          expect(r.tstype).toBe('create');
          // 1 ms slack each side for clock granularity between Date.now() and librdkafka.
          expect(r.ts).toBeGreaterThanOrEqual(exp[i]!.window[0] - 1);
          expect(r.ts).toBeLessThanOrEqual(exp[i]!.window[1] + 1);
        });
      }

      // Positioned reads: absolute offset with count, and relative-from-end.
      const abs = parseKcatJson((await kcat(['-C', '-t', topic, '-p', '0', '-o', '5', '-c', '3', '-e', '-J'])).stdout);
      expect(abs.map((r) => [r.offset, r.key?.toString()])).toEqual([
        [5, 'ké✓'],
        [6, 'big'],
        [7, 'seq-0'],
      ]);
      const tail: ReadRecord[] = parseKcatJson((await kcat(['-C', '-t', topic, '-p', '2', '-o', '-2', '-e', '-J'])).stdout);
      expect(tail.map((r) => [r.offset, hex(r.value)])).toEqual([
        [2, '00'],
        [3, hex(b('last\n'))],
      ]);

      await admin.deleteTopics({ topics: [topic] }).catch(() => {});
    });
  }
});
