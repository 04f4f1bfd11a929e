// The shared harness of the tiered-storage tests (issue 29, KIP-405 on the
// archiver's lake): one Redis of the suite's backend (RUNNEL_TEST_BACKEND:
// redis, valkey, or a Redis Cluster), one broker with `lake` set and a
// 500 ms retention pass, one archiver on the same lake (a local folder, or a
// moto S3 bucket), and what the tests look at: ListOffsets EARLIEST (-2, the
// Kafka log start), EARLIEST_LOCAL (-4, the Redis log start), LATEST_TIERED
// (-5, the lake's highest offset), and each partition's Redis stream.
//
//   const t = useTiered();                        // beforeAll / afterAll of the file
//   await t.createTopic('orders', 3, { 'local.retention.bytes': '65536' });
//   await t.waitTrimmed('orders', 3, 100);        // Redis lost offsets 0..100, EARLIEST stays 0
//
// Below the harness: varied records (genRecords), a KafkaJS producer that
// notes each record's offset (produce), three replay clients that read a
// topic from offset 0 (kcatReplay: kcat -C -e with a length-prefixed -f
// format; javaGroupReplay: Kafka's console consumer in a consumer group;
// confluentReplay: confluent-kafka in a consumer group) and diffRecords,
// which compares what a client read with what was produced.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import kafkajs from 'kafkajs';
import { afterAll, beforeAll } from 'vitest';
import { openRedis, type RedisClient } from '../../../common/redis/connect.js';
import { partitionTag } from '../../../common/keys.js';
import { CreateTopics } from '../../../broker/src/protocol/messages/create-topics.js';
import { ListOffsets } from '../../../broker/src/protocol/messages/list-offsets.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startRunnel, type RunnelBroker } from '../../helpers/runnel.js';
import { WireClient } from '../../helpers/wire.js';
import { sleep } from '../../helpers/procs.js';
import { runJava } from '../../helpers/java.js';
import { requireVenvPython, run } from '../../interop/clients/support.js';
import { archiverEnv, BIN as ARCHIVER_BIN, S3_KEY, S3_SECRET, spawnArchiver, startS3, type ArchiverProc, type S3Handle } from '../../archiver/integration/helpers.js';

/** ListOffsets special timestamps (KIP-405 added -4 in v8 and -5 in v9). */
export const LATEST = -1;
export const EARLIEST = -2;
export const EARLIEST_LOCAL = -4;
export const LATEST_TIERED = -5;

export interface TieredOptions {
  /** The lake on a moto S3 server (s3://lake/tiered) instead of a local folder. */
  s3?: boolean;
  /** Broker settings (`--set k=v`) over the harness's. */
  broker?: Record<string, string>;
  /** Archiver environment over the harness's. */
  archiver?: Record<string, string>;
  /**
   * With `s3`: what the broker reaches S3 through (a fault proxy in front of
   * the bucket, say), given the bucket's server; the archiver keeps the direct
   * endpoint. Stopped with the harness.
   */
  brokerS3Front?: (s3: S3Handle) => Promise<{ endpoint: string; stop(): Promise<void> }>;
}

export interface Tiered {
  redis: RedisServer;
  /** An ioredis client (a Cluster client on a cluster backend) for the test's own reads. */
  client: RedisClient;
  broker: RunnelBroker;
  /** The running archiver (replaced by restartArchiver()). */
  archiver: ArchiverProc;
  s3?: S3Handle;
  /** The lake URL the broker and the archiver share (file:///... or s3://lake/tiered). */
  lake: string;
  /** The local lake folder (local lakes only). */
  lakeDir?: string;
  bootstrap: string;
  /** A raw Kafka connection to the broker (ListOffsets here; Fetch and others for the tests). */
  wire: WireClient;
  /** The archiver's environment (for a second archiver or a restart with changes). */
  archiverEnv: Record<string, string>;
  /** SIGKILL the archiver (if running) and start a new one, `env` over the harness's. */
  restartArchiver(env?: Record<string, string>): Promise<void>;
  /** CreateTopics v7 with remote.storage.enable=true, retention.ms=-1, local.retention.ms=1000, `configs` over them. */
  createTopic(topic: string, partitions: number, configs?: Record<string, string>): Promise<void>;
  /** ListOffsets v9 for every partition (index = partition). Throws on an error code. */
  listOffsets(topic: string, partitions: number, timestamp: number): Promise<number[]>;
  /**
   * Waits until every partition's EARLIEST_LOCAL is past `offset` (a number,
   * or one per partition): Redis no longer holds it. EARLIEST must stay 0 all
   * along (the lake serves it); throws at once when it moves. Resolves with
   * the EARLIEST_LOCAL offsets.
   */
  waitTrimmed(topic: string, partitions: number, offset: number | number[], timeoutMs?: number): Promise<number[]>;
  /** What Redis holds of each partition. */
  redisPartitions(topic: string, partitions: number): Promise<RedisPartition[]>;
  stop(): Promise<void>;
}

export interface RedisPartition {
  partition: number;
  /** The partition's stream key (placement salt included). */
  key: string;
  /** Stream entries (one per batch). */
  entries: number;
  /** MEMORY USAGE of the stream. */
  memoryBytes: number;
  /** Base offset of the first batch in the stream (its id's first part), -1 when empty. */
  firstBaseOffset: number;
  /** The `:meta` hash (next, logStartOffset, archived, remoteLogStart...). */
  meta: Record<string, string>;
}

const S3_BUCKET = 'lake';

function startArchiverProc(env: Record<string, string>): ArchiverProc {
  if (!fs.existsSync(ARCHIVER_BIN)) throw new Error(`${ARCHIVER_BIN} not found: run \`npm run build\` first`);
  return spawnArchiver(env);
}

export async function startTiered(opts: TieredOptions = {}): Promise<Tiered> {
  const cleanup: (() => Promise<void>)[] = [];
  const undo = async (): Promise<void> => {
    for (const f of cleanup.reverse()) await f().catch(() => undefined);
  };
  try {
    const redis = await startRedis();
    cleanup.push(() => redis.stop());
    const { client } = await openRedis(redis.url);
    cleanup.push(async () => client.disconnect());

    let s3: S3Handle | undefined;
    let lake: string;
    let lakeDir: string | undefined;
    const brokerSets: Record<string, string> = { 'log.retention.check.interval.ms': '500' };
    const brokerEnv: Record<string, string> = {};
    if (opts.s3) {
      s3 = await startS3(S3_BUCKET);
      cleanup.push(() => s3!.stop());
      lake = `s3://${S3_BUCKET}/tiered`;
      let endpoint = s3.endpoint;
      if (opts.brokerS3Front) {
        const front = await opts.brokerS3Front(s3);
        cleanup.push(() => front.stop());
        endpoint = front.endpoint;
      }
      Object.assign(brokerSets, { 's3.endpoint': endpoint, 's3.force.path.style': 'true', 's3.region': 'us-east-1' });
      Object.assign(brokerEnv, { AWS_ACCESS_KEY_ID: S3_KEY, AWS_SECRET_ACCESS_KEY: S3_SECRET, AWS_REGION: 'us-east-1' });
    } else {
      lakeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rn-tiered-lake-'));
      const dir = lakeDir;
      cleanup.push(async () => {
        if (process.env.RUNNEL_TEST_KEEP !== '1') fs.rmSync(dir, { recursive: true, force: true });
      });
      lake = `file://${lakeDir}`;
    }
    brokerSets.lake = lake;
    Object.assign(brokerSets, opts.broker);

    const broker = await startRunnel({
      redisUrl: redis.url,
      env: brokerEnv,
      args: Object.entries(brokerSets).flatMap(([k, v]) => ['--set', `${k}=${v}`]),
    });
    cleanup.push(() => broker.stop());

    const env = archiverEnv({
      redisUrl: redis.url,
      lake,
      s3Endpoint: s3?.endpoint,
      extra: { RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: '500', ...opts.archiver },
    });
    let archiver = startArchiverProc(env);
    cleanup.push(async () => void (await archiver.kill('SIGTERM')));

    const wire = await WireClient.connect(broker.port);
    cleanup.push(async () => wire.close());

    const placement = async (topic: string): Promise<number[]> => {
      const raw = await client.hget('rn:topics', topic);
      if (raw === null) throw new Error(`topic ${topic} is not in rn:topics`);
      return (JSON.parse(raw) as { placement?: number[] }).placement ?? [];
    };

    const listOffsets = async (topic: string, partitions: number, timestamp: number): Promise<number[]> => {
      const r = await wire.request(ListOffsets, 9, {
        replicaId: -1,
        isolationLevel: 0,
        topics: [{ name: topic, partitions: Array.from({ length: partitions }, (_, p) => ({ partitionIndex: p, currentLeaderEpoch: -1, timestamp })) }],
      });
      const out: number[] = [];
      for (const p of r.topics[0].partitions as { partitionIndex: number; errorCode: number; offset: number }[]) {
        if (p.errorCode !== 0) throw new Error(`ListOffsets ${topic}/${p.partitionIndex} timestamp ${timestamp}: error ${p.errorCode}`);
        out[p.partitionIndex] = Number(p.offset);
      }
      return out;
    };

    const t: Tiered = {
      redis,
      client,
      broker,
      get archiver() {
        return archiver;
      },
      s3,
      lake,
      lakeDir,
      bootstrap: broker.bootstrap,
      wire,
      archiverEnv: env,
      async restartArchiver(extra = {}) {
        await archiver.kill('SIGKILL');
        archiver = startArchiverProc({ ...env, ...extra });
      },
      async createTopic(topic, partitions, configs = {}) {
        const all = { 'remote.storage.enable': 'true', 'retention.ms': '-1', 'local.retention.ms': '1000', ...configs };
        const r = await wire.request(CreateTopics, 7, {
          topics: [{ name: topic, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: Object.entries(all).map(([name, value]) => ({ name, value })) }],
          timeoutMs: 10_000,
        });
        const res = r.topics[0] as { errorCode: number; errorMessage: string | null };
        if (res.errorCode !== 0) throw new Error(`CreateTopics ${topic}: error ${res.errorCode} ${res.errorMessage ?? ''}`);
      },
      listOffsets,
      async waitTrimmed(topic, partitions, offset, timeoutMs = 60_000) {
        const past = (p: number): number => (typeof offset === 'number' ? offset : offset[p]!);
        const end = Date.now() + timeoutMs;
        let local: number[] = [];
        for (;;) {
          const earliest = await listOffsets(topic, partitions, EARLIEST);
          if (earliest.some((o) => o !== 0)) throw new Error(`${topic}: EARLIEST moved off 0 (${earliest.join(',')}) while Redis was trimmed`);
          local = await listOffsets(topic, partitions, EARLIEST_LOCAL);
          if (local.every((o, p) => o > past(p))) return local;
          if (Date.now() > end) {
            const rp = await t.redisPartitions(topic, partitions).catch(() => []);
            throw new Error(
              `${topic}: EARLIEST_LOCAL ${local.join(',')} not past ${String(offset)} after ${timeoutMs} ms; meta ${JSON.stringify(rp.map((x) => x.meta))}\narchiver log tail:\n${archiver.log.slice(-20).join('\n')}`,
            );
          }
          await sleep(200);
        }
      },
      async redisPartitions(topic, partitions) {
        const salts = await placement(topic);
        return Promise.all(
          Array.from({ length: partitions }, async (_, p) => {
            const tag = partitionTag(topic, p, salts[p] ?? 0);
            const key = `rn:p:${tag}:log`;
            const [entries, first, meta, mem] = await Promise.all([
              client.xlen(key),
              client.xrange(key, '-', '+', 'COUNT', 1),
              client.hgetall(`rn:p:${tag}:meta`),
              redis.command(`MEMORY USAGE ${key} SAMPLES 0`),
            ]);
            const id = first[0]?.[0];
            return {
              partition: p,
              key,
              entries,
              memoryBytes: /^:(\d+)/.test(mem) ? Number(/^:(\d+)/.exec(mem)![1]) : 0,
              firstBaseOffset: id === undefined ? -1 : Number(id.split('-')[0]),
              meta,
            };
          }),
        );
      },
      stop: undo,
    };
    return t;
  } catch (e) {
    await undo();
    throw e;
  }
}

/** One tiered broker + archiver for the test file: started in beforeAll, stopped in afterAll. */
export function useTiered(opts: TieredOptions = {}): Tiered {
  let t: Tiered | undefined;
  beforeAll(async () => {
    t = await startTiered(opts);
  });
  afterAll(async () => {
    await t?.stop();
  });
  return new Proxy({} as Tiered, {
    get(_target, prop) {
      if (!t) throw new Error('useTiered: not started yet (use it inside a test)');
      const v = Reflect.get(t, prop) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
  });
}

// ------------------------------------------------------------------ records

/** A record as produced (offset filled in by produce()) or as a client read it back. */
export interface Rec {
  partition: number;
  offset: number;
  timestamp: number;
  /** 'CreateTime' / 'LogAppendTime', where the client reports it. */
  timestampType?: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: [string, Buffer | null][];
}

/** A small deterministic PRNG (mulberry32), so a failing run can be repeated byte for byte. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The console consumer's null literal (see javaGroupReplay). No generated key
 * or value equals it, so a null and a value stay apart in its output.
 */
const JAVA_NULL = Buffer.from('\x1cNULL', 'latin1');

/**
 * `perPartition` records for each partition: null, empty and binary keys
 * (every byte value), null, empty and binary values from a few bytes to
 * 20 KB, no headers, one header, or repeated and empty ones with non-ASCII
 * names; CreateTime timestamps from `startTs`. Header values hold no ',',
 * newline or NUL (kcat's %h prints them bare, `k=v,k=v`, as C strings),
 * header names no ':', '=' or ',', and headers of one name come together (KafkaJS takes headers as an
 * object: one entry per name, an array for repeats).
 */
export function genRecords(partitions: number, perPartition: number, opts: { seed?: number; startTs?: number; firstIndex?: number } = {}): Rec[] {
  const rnd = prng(opts.seed ?? 29);
  const bytes = (n: number, avoid: number[] = []): Buffer => {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) {
      let v = Math.floor(rnd() * 256);
      while (avoid.includes(v)) v = (v + 1) % 256;
      b[i] = v;
    }
    return b;
  };
  const startTs = opts.startTs ?? Date.now() - 3_600_000;
  const out: Rec[] = [];
  for (let p = 0; p < partitions; p++) {
    for (let j = 0; j < perPartition; j++) {
      const i = (opts.firstIndex ?? 0) + j;
      const key = i % 5 === 0 ? null : i % 13 === 1 ? Buffer.alloc(0) : bytes(1 + Math.floor(rnd() * 40));
      const size = i % 97 === 50 ? 8000 + Math.floor(rnd() * 12_000) : Math.floor(rnd() * 600);
      const value = i % 11 === 3 ? null : i % 7 === 2 ? Buffer.alloc(0) : bytes(Math.max(1, size));
      if ((key && key.equals(JAVA_NULL)) || (value && value.equals(JAVA_NULL))) throw new Error('genRecords: a record equals the console consumer null literal');
      const headers: [string, Buffer | null][] =
        i % 4 === 0
          ? []
          : i % 4 === 1
            ? [['trace', Buffer.from(`${p}-${i}-${Math.floor(rnd() * 1e9).toString(16)}`)]]
            : i % 4 === 2
              ? [['h-ü', bytes(1 + Math.floor(rnd() * 30), [0x00, 0x2c, 0x0a])], ['h-ü', Buffer.alloc(0)], ['bin.€', bytes(Math.floor(rnd() * 60), [0x00, 0x2c, 0x0a])]]
              : [['empty', Buffer.alloc(0)]];
      out.push({ partition: p, offset: -1, timestamp: startTs + i * 10 + (i % 3), key, value, headers });
    }
  }
  return out;
}

/**
 * Produces `records` with KafkaJS (idempotent, acks=all) in batches of `chunk`
 * records per partition, every other batch gzip-compressed, and sets each
 * record's offset from the broker's answer.
 */
export async function produce(bootstrap: string, topic: string, records: Rec[], opts: { chunk?: number } = {}): Promise<void> {
  const kafka = new kafkajs.Kafka({ clientId: 'tiered-replay-producer', brokers: [bootstrap], logLevel: kafkajs.logLevel.NOTHING });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  await producer.connect();
  try {
    const chunk = opts.chunk ?? 40;
    const byPart = new Map<number, Rec[]>();
    for (const r of records) byPart.set(r.partition, [...(byPart.get(r.partition) ?? []), r]);
    await Promise.all(
      [...byPart.entries()].map(async ([partition, recs]) => {
        for (let i = 0; i < recs.length; i += chunk) {
          const batch = recs.slice(i, i + chunk);
          const [md] = await producer.send({
            topic,
            acks: -1,
            compression: (i / chunk) % 2 === 1 ? kafkajs.CompressionTypes.GZIP : kafkajs.CompressionTypes.None,
            messages: batch.map((r) => ({ partition, key: r.key, value: r.value, timestamp: String(r.timestamp), headers: headersObject(r.headers) })),
          });
          if (!md || md.errorCode !== 0) throw new Error(`produce ${topic}/${partition}: ${JSON.stringify(md)}`);
          batch.forEach((r, j) => (r.offset = Number(md.baseOffset) + j));
        }
      }),
    );
  } finally {
    await producer.disconnect();
  }
}

function headersObject(headers: [string, Buffer | null][]): Record<string, Buffer[]> {
  const o: Record<string, Buffer[]> = {};
  for (const [k, v] of headers) {
    if (v === null) throw new Error('KafkaJS cannot send a null header value');
    (o[k] ??= []).push(v);
  }
  return o;
}

/**
 * What `got` lacks or has wrong against `expected` (empty: the same): every
 * record once, in offset order per partition, with the same timestamp
 * (CreateTime where the client says), key, value and headers, byte for byte.
 */
export function diffRecords(expected: Rec[], got: Rec[], limit = 20): string[] {
  const problems: string[] = [];
  const want = new Map(expected.map((r) => [`${r.partition}/${r.offset}`, r]));
  const last = new Map<number, number>();
  const seen = new Set<string>();
  const hex = (b: Buffer | null): string => (b === null ? 'null' : `0x${b.toString('hex')}`);
  const hdrs = (h: [string, Buffer | null][]): string => JSON.stringify(h.map(([k, v]) => [k, hex(v)]));
  for (const g of got) {
    const id = `${g.partition}/${g.offset}`;
    const prev = last.get(g.partition) ?? -1;
    if (g.offset <= prev) problems.push(`${id} read after offset ${prev}`);
    last.set(g.partition, Math.max(prev, g.offset));
    if (seen.has(id)) {
      problems.push(`${id} read twice`);
      continue;
    }
    seen.add(id);
    const e = want.get(id);
    if (!e) {
      problems.push(`${id} was not produced`);
      continue;
    }
    if (g.timestamp !== e.timestamp) problems.push(`${id} timestamp ${g.timestamp} != ${e.timestamp}`);
    if (g.timestampType !== undefined && g.timestampType !== 'CreateTime') problems.push(`${id} timestamp type ${g.timestampType}`);
    if (hex(g.key) !== hex(e.key)) problems.push(`${id} key ${hex(g.key).slice(0, 80)} != ${hex(e.key).slice(0, 80)}`);
    if (hex(g.value) !== hex(e.value)) problems.push(`${id} value (${g.value?.length ?? 'null'} bytes) != (${e.value?.length ?? 'null'} bytes)`);
    if (hdrs(g.headers) !== hdrs(e.headers)) problems.push(`${id} headers ${hdrs(g.headers)} != ${hdrs(e.headers)}`);
  }
  for (const id of want.keys()) if (!seen.has(id)) problems.push(`${id} missing`);
  return problems.length > limit ? [...problems.slice(0, limit), `... ${problems.length - limit} more`] : problems;
}

// ------------------------------------------------------------------ replay clients

/**
 * kcat -C -o beginning -e (librdkafka, no group, CRCs checked): the whole
 * topic as records. The -f format gives key and value lengths (%K, %S: -1 for
 * null), so their bytes are cut out exactly whatever they hold.
 */
export async function kcatReplay(bootstrap: string, topic: string, extra: string[] = []): Promise<Rec[]> {
  const r = await run(
    'kcat',
    ['-b', bootstrap, '-C', '-t', topic, '-o', 'beginning', '-e', '-q', '-X', 'check.crcs=true', '-f', '%p\\t%o\\t%T\\t%K\\t%k\\t%S\\t%s\\t%h\\n', ...extra],
    { timeoutMs: 120_000 },
  );
  if (r.code !== 0) throw new Error(`kcat -C ${topic} exited ${r.code}: ${r.stderr}`);
  return parseKcat(r.stdout);
}

function parseKcat(out: Buffer): Rec[] {
  const recs: Rec[] = [];
  let pos = 0;
  const field = (end: number): Buffer => {
    const i = out.indexOf(end, pos);
    if (i < 0) throw new Error(`kcat output: no ${end} after byte ${pos}`);
    const f = out.subarray(pos, i);
    pos = i + 1;
    return f;
  };
  const sized = (len: number): Buffer | null => {
    const b = len < 0 ? null : Buffer.from(out.subarray(pos, pos + len));
    pos += Math.max(0, len);
    if (out[pos] !== 0x09) throw new Error(`kcat output: no tab after a ${len}-byte field at ${pos}`);
    pos++;
    return b;
  };
  while (pos < out.length) {
    const partition = Number(field(0x09).toString());
    const offset = Number(field(0x09).toString());
    const timestamp = Number(field(0x09).toString());
    const key = sized(Number(field(0x09).toString()));
    const value = sized(Number(field(0x09).toString()));
    const h = field(0x0a);
    const headers: [string, Buffer | null][] = [];
    for (let i = 0; i < h.length; ) {
      let j = h.indexOf(0x2c, i);
      if (j < 0) j = h.length;
      const kv = h.subarray(i, j);
      const eq = kv.indexOf(0x3d);
      headers.push([kv.subarray(0, eq).toString('utf8'), Buffer.from(kv.subarray(eq + 1))]);
      i = j + 1;
    }
    recs.push({ partition, offset, timestamp, key, value, headers });
  }
  return recs;
}

// Console consumer output: one record per line, fields apart by \x1f, headers
// apart by \x1d, records ended by \x1e\n. Keys, values and header values go
// through BytesDeserializer, whose toString() writes printable ASCII but '\'
// as is and every other byte as \xHH, so the output is ASCII and the bytes
// come back exactly; a null prints the null literal (through the same
// deserializer).
const FS = '\x1f';
const HS = '\x1d';
const RS = '\x1e\n';
const BYTES_DESER = 'org.apache.kafka.common.serialization.BytesDeserializer';

function unescapeBytes(s: string): Buffer | null {
  if (s === '\\x1CNULL') return null;
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && s[i + 1] === 'x') {
      out.push(parseInt(s.slice(i + 2, i + 4), 16));
      i += 3;
    } else out.push(s.charCodeAt(i));
  }
  return Buffer.from(out);
}

/**
 * A Java consumer group (Kafka's console consumer, kafka-clients'
 * KafkaConsumer.subscribe with auto.offset.reset=earliest through
 * --from-beginning, CRCs checked) reading `count` records of the topic.
 */
export async function javaGroupReplay(bootstrap: string, topic: string, group: string, count: number): Promise<Rec[]> {
  const props: Record<string, string> = {
    'print.timestamp': 'true',
    'print.partition': 'true',
    'print.offset': 'true',
    'print.headers': 'true',
    'print.key': 'true',
    'print.value': 'true',
    'key.deserializer': BYTES_DESER,
    'value.deserializer': BYTES_DESER,
    'headers.deserializer': BYTES_DESER,
    'key.separator': FS,
    'headers.separator': HS,
    'line.separator': RS,
    'null.literal': JAVA_NULL.toString('latin1'),
  };
  const r = await runJava(
    'org.apache.kafka.tools.consumer.ConsoleConsumer',
    [
      '--bootstrap-server', bootstrap,
      '--topic', topic,
      '--group', group,
      '--from-beginning',
      '--max-messages', String(count),
      '--timeout-ms', '60000',
      '--command-property', 'check.crcs=true',
      '--command-property', 'client.id=tiered-replay-java',
      ...Object.entries(props).flatMap(([k, v]) => ['--formatter-property', `${k}=${v}`]),
    ],
    { timeoutMs: 180_000 },
  );
  if (r.code !== 0 || r.timedOut) throw new Error(`console consumer exited ${r.code} (timed out: ${r.timedOut}):\n${r.stderr.slice(-4000)}`);
  const recs: Rec[] = [];
  for (const line of r.stdout.split(RS)) {
    if (line === '') continue;
    const f = line.split(FS);
    if (f.length !== 6) throw new Error(`console consumer line with ${f.length} fields: ${JSON.stringify(line.slice(0, 200))}`);
    const [ts, part, off, hdrs, key, value] = f as [string, string, string, string, string, string];
    const tsm = /^(CreateTime|LogAppendTime):(-?\d+)$/.exec(ts);
    if (!tsm || !part.startsWith('Partition:') || !off.startsWith('Offset:')) throw new Error(`console consumer line: ${JSON.stringify(line.slice(0, 200))}`);
    const headers: [string, Buffer | null][] =
      hdrs === 'NO_HEADERS'
        ? []
        : hdrs.split(HS).map((h) => {
            const c = h.indexOf(':');
            return [h.slice(0, c), unescapeBytes(h.slice(c + 1))];
          });
    recs.push({
      partition: Number(part.slice('Partition:'.length)),
      offset: Number(off.slice('Offset:'.length)),
      timestamp: Number(tsm[2]),
      timestampType: tsm[1],
      key: unescapeBytes(key),
      value: unescapeBytes(value),
      headers,
    });
  }
  return recs;
}

// confluent-kafka (librdkafka) in a consumer group: subscribe, earliest, CRCs
// checked; reads until `total` records, then one more second for extras.
const CONFLUENT_REPLAY = `
import base64, json, sys, time
from confluent_kafka import Consumer, TIMESTAMP_CREATE_TIME, TIMESTAMP_LOG_APPEND_TIME
bootstrap, topic, group, total = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
c = Consumer({'bootstrap.servers': bootstrap, 'group.id': group, 'client.id': 'tiered-replay-confluent',
              'auto.offset.reset': 'earliest', 'enable.auto.commit': False, 'check.crcs': True})
c.subscribe([topic])
b64 = lambda b: None if b is None else base64.b64encode(b).decode('ascii')
types = {TIMESTAMP_CREATE_TIME: 'CreateTime', TIMESTAMP_LOG_APPEND_TIME: 'LogAppendTime'}
n, errors, deadline, until = 0, [], time.time() + 120, None
while time.time() < deadline and (until is None or time.time() < until):
    for m in c.consume(num_messages=500, timeout=0.5):
        if m.error():
            errors.append(str(m.error()))
            continue
        tt, ts = m.timestamp()
        sys.stdout.write(json.dumps({'p': m.partition(), 'o': m.offset(), 'ts': ts, 'tt': types.get(tt, str(tt)),
                                     'k': b64(m.key()), 'v': b64(m.value()),
                                     'h': [[k, b64(v)] for k, v in (m.headers() or [])]}) + '\\n')
        n += 1
    if n >= total and until is None:
        until = time.time() + 1.0
c.close()
sys.stdout.write(json.dumps({'done': n, 'errors': errors}) + '\\n')
`;

/** confluent-kafka in a consumer group reading `total` records of the topic; `errors`: the consumer errors it saw. */
export async function confluentReplay(bootstrap: string, topic: string, group: string, total: number): Promise<{ records: Rec[]; errors: string[] }> {
  const r = await run(requireVenvPython(), ['-c', CONFLUENT_REPLAY, bootstrap, topic, group, String(total)], { timeoutMs: 180_000 });
  if (r.code !== 0) throw new Error(`confluent-kafka replay exited ${r.code}: ${r.stderr.slice(-4000)}`);
  const b = (s: string | null): Buffer | null => (s === null ? null : Buffer.from(s, 'base64'));
  const records: Rec[] = [];
  let errors: string[] | undefined;
  for (const line of r.stdout.toString('utf8').split('\n')) {
    if (line === '') continue;
    const o = JSON.parse(line) as { p: number; o: number; ts: number; tt: string; k: string | null; v: string | null; h: [string, string | null][]; done?: number; errors?: string[] };
    if (o.done !== undefined) {
      errors = o.errors ?? [];
      continue;
    }
    records.push({ partition: o.p, offset: o.o, timestamp: o.ts, timestampType: o.tt, key: b(o.k), value: b(o.v), headers: o.h.map(([k, v]) => [k, b(v)]) });
  }
  if (!errors) throw new Error(`confluent-kafka replay printed no summary: ${r.stderr.slice(-2000)}`);
  return { records, errors };
}
