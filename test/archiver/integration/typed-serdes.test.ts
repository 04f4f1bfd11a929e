// Typed lake columns (docs/lake.md, "Typed columns") with real parts: a broker on
// redis-server serving its Schema Registry, confluent-kafka's AvroSerializer,
// ProtobufSerializer and JSONSerializer (Python) producing v1 then v2 (a new
// optional field) records to a topic with archive.value.schema=id, plus a record
// naming an unknown schema id and one with a truncated body; the archiver;
// delta-rs and Polars reading the table.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOST, REPO_ROOT, freePort, runCommand } from '../../helpers/procs.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { targetKindFromEnv } from '../../helpers/target.js';
import { archiverEnv, ensureBuilt, PY, spawnArchiver, tmpDir, waitFor, type ArchiverProc } from './helpers.js';

const onKafka = targetKindFromEnv() === 'kafka'; // the registry and the archiver are Runnel's
const TOPIC = 'orders';
const SCRIPTS = path.join(REPO_ROOT, 'test/archiver/integration');

interface Produced {
  ids: number[];
  sum_qty: number;
  records: Array<{ partition: number; offset: number; version?: number; bad?: string; row?: Record<string, unknown> }>;
}
interface SerdesProduced extends Produced {
  types: string[];
  v3: number | string;
}
interface Read {
  schema: Record<string, string>;
  polars: Record<string, string>;
  version: number;
  rows: Array<Record<string, unknown> & { partition: number; offset: number; decode_error: string | null }>;
  sql: { sum_qty: number; rows: number; notes: number; sum_price: string };
  bad: Array<{ partition: number; offset: number; decode_error: string }>;
}

let redis: RedisServer;
let broker: RunnelBroker;
let archiver: ArchiverProc;
let registryUrl: string;
let metricsPort: number;
let lake: string;

beforeAll(async () => {
  if (onKafka) return;
  await ensureBuilt();
  redis = await startRedis();
  registryUrl = `http://${HOST}:${await freePort()}`;
  broker = await startRunnel({ redisUrl: redis.url, args: ['--set', `schema.registry.listeners=${registryUrl}`] });
  lake = tmpDir('typed');
  metricsPort = await freePort();
  archiver = spawnArchiver(archiverEnv({
    redisUrl: redis.url, lake: `file://${lake}`,
    extra: { RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '300', RUNNEL_ARCHIVER_HTTP_PORT: String(metricsPort), RUNNEL_ARCHIVER_OPTIMIZE_INTERVAL_MS: '0' },
  }));
});
afterAll(async () => {
  await archiver?.kill('SIGTERM');
  await broker?.stop();
  await redis?.stop();
  if (lake) fs.rmSync(lake, { recursive: true, force: true });
});

async function python<T>(script: string, args: string[]): Promise<T> {
  const r = await runCommand(PY, [path.join(SCRIPTS, script), ...args], { timeoutMs: 120_000, logName: `typed-${script}` });
  expect(r.code, r.stderr.slice(-3000)).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as T;
}

describe.skipIf(onKafka)('typed lake columns from Avro records (confluent-kafka AvroSerializer)', () => {
  let produced: Produced;
  let read: Read;

  it('archives every record; the Avro fields are typed Delta columns; v1 rows read null in the v2 field', async () => {
    produced = await python<Produced>('typed_avro.py', [registryUrl, broker.bootstrap, TOPIC]);
    expect(produced.ids).toHaveLength(2);
    const last = new Map<number, number>();
    for (const r of produced.records) last.set(r.partition, Math.max(last.get(r.partition) ?? -1, r.offset));
    read = await waitFor(async () => {
      const r = await python<Read>('typed_read.py', [path.join(lake, TOPIC)]).catch(() => undefined);
      return r && r.rows.length === produced.records.length ? r : undefined;
    }, 60_000, `every record of ${TOPIC} in the lake (archiver log: ${archiver.log.slice(-5).join(' | ')})`);

    // Delta types (delta-rs names them): raw columns kept, typed columns added
    expect(read.schema).toMatchObject({
      partition: 'PrimitiveType("integer")', offset: 'PrimitiveType("long")', key: 'PrimitiveType("binary")', value: 'PrimitiveType("binary")',
      id: 'PrimitiveType("long")', qty: 'PrimitiveType("long")', price: 'PrimitiveType("decimal(10,2)")', sku: 'PrimitiveType("string")',
      at: 'PrimitiveType("timestamp")', note: 'PrimitiveType("string")', decode_error: 'PrimitiveType("string")',
    });
    expect(read.schema['tags']).toMatch(/^ArrayType\(PrimitiveType\("string"\)/);
    expect(read.schema['attrs']).toMatch(/^MapType\(PrimitiveType\("string"\), PrimitiveType\("integer"\)/);

    for (const p of produced.records.filter((r) => r.row)) {
      const row = read.rows.find((r) => r.partition === p.partition && r.offset === p.offset)!;
      const want = p.row!;
      expect(row, `${p.partition}/${p.offset}`).toMatchObject({
        id: want['id'], qty: want['qty'], price: want['price'], sku: want['sku'], tags: want['tags'], decode_error: null,
        at_us: (want['at'] as number) * 1000, at_tz: 'UTC', // timestamp-millis -> a UTC timestamp
        // the optional v2 field: null in every v1 row (written before the column existed)
        note: p.version === 1 ? null : want['note'],
      });
      expect(row['attrs']).toEqual(want['attrs']); // Polars reads the Delta map as {key: value}
    }
  });

  it('Polars SQL sums the typed fields exactly', () => {
    const good = produced.records.filter((r) => r.row);
    expect(read.sql.rows).toBe(good.length);
    expect(read.sql.sum_qty).toBe(produced.sum_qty);
    const cents = good.reduce((s, r) => s + Math.round(Number(r.row!['price']) * 100), 0);
    expect(read.sql.sum_price).toBe((cents / 100).toFixed(2));
    expect(read.sql.notes).toBe(good.filter((r) => r.row!['note'] !== undefined && r.row!['note'] !== null).length);
  });

  it('an unknown schema id and a truncated body land with decode_error; the counter on /metrics counts them', async () => {
    const bad = produced.records.filter((r) => r.bad);
    expect(read.bad.map((b) => [b.partition, b.offset])).toEqual(bad.map((b) => [b.partition, b.offset]));
    expect(read.bad.map((b) => b.decode_error)).toEqual([
      'value: schema id 987654 is not in the registry',
      `value: Avro body does not decode with schema id ${produced.ids[0]}: truncated (3 bytes)`,
    ]);
    for (const b of bad) {
      const row = read.rows.find((r) => r.partition === b.partition && r.offset === b.offset)!;
      expect(row).toMatchObject({ id: null, qty: null, price: null, note: null });
      expect(row['value_len']).toBeGreaterThan(0); // the raw bytes are kept
    }
    const metrics = await (await fetch(`http://${HOST}:${metricsPort}/metrics`)).text();
    expect(metrics).toContain(`runnel_archiver_decode_errors_total{topic="${TOPIC}",part="value",reason="unknown_schema"} 1`);
    expect(metrics).toContain(`runnel_archiver_decode_errors_total{topic="${TOPIC}",part="value",reason="corrupt"} 1`);
  });

  it('the Delta log: the v2 column arrives by a metaData action in the commit of its first file', () => {
    const logDir = path.join(lake, TOPIC, '_delta_log');
    const commits = fs.readdirSync(logDir).filter((n) => /^\d{20}\.json$/.test(n)).sort()
      .map((n) => fs.readFileSync(path.join(logDir, n), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, { schemaString?: string }>));
    const schemaOf = (c: Record<string, { schemaString?: string }>[]) => c.find((a) => a['metaData'])?.['metaData']?.schemaString;
    const withNote = commits.findIndex((c) => schemaOf(c)?.includes('"name":"note"'));
    expect(withNote).toBeGreaterThan(0);
    expect(commits[withNote]!.some((a) => a['add'])).toBe(true);
    // before it, the table had the v1 columns and not `note`
    const before = commits.slice(0, withNote).map(schemaOf).filter(Boolean).pop()!;
    expect(before).toContain('"name":"qty"');
    expect(before).not.toContain('"name":"note"');
  });

  it('typed columns switched on later with AlterConfigs: rows committed before read null in them; a value other than none|id|latest is refused', async () => {
    const topic = 'pings';
    const rows = (n: number) => waitFor(async () => {
      const x = await python<Read>('typed_read.py', [path.join(lake, topic)]).catch(() => undefined);
      return x && x.rows.length === n ? x : undefined;
    }, 60_000, `${n} records of ${topic} in the lake`);
    await python('typed_alter.py', [registryUrl, broker.bootstrap, topic, 'first']);
    await rows(1); // committed raw, before the alter
    const altered = await python<{ always: string; id: string }>('typed_alter.py', [registryUrl, broker.bootstrap, topic, 'alter']);
    expect(altered).toEqual({ always: 'INVALID_CONFIG', id: 'ok' });
    const r = await rows(2);
    expect(r.schema['n']).toBe('PrimitiveType("long")');
    expect(r.rows.map((x) => [x.offset, x['n'], x.decode_error])).toEqual([[0, null, null], [1, 2, null]]);
  });
});

// The same fields, from confluent-kafka's ProtobufSerializer and JSONSerializer
// (typed_serdes.py): price is a double, `at` a google.protobuf.Timestamp / a
// date-time string, the map's values int32 / integer.
describe.skipIf(onKafka).each([
  { format: 'protobuf', type: 'PROTOBUF', label: 'Protobuf', attrs: 'integer', truncated: /^value: Protobuf body does not decode with schema id \d+: / },
  { format: 'json', type: 'JSON', label: 'JSON', attrs: 'long', truncated: /^value: JSON body does not decode with schema id \d+: not JSON/ },
])('typed lake columns from $label records (confluent-kafka)', ({ format, type, attrs, truncated }) => {
  const topic = `orders-${format}`;
  let produced: SerdesProduced;
  let read: Read;

  it('v1 then v2 register, an incompatible v3 gets 409; every record archives with typed columns, v1 rows null in the v2 field', async () => {
    produced = await python<SerdesProduced>('typed_serdes.py', [format, registryUrl, broker.bootstrap, topic]);
    expect(produced.types).toEqual([type, type]);
    expect(produced.v3).toBe(409);
    read = await waitFor(async () => {
      const r = await python<Read>('typed_read.py', [path.join(lake, topic)]).catch(() => undefined);
      return r && r.rows.length === produced.records.length ? r : undefined;
    }, 60_000, `every record of ${topic} in the lake (archiver log: ${archiver.log.slice(-5).join(' | ')})`);
    expect(read.schema).toMatchObject({
      key: 'PrimitiveType("binary")', value: 'PrimitiveType("binary")',
      id: 'PrimitiveType("long")', qty: 'PrimitiveType("long")', price: 'PrimitiveType("double")', sku: 'PrimitiveType("string")',
      at: 'PrimitiveType("timestamp")', note: 'PrimitiveType("string")', decode_error: 'PrimitiveType("string")',
    });
    expect(read.schema['tags']).toMatch(/^ArrayType\(PrimitiveType\("string"\)/);
    expect(read.schema['attrs']).toMatch(new RegExp(`^MapType\\(PrimitiveType\\("string"\\), PrimitiveType\\("${attrs}"\\)`));
    for (const p of produced.records.filter((r) => r.row)) {
      const row = read.rows.find((r) => r.partition === p.partition && r.offset === p.offset)!;
      const want = p.row!;
      expect(row, `${p.partition}/${p.offset}`).toMatchObject({
        id: want['id'], qty: want['qty'], sku: want['sku'], tags: want['tags'], decode_error: null,
        at_us: (want['at'] as number) * 1000, at_tz: 'UTC',
        note: p.version === 1 ? null : want['note'],
      });
      expect(Number(row['price'])).toBe(want['price']);
      expect(row['attrs']).toEqual(want['attrs']);
    }
  });

  it('Polars SQL sums the typed fields', () => {
    const good = produced.records.filter((r) => r.row);
    expect(read.sql.rows).toBe(good.length);
    expect(read.sql.sum_qty).toBe(produced.sum_qty); // int64: exact
    expect(Number(read.sql.sum_price)).toBeCloseTo(good.reduce((s, r) => s + Number(r.row!['price']), 0), 9); // doubles
    expect(read.sql.notes).toBe(good.filter((r) => r.row!['note'] !== undefined && r.row!['note'] !== null).length);
  });

  it('an unknown schema id and a truncated body land with decode_error', () => {
    const bad = produced.records.filter((r) => r.bad);
    expect(read.bad.map((b) => [b.partition, b.offset])).toEqual(bad.map((b) => [b.partition, b.offset]));
    expect(read.bad.map((b) => b.decode_error)).toEqual(['value: schema id 987654 is not in the registry', expect.stringMatching(truncated)]);
  });
});
