// Fault-injection and log-verification helpers for the durability tests
// (issue 8): raw reads of a partition's Redis stream, a long-running Java
// idempotent producer with keyed records, a concurrent kcat consumer, process
// signals (SIGSTOP/SIGCONT), a Kafka restart after SIGKILL, and checks that
// every acknowledged record is stored exactly once at its acknowledged offset.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { JAVA_CP, javaCds, log4jConfig, parseJsonLines, runJava, type JavaResult, type VerifiableEvent } from './java.js';
import type { KafkaBroker } from './kafka.js';
import { WireClient } from './wire.js';
import { Produce } from '../../broker/src/protocol/messages/produce.js';
import { CreateTopics } from '../../broker/src/protocol/messages/create-topics.js';
import { Metadata } from '../../broker/src/protocol/messages/metadata.js';
import { runCommand, spawnManaged, tailFile, waitFor, waitForPort, type ManagedProcess } from './procs.js';

// ------------------------------------------------------------ raw stream ---

export interface RawRecord {
  offset: number;
  key: string | null;
  value: string | null;
}

export interface RawEntry {
  /** Stream entry id as stored, e.g. '42-1'. */
  id: string;
  /** Offset encoded in the entry id. */
  idBase: number;
  /** baseOffset written into the batch bytes. */
  base: number;
  /** Number of offsets the batch covers (lastOffsetDelta + 1). */
  count: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  partitionLeaderEpoch: number;
  /** Records of an uncompressed batch; null for a compressed one. */
  records: RawRecord[] | null;
}

function readVarint(b: Buffer, pos: { o: number }): number {
  let shift = 0;
  let raw = 0;
  for (;;) {
    const byte = b[pos.o++]!;
    raw += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) break;
    shift += 7;
  }
  // zigzag
  return raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
}

/** Decodes the records of an uncompressed RecordBatch v2 (null if compressed). */
export function decodeBatch(bytes: Buffer): { base: number; count: number; producerId: number; producerEpoch: number; baseSequence: number; partitionLeaderEpoch: number; records: RawRecord[] | null } {
  const base = Number(bytes.readBigInt64BE(0));
  const partitionLeaderEpoch = bytes.readInt32BE(12);
  const attributes = bytes.readInt16BE(21);
  const lastOffsetDelta = bytes.readInt32BE(23);
  const producerId = Number(bytes.readBigInt64BE(43));
  const producerEpoch = bytes.readInt16BE(51);
  const baseSequence = bytes.readInt32BE(53);
  const n = bytes.readInt32BE(57);
  let records: RawRecord[] | null = null;
  if ((attributes & 0x07) === 0) {
    records = [];
    const pos = { o: 61 };
    for (let i = 0; i < n; i++) {
      const len = readVarint(bytes, pos);
      const end = pos.o + len;
      pos.o += 1; // attributes
      readVarint(bytes, pos); // timestamp delta (fits in 53 bits here)
      const offsetDelta = readVarint(bytes, pos);
      const kl = readVarint(bytes, pos);
      const key = kl < 0 ? null : bytes.subarray(pos.o, pos.o + kl).toString('utf8');
      if (kl > 0) pos.o += kl;
      const vl = readVarint(bytes, pos);
      const value = vl < 0 ? null : bytes.subarray(pos.o, pos.o + vl).toString('utf8');
      records.push({ offset: base + offsetDelta, key, value });
      pos.o = end;
    }
  }
  return { base, count: lastOffsetDelta + 1, producerId, producerEpoch, baseSequence, partitionLeaderEpoch, records };
}

/** Key of one partition's stream in layout v2 (`rn:p:{t/p}:log`). */
export const logKeyV2 = (topic: string, partition: number, prefix = 'rn'): string => `${prefix}:p:{${topic}/${partition}}:log`;
/** Layout v1 (before issue 8), so the same tests can show how old code fails. */
export const logKeyV1 = (topic: string, partition: number, prefix = 'rn'): string => `${prefix}:{${topic}/${partition}}:log`;

/** Every entry of a partition's stream, straight from Redis (v2 key; v1 if only that exists). */
export async function rawLog(redisUrl: string, topic: string, partition: number, prefix = 'rn'): Promise<RawEntry[]> {
  const r = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
  await r.connect();
  try {
    let key = logKeyV2(topic, partition, prefix);
    if (!(await r.exists(key)) && (await r.exists(logKeyV1(topic, partition, prefix)))) key = logKeyV1(topic, partition, prefix);
    const out: RawEntry[] = [];
    let start = '-';
    for (;;) {
      const page = (await r.xrangeBuffer(key, start, '+', 'COUNT', 500)) as Array<[Buffer, Buffer[]]>;
      for (const [idBuf, fields] of page) {
        const id = idBuf.toString('latin1');
        let bytes: Buffer | undefined;
        for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i]!.toString() === 'b') bytes = fields[i + 1];
        if (!bytes) throw new Error(`${key} entry ${id} has no 'b' field`);
        out.push({ id, idBase: Number(id.slice(0, id.indexOf('-'))), ...decodeBatch(bytes) });
      }
      if (page.length < 500) break;
      start = `(${out[out.length - 1]!.id}`;
    }
    return out;
  } finally {
    r.disconnect();
  }
}

/**
 * Problems in a stream's chain of batches: every entry's id must name its
 * batch's baseOffset, and each batch must start where the previous one ended
 * (no overlap, no gap). `from` is the expected first base offset (log start).
 */
export function chainProblems(entries: RawEntry[], from = 0): string[] {
  const problems: string[] = [];
  let expected = from;
  for (const e of entries) {
    if (e.idBase !== e.base) problems.push(`entry ${e.id}: batch baseOffset ${e.base} != id`);
    if (e.base !== expected) problems.push(`entry ${e.id}: base ${e.base}, expected ${expected} (${e.base > expected ? 'gap' : 'overlap'})`);
    expected = e.base + e.count;
  }
  return problems;
}

/** Records of all (uncompressed) entries, in offset order. */
export function rawRecords(entries: RawEntry[]): RawRecord[] {
  const out: RawRecord[] = [];
  for (const e of entries) {
    if (!e.records) throw new Error(`entry ${e.id} is compressed; rawRecords needs uncompressed batches`);
    out.push(...e.records);
  }
  return out;
}

// ---------------------------------------------------------------- kcat ---

export interface LogRecord {
  partition: number;
  offset: number;
  key: string;
  value: string;
}

const KCAT_FORMAT = 'R\t%p\t%o\t%k\t%s\\n';

function parseKcat(text: string): LogRecord[] {
  const out: LogRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('R\t')) continue;
    const f = line.split('\t');
    if (f.length < 5) continue; // a line cut short by a kill
    out.push({ partition: Number(f[1]), offset: Number(f[2]), key: f[3]!, value: f.slice(4).join('\t') });
  }
  return out;
}

/** Reads a whole topic with kcat (assign mode, no group), with keys. */
export async function readAll(bootstrap: string, topic: string): Promise<LogRecord[]> {
  const r = await runCommand('kcat', ['-b', bootstrap, '-C', '-t', topic, '-e', '-o', 'beginning', '-q', '-f', KCAT_FORMAT], { timeoutMs: 120_000 });
  if (r.code !== 0) throw new Error(`kcat failed (code ${r.code}): ${r.stderr.slice(-2000)}`);
  return parseKcat(r.stdout);
}

export interface ConcurrentConsumer {
  proc: ManagedProcess;
  /** Records printed so far (every fetch response the consumer got). */
  records(): LogRecord[];
  stop(): Promise<void>;
}

/** A kcat consumer (assign mode, from the beginning, never exits by itself) that logs every record it receives. */
export function startConsumer(bootstrap: string, topic: string): ConcurrentConsumer {
  const proc = spawnManaged(`kcat-${topic}`, 'kcat', ['-b', bootstrap, '-C', '-t', topic, '-o', 'beginning', '-u', '-f', KCAT_FORMAT,
    '-X', 'topic.metadata.refresh.interval.ms=1000']);
  return {
    proc,
    records: () => parseKcat(fs.readFileSync(proc.logFile, 'utf8')),
    stop: async () => { await proc.stop(3000); },
  };
}

// ------------------------------------------------------- Java producer ---

export interface AckedRecord {
  partition: number;
  offset: number;
  key: string;
  value: string;
}

export interface JavaProducerOptions {
  bootstrap: string;
  topic: string;
  maxMessages: number;
  throughput?: number;
  /** Keys 0..n-1, repeating (VerifiableProducer --repeating-keys). */
  repeatingKeys?: number;
  /** Values are `<prefix>.<n>`. */
  valuePrefix?: number;
  /** Producer properties on top of acks=all, idempotence, unlimited retries. */
  props?: Record<string, string | number>;
  timeoutMs?: number;
}

export interface JavaProducerResult {
  raw: JavaResult;
  events: VerifiableEvent[];
  acked: AckedRecord[];
  failed: VerifiableEvent[];
}

/** VerifiableProducer, idempotent, acks=all, unlimited retries: returns every acknowledged record with its partition and offset. */
export async function javaProducer(o: JavaProducerOptions): Promise<JavaProducerResult> {
  const props: Record<string, string | number> = {
    'enable.idempotence': 'true',
    acks: 'all',
    retries: 2147483647,
    'delivery.timeout.ms': 120_000,
    'retry.backoff.ms': 100,
    'max.in.flight.requests.per.connection': 5,
    ...o.props,
  };
  const cfg = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vp-')), 'producer.properties');
  fs.writeFileSync(cfg, Object.entries(props).map(([k, v]) => `${k}=${v}`).join('\n') + '\n');
  const args = ['--bootstrap-server', o.bootstrap, '--topic', o.topic, '--max-messages', String(o.maxMessages), '--acks', '-1', '--producer.config', cfg];
  if (o.throughput !== undefined) args.push('--throughput', String(o.throughput));
  if (o.repeatingKeys !== undefined) args.push('--repeating-keys', String(o.repeatingKeys));
  if (o.valuePrefix !== undefined) args.push('--value-prefix', String(o.valuePrefix));
  const raw = await runJava('org.apache.kafka.tools.VerifiableProducer', args, { timeoutMs: o.timeoutMs ?? 300_000, jvmArgs: ['-Xmx384m', '-XX:+UseSerialGC'] });
  const events = parseJsonLines(raw.stdout);
  const acked = events
    .filter((e) => e.name === 'producer_send_success')
    .map((e) => ({ partition: Number(e.partition), offset: Number(e.offset), key: String(e.key ?? ''), value: String(e.value) }));
  return { raw, events, acked, failed: events.filter((e) => e.name === 'producer_send_error') };
}

// ---------------------------------------------------------- verification ---

/**
 * Problems with a topic's log: offsets not dense from `start` per partition,
 * values stored more than once, acknowledged records missing or stored at
 * another offset/partition or with another key. Empty = all good.
 */
export function verifyLog(log: LogRecord[], acked: AckedRecord[], opts: { start?: Map<number, number>; ignoreValue?: (v: string) => boolean } = {}): string[] {
  const problems: string[] = [];
  const next = new Map<number, number>();
  const byValue = new Map<string, LogRecord>();
  const at = new Map<string, LogRecord>();
  for (const r of log) {
    const exp = next.get(r.partition) ?? opts.start?.get(r.partition) ?? 0;
    if (r.offset !== exp) problems.push(`partition ${r.partition}: offset ${r.offset}, expected ${exp}`);
    next.set(r.partition, r.offset + 1);
    at.set(`${r.partition}/${r.offset}`, r);
    if (opts.ignoreValue?.(r.value)) continue;
    const prev = byValue.get(r.value);
    if (prev) problems.push(`value ${r.value} stored twice: ${prev.partition}/${prev.offset} and ${r.partition}/${r.offset}`);
    else byValue.set(r.value, r);
  }
  for (const a of acked) {
    const r = at.get(`${a.partition}/${a.offset}`);
    if (!r) problems.push(`acknowledged ${a.value} (key ${a.key}) at ${a.partition}/${a.offset}: no record there`);
    else if (r.value !== a.value || r.key !== a.key) problems.push(`acknowledged ${a.value} (key ${a.key}) at ${a.partition}/${a.offset}: found ${r.value} (key ${r.key})`);
  }
  return problems.slice(0, 50).concat(problems.length > 50 ? [`... ${problems.length - 50} more`] : []);
}

/** Records a consumer read that are not in the final log at the same partition/offset with the same value. */
export function readButLost(read: LogRecord[], log: LogRecord[]): LogRecord[] {
  const at = new Map(log.map((r) => [`${r.partition}/${r.offset}`, r]));
  return read.filter((r) => {
    const f = at.get(`${r.partition}/${r.offset}`);
    return !f || f.value !== r.value || f.key !== r.key;
  });
}

// --------------------------------------------------------------- signals ---

/** Sends a signal to a managed process (SIGSTOP / SIGCONT / ...). */
export function signal(proc: ManagedProcess, sig: NodeJS.Signals): void {
  if (!proc.running()) throw new Error(`${proc.name} is not running (cannot send ${sig})`);
  process.kill(proc.pid, sig);
}

// ---------------------------------------------------- Kafka after SIGKILL ---

/**
 * SIGKILLs a Kafka broker started by startKafka() and starts it again on the
 * same data dir and ports (log recovery, producer-state rebuild). Returns the
 * new process; the caller stops it (KafkaBroker.stop() only knows the first).
 */
export async function killAndRestartKafka(k: KafkaBroker, timeoutMs = 120_000): Promise<ManagedProcess> {
  await k.kill();
  const propsFile = path.join(k.dir, 'server.properties');
  const proc = spawnManaged(`kafka-${k.port}-restarted`, 'java', [
    '-Xmx1g', '-Xms256m', '-XX:+UseG1GC', '-XX:MaxGCPauseMillis=20', '-Djava.awt.headless=true', ...javaCds(true).args,
    `-Dlog4j2.configurationFile=${log4jConfig('INFO')}`,
    '-cp', JAVA_CP, 'kafka.Kafka', propsFile,
  ]);
  await waitForPort(k.port, { proc, timeoutMs });
  await waitFor('restarted Kafka Server started', () => /Kafka Server started/.test(tailFile(proc.logFile, 200_000)), { proc, timeoutMs, intervalMs: 200 });
  return proc;
}

// ------------------------------------------------------------ wire level ---

export interface ProduceResult {
  errorCode: number;
  baseOffset: number;
  errorMessage: string | null;
}

/** One Produce v9 request with one batch for one partition. */
export async function wireProduce(c: WireClient, topic: string, partition: number, records: Buffer, acks = -1, timeoutMs = 5000): Promise<ProduceResult> {
  const r = await c.request(Produce, 9, {
    transactionalId: null, acks, timeoutMs,
    topicData: [{ name: topic, partitionData: [{ index: partition, records }] }],
  }, timeoutMs + 10_000);
  const p = r.responses[0].partitionResponses[0];
  return { errorCode: p.errorCode, baseOffset: Number(p.baseOffset), errorMessage: p.errorMessage ?? null };
}

/** CreateTopics v7 over the wire; resolves with the error code (0, or 36 TOPIC_ALREADY_EXISTS...). */
export async function wireCreateTopic(port: number, name: string, partitions: number, configs: Record<string, string> = {}, host?: string): Promise<number> {
  const c = await WireClient.connect(port, host);
  try {
    const r = await c.request(CreateTopics, 7, {
      topics: [{ name, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: Object.entries(configs).map(([n, value]) => ({ name: n, value })) }],
      timeoutMs: 10_000,
    }, 20_000);
    return r.topics[0].errorCode;
  } finally {
    c.close();
  }
}

export interface PartitionView { partitionIndex: number; leaderId: number; leaderEpoch: number; errorCode: number }

/** Metadata v12 for one topic (no auto-creation): brokers and partition leaders. */
export async function wireMetadata(port: number, topic: string): Promise<{ brokers: number[]; partitions: PartitionView[]; errorCode: number }> {
  const c = await WireClient.connect(port);
  try {
    const r = await c.request(Metadata, 12, { topics: [{ topicId: '00000000-0000-0000-0000-000000000000', name: topic }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    return {
      brokers: r.brokers.map((b: { nodeId: number }) => b.nodeId).sort(),
      partitions: [...r.topics[0].partitions].sort((a: PartitionView, b: PartitionView) => a.partitionIndex - b.partitionIndex),
      errorCode: r.topics[0].errorCode,
    };
  } finally {
    c.close();
  }
}

// The TCP relays live in links.ts; re-exported for the tests that import them from here.
export { startForwarder, startStallableLink, type Forwarder, type StallableLink } from './links.js';
