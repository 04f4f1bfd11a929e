// confluent-kafka-python (librdkafka 2.x) interop. rdkafka_roundtrip.py produces each
// case (codec x idempotence) with explicit partitions and timestamps, then reads the
// topic back with assign()/OFFSET_BEGINNING (no group membership, no commits) and
// dumps every record as base64 JSON, which is compared here byte for byte, in order.
// One Python process runs all cases (interpreter + librdkafka start-up is the main cost).
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTarget } from '../../helpers/target.js';
import { requireVenvPython, run, uniqueTopic } from './support.js';

type Target = Awaited<ReturnType<typeof startTarget>>;

const SCRIPT = fileURLToPath(new URL('./rdkafka_roundtrip.py', import.meta.url));
const PARTITIONS = 3;
const N = 45;
const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;

interface Msg {
  partition: number;
  key: string | null; // base64
  value: string | null; // base64
  headers: Array<[string, string | null]> | null;
  timestamp: number;
}
interface Case {
  name: string;
  topic: string;
  partitions: number;
  producer: Record<string, string | number | boolean>;
  messages: Msg[];
}
interface OutRecord {
  partition: number;
  offset: number;
  key: string | null;
  value: string | null;
  headers: Array<[string, string | null]>;
  ts_type: string;
  ts: number;
}
interface OutCase {
  name: string;
  error: string | null;
  delivered: Array<{ partition: number; offset: number; error: string | null } | null>;
  watermarks: Record<string, [number, number]>;
  records: OutRecord[];
}

const b64 = (b: Buffer | null): string | null => (b === null ? null : b.toString('base64'));

/** Deterministic bytes: sha256 counter stream. */
function bytes(seed: string, n: number): Buffer {
  const out: Buffer[] = [];
  for (let i = 0, len = 0; len < n; i++) {
    const h = createHash('sha256').update(`${seed}/${i}`).digest();
    out.push(h);
    len += h.length;
  }
  return Buffer.concat(out).subarray(0, n);
}

function buildMessages(seed: string, baseTs: number): Msg[] {
  const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const msgs: Msg[] = [];
  for (let i = 0; i < N; i++) {
    // Uneven spread over partitions, including runs into the same partition.
    const partition = i < 5 ? 0 : (i * 7) % PARTITIONS;
    const key =
      i % 5 === 0 ? null : i % 5 === 1 ? Buffer.alloc(0) : i % 5 === 2 ? Buffer.concat([all, bytes(`${seed}k${i}`, 5)]) : Buffer.from(`k-${i}-ü`);
    const value =
      i % 9 === 4
        ? null
        : i % 9 === 5
          ? Buffer.alloc(0)
          : i % 9 === 6
            ? Buffer.from(`compressible-${i}|`.repeat(4000)) // ~64-72 KB
            : bytes(`${seed}v${i}`, 1 + ((i * 53) % 1500));
    let headers: Array<[string, Buffer | null]> | null = null;
    if (i % 3 === 1) {
      headers = [
        ['dup', Buffer.from('one')],
        ['dup', Buffer.from('two')],
        ['dup', null],
        ['bin', bytes(`${seed}h${i}`, 33)],
        ['empty', Buffer.alloc(0)],
        ['dup', Buffer.from('three')],
      ];
    } else if (i % 3 === 2) {
      headers = [['only', Buffer.from(String(i))]];
    }
    // Explicit create timestamps, deliberately non-monotonic within a partition.
    const timestamp = baseTs + i * 1000 - (i % 4 === 3 ? 7777 : 0);
    msgs.push({ partition, key: b64(key), value: b64(value), headers: headers && headers.map(([k, v]) => [k, b64(v)]), timestamp });
  }
  return msgs;
}

const cases: Case[] = [];
for (const codec of CODECS) {
  for (const idempotent of [true, false]) {
    const name = `${codec}-${idempotent ? 'idempotent' : 'plain'}`;
    cases.push({
      name,
      topic: uniqueTopic(`rdk-${name}`),
      partitions: PARTITIONS,
      producer: {
        'compression.codec': codec,
        'enable.idempotence': idempotent,
        acks: idempotent ? 'all' : '1',
        // Small batches => several record batches per partition (and, when idempotent,
        // several in-flight sequence numbers per partition).
        'batch.num.messages': 4,
        'linger.ms': 5,
        'max.in.flight.requests.per.connection': 5,
      },
      messages: buildMessages(name, Date.now() - 3 * 60 * 60 * 1000),
    });
  }
}

describe('confluent-kafka / librdkafka interop', () => {
  let target: Target;
  const results = new Map<string, OutCase>();
  let lib: [string, string] | undefined;

  beforeAll(async () => {
    const python = requireVenvPython();
    target = await startTarget();
    const r = await run(python, [SCRIPT], { input: JSON.stringify({ bootstrap: target.bootstrap, cases }), timeoutMs: 240_000 });
    if (r.code !== 0) throw new Error(`rdkafka_roundtrip.py exited ${r.code}:\n${r.stderr}`);
    const out = JSON.parse(r.stdout.toString('utf8')) as { lib: [string, string]; cases: OutCase[] };
    lib = out.lib;
    for (const c of out.cases) results.set(c.name, c);
  });

  afterAll(async () => {
    await target?.stop();
  });

  it('uses confluent-kafka with librdkafka 2.x', () => {
    expect(lib?.[1]).toMatch(/^2\./);
  });

  for (const c of cases) {
    it(`round trip ${c.name}`, () => {
      const res = results.get(c.name);
      expect(res, 'case missing from script output').toBeDefined();
      expect(res!.error).toBeNull();

      // Delivery reports: every message acked, offsets dense per partition in produce order.
      const next = new Map<number, number>();
      const expectedDelivered = c.messages.map((m) => {
        const off = next.get(m.partition) ?? 0;
        next.set(m.partition, off + 1);
        return { partition: m.partition, offset: off, error: null };
      });
      expect(res!.delivered).toEqual(expectedDelivered);

      for (let p = 0; p < PARTITIONS; p++) {
        expect(res!.watermarks[String(p)]).toEqual([0, next.get(p) ?? 0]);
        const exp = c.messages
          .filter((m) => m.partition === p)
          .map((m, i) => ({
            partition: p,
            offset: i,
            key: m.key,
            value: m.value,
            headers: m.headers ?? [],
            ts_type: 'create',
            ts: m.timestamp,
          }));
        expect(res!.records.filter((r) => r.partition === p)).toEqual(exp);
      }
      expect(res!.records).toHaveLength(c.messages.length);
    });
  }
});
