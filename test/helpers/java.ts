// Runs Apache Kafka's Java tools (from .cache/java/lib, see test/setup/install.sh)
// and parses their output.
//
// Kafka 4.x class names (the kafka-*.sh scripts are thin wrappers around these):
//   kafka-producer-perf-test  org.apache.kafka.tools.ProducerPerformance
//   kafka-consumer-perf-test  org.apache.kafka.tools.ConsumerPerformance
//   kafka-verifiable-producer org.apache.kafka.tools.VerifiableProducer
//   kafka-verifiable-consumer org.apache.kafka.tools.VerifiableConsumer
//   kafka-topics              org.apache.kafka.tools.TopicCommand
//   kafka-configs             org.apache.kafka.tools.ConfigCommand   (was kafka.admin.ConfigCommand in 3.x)
//   kafka-get-offsets         org.apache.kafka.tools.GetOffsetShell
//   kafka-console-consumer    org.apache.kafka.tools.consumer.ConsoleConsumer
//   kafka-storage             kafka.tools.StorageTool                (still Scala, in kafka_2.13)
//   kafka-server-start        kafka.Kafka
//
// Logging: the jars use slf4j 1.7 -> log4j2 (log4j-slf4j-impl). Without a config
// log4j2 would print to stdout, which breaks output parsing, so every JVM gets
// -Dlog4j2.configurationFile pointing at a generated file that logs to stderr.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { CACHE_DIR, REPO_ROOT, runCommand, type RunResult } from './procs.js';

export const JAVA_LIB = path.join(CACHE_DIR, 'java', 'lib');
export const JAVA_CLASSES = path.join(CACHE_DIR, 'java', 'classes');
export const JAVA_CP = path.join(JAVA_LIB, '*');

export function ensureJavaLib(): void {
  const ok =
    fs.existsSync(JAVA_LIB) &&
    fs.readdirSync(JAVA_LIB).some((f) => /^kafka-tools-\d.*\.jar$/.test(f)) &&
    fs.readdirSync(JAVA_LIB).some((f) => /^kafka_2\.13-\d.*\.jar$/.test(f));
  if (!ok) throw new Error(`Kafka jars missing in ${JAVA_LIB}: run bash test/setup/install.sh`);
}

/** The Kafka version of the jars in .cache/java/lib, e.g. '4.4.0'. */
export function kafkaJarVersion(): string {
  const jar = fs.readdirSync(JAVA_LIB).find((f) => /^kafka-clients-\d.*\.jar$/.test(f));
  return jar ? jar.replace(/^kafka-clients-/, '').replace(/\.jar$/, '') : 'unknown';
}

/** Writes (once) a log4j2 properties file logging at `level` to stderr; returns its path. */
export function log4jConfig(level: 'ERROR' | 'WARN' | 'INFO' | 'DEBUG'): string {
  const file = path.join(CACHE_DIR, 'java', `log4j2-stderr-${level.toLowerCase()}.properties`);
  const body = [
    'status = warn',
    'appender.stderr.type = Console',
    'appender.stderr.name = STDERR',
    'appender.stderr.target = SYSTEM_ERR',
    'appender.stderr.layout.type = PatternLayout',
    'appender.stderr.layout.pattern = [%d] %p %m (%c)%n',
    `rootLogger.level = ${level}`,
    'rootLogger.appenderRef.stderr.ref = STDERR',
    // Very chatty at INFO and useless in test logs.
    'logger.config.name = org.apache.kafka.common.config.AbstractConfig',
    'logger.config.level = WARN',
    '',
  ].join('\n');
  if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== body) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(`${file}.tmp-${process.pid}`, body);
    fs.renameSync(`${file}.tmp-${process.pid}`, file);
  }
  return file;
}

export interface JavaOptions {
  timeoutMs?: number;
  /** Extra classpath entries appended after .cache/java/lib/*. */
  classpath?: string[];
  /** JVM flags; default ['-Xmx768m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1'] (a short tool; see javaCds). */
  jvmArgs?: string[];
  logLevel?: 'ERROR' | 'WARN' | 'INFO' | 'DEBUG';
  env?: NodeJS.ProcessEnv;
  input?: string;
}

export type JavaResult = RunResult;

// Start-up cost. The suites and the bench start a JVM about 250 times, and a
// short tool (kafka-topics --list) spends ~1.4 CPU-s loading and compiling
// classes for ~0.1 s of work. Two standard HotSpot features cut that to ~0.45:
// - class-data sharing (JDK 13+ dynamic archive): the first tool run of a
//   machine, with the plain jar classpath, writes the classes it loaded to
//   .cache/java/cds/<jar-set hash>.jsa at exit (-XX:ArchiveClassesAtExit);
//   later JVMs map that file instead of parsing and verifying the classes. A
//   JVM that cannot use the file (other JDK build, changed jars, classpath not
//   starting with the archived one) ignores it; -Xlog:cds*=off keeps its
//   warning off stdout, which the tools' output parsers read.
// - for the short tools only (those run with the default flags), C1 alone
//   (-XX:TieredStopAtLevel=1): their work is too short for C2 to pay back.
//   Throughput tools (ProducerPerformance, ...) pass their own flags and keep C2.
const CDS_DIR = path.join(CACHE_DIR, 'java', 'cds');
let cdsDumping = false;

function cdsArchivePath(): string {
  const jars = fs.readdirSync(JAVA_LIB).filter((f) => f.endsWith('.jar')).sort()
    .map((f) => `${f}:${fs.statSync(path.join(JAVA_LIB, f)).size}`);
  return path.join(CDS_DIR, `${createHash('sha256').update(jars.join('\n')).digest('hex').slice(0, 16)}.jsa`);
}

/** JVM flags for class-data sharing, and what to do once the JVM has exited (publish a fresh archive). */
export function javaCds(extraClasspath: boolean): { args: string[]; exited: (ok: boolean) => void } {
  const none = { args: ['-Xlog:cds*=off'], exited: () => undefined };
  if (process.env.RUNNEL_JAVA_CDS === '0') return none;
  let archive: string;
  try {
    archive = cdsArchivePath();
  } catch {
    return none;
  }
  if (fs.existsSync(archive)) return { args: [`-XX:SharedArchiveFile=${archive}`, '-Xlog:cds*=off'], exited: () => undefined };
  // Only a run with the plain jar classpath writes it, so that every later classpath starts with the archived one.
  if (extraClasspath || cdsDumping) return none;
  cdsDumping = true;
  fs.mkdirSync(CDS_DIR, { recursive: true });
  const tmp = `${archive}.tmp-${process.pid}`;
  return {
    args: [`-XX:ArchiveClassesAtExit=${tmp}`, '-Xlog:cds*=off'],
    exited: (ok) => {
      cdsDumping = false;
      try {
        if (ok && fs.statSync(tmp).size > 0) fs.renameSync(tmp, archive);
        else fs.rmSync(tmp, { force: true });
      } catch {
        fs.rmSync(tmp, { force: true });
      }
    },
  };
}

export async function runJava(mainClass: string, args: string[], opts: JavaOptions = {}): Promise<JavaResult> {
  ensureJavaLib();
  const cp = [JAVA_CP, ...(opts.classpath ?? [])].join(path.delimiter);
  const cds = javaCds((opts.classpath ?? []).length > 0);
  const jvm = [
    ...(opts.jvmArgs ?? ['-Xmx768m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1']),
    ...cds.args,
    '-Djava.awt.headless=true',
    `-Dlog4j2.configurationFile=${log4jConfig(opts.logLevel ?? 'WARN')}`,
  ];
  const r = await runCommand('java', [...jvm, '-cp', cp, mainClass, ...args], {
    timeoutMs: opts.timeoutMs ?? 120_000,
    env: opts.env,
    input: opts.input,
    logName: `java-${mainClass.split('.').pop()}`,
  });
  cds.exited(r.code === 0 && !r.timedOut);
  return r;
}

/** Throws with stdout/stderr tails unless the run exited 0. */
export function assertOk(what: string, r: JavaResult): JavaResult {
  if (r.code !== 0 || r.timedOut) {
    throw new Error(
      `${what} failed: code=${r.code} signal=${r.signal} timedOut=${r.timedOut} after ${r.durationMs} ms\n` +
        `--- stdout (tail)\n${r.stdout.slice(-3000)}\n--- stderr (tail)\n${r.stderr.slice(-5000)}`,
    );
  }
  return r;
}

/** Lines of stderr at log level ERROR, and Java exception lines. */
export function errorLines(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => /\] ERROR /.test(l) || /^(Exception|Caused by:)|^\S+(Exception|Error)(:|$)/.test(l.trim()));
}

/** Compiles the given .java sources into .cache/java/classes (skipped when up to date). */
export async function compileJava(sources: string[], opts: { timeoutMs?: number } = {}): Promise<string> {
  ensureJavaLib();
  fs.mkdirSync(JAVA_CLASSES, { recursive: true });
  const stamp = path.join(JAVA_CLASSES, '.stamp');
  const newest = Math.max(...sources.map((s) => fs.statSync(s).mtimeMs));
  const upToDate =
    fs.existsSync(stamp) &&
    fs.statSync(stamp).mtimeMs >= newest &&
    fs.readFileSync(stamp, 'utf8') === sources.map((s) => path.resolve(s)).join('\n');
  if (!upToDate) {
    const r = await runCommand('javac', ['-nowarn', '-encoding', 'UTF-8', '-d', JAVA_CLASSES, '-cp', JAVA_CP, ...sources], {
      timeoutMs: opts.timeoutMs ?? 120_000,
      logName: 'javac',
    });
    if (r.code !== 0) throw new Error(`javac failed (code ${r.code}):\n${r.stdout}\n${r.stderr}`);
    fs.writeFileSync(stamp, sources.map((s) => path.resolve(s)).join('\n'));
  }
  return JAVA_CLASSES;
}

// ================================================================ wrappers ===

/** org.apache.kafka.tools.TopicCommand (kafka-topics.sh). */
export function kafkaTopics(bootstrap: string, args: string[], opts: JavaOptions = {}): Promise<JavaResult> {
  return runJava('org.apache.kafka.tools.TopicCommand', ['--bootstrap-server', bootstrap, ...args], opts);
}

/** org.apache.kafka.tools.ConfigCommand (kafka-configs.sh). */
export function kafkaConfigs(bootstrap: string, args: string[], opts: JavaOptions = {}): Promise<JavaResult> {
  return runJava('org.apache.kafka.tools.ConfigCommand', ['--bootstrap-server', bootstrap, ...args], opts);
}

export async function createTopic(
  bootstrap: string,
  topic: string,
  partitions: number,
  configs: Record<string, string | number> = {},
): Promise<void> {
  const args = ['--create', '--topic', topic, '--partitions', String(partitions), '--replication-factor', '1'];
  for (const [k, v] of Object.entries(configs)) args.push('--config', `${k}=${v}`);
  const r = assertOk(`kafka-topics --create ${topic}`, await kafkaTopics(bootstrap, args));
  if (!r.stdout.includes(`Created topic ${topic}.`)) throw new Error(`unexpected kafka-topics output: ${r.stdout}`);
}

export async function listTopics(bootstrap: string): Promise<string[]> {
  const r = assertOk('kafka-topics --list', await kafkaTopics(bootstrap, ['--list']));
  return r.stdout.split('\n').map((l) => l.trim()).filter(Boolean);
}

export interface TopicDescription {
  topic: string;
  partitionCount: number;
  replicationFactor: number;
  configs: Record<string, string>;
  partitions: { partition: number; leader: number; replicas: number[]; isr: number[] }[];
}

/** Parses `kafka-topics --describe --topic T` output. */
export function parseTopicDescribe(stdout: string): TopicDescription[] {
  const out: TopicDescription[] = [];
  for (const raw of stdout.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('Topic:')) continue;
    const fields = new Map<string, string>();
    for (const part of line.split('\t')) {
      const i = part.indexOf(':');
      if (i > 0) fields.set(part.slice(0, i).trim(), part.slice(i + 1).trim());
    }
    if (fields.has('PartitionCount')) {
      const configs: Record<string, string> = {};
      for (const kv of (fields.get('Configs') ?? '').split(',')) {
        const j = kv.indexOf('=');
        if (j > 0) configs[kv.slice(0, j)] = kv.slice(j + 1);
      }
      out.push({
        topic: fields.get('Topic') ?? '',
        partitionCount: Number(fields.get('PartitionCount')),
        replicationFactor: Number(fields.get('ReplicationFactor')),
        configs,
        partitions: [],
      });
    } else if (fields.has('Partition')) {
      const t = out.find((d) => d.topic === fields.get('Topic'));
      const nums = (s: string | undefined): number[] => (s ?? '').split(',').filter(Boolean).map(Number);
      t?.partitions.push({
        partition: Number(fields.get('Partition')),
        leader: Number(fields.get('Leader')),
        replicas: nums(fields.get('Replicas')),
        isr: nums(fields.get('Isr')),
      });
    }
  }
  return out;
}

export async function describeTopic(bootstrap: string, topic: string): Promise<TopicDescription> {
  const r = assertOk(`kafka-topics --describe ${topic}`, await kafkaTopics(bootstrap, ['--describe', '--topic', topic]));
  const d = parseTopicDescribe(r.stdout).find((x) => x.topic === topic);
  if (!d) throw new Error(`topic ${topic} not in describe output:\n${r.stdout}`);
  return d;
}

/** Parses `kafka-configs --describe` output lines `  key=value sensitive=... synonyms={...}`. */
export function parseConfigDescribe(stdout: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of stdout.split('\n')) {
    const m = /^\s+([A-Za-z0-9_.-]+)=(.*?) sensitive=(true|false)/.exec(raw);
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

/** org.apache.kafka.tools.GetOffsetShell: Map 'topic:partition' -> offset. time: -1 latest, -2 earliest, or a timestamp. */
export async function getOffsets(bootstrap: string, topic: string, time: number | string): Promise<Map<number, number>> {
  const r = assertOk(
    `kafka-get-offsets ${topic} --time ${time}`,
    await runJava('org.apache.kafka.tools.GetOffsetShell', ['--bootstrap-server', bootstrap, '--topic', topic, '--time', String(time)]),
  );
  const out = new Map<number, number>();
  for (const line of r.stdout.split('\n')) {
    const m = /^(.+):(\d+):(-?\d*)$/.exec(line.trim());
    if (m && m[1] === topic) out.set(Number(m[2]), m[3] === '' ? NaN : Number(m[3]));
  }
  return out;
}

export interface ProducerPerfResult {
  raw: JavaResult;
  records: number;
  recordsPerSec: number;
  mbPerSec: number;
  avgLatencyMs: number;
  maxLatencyMs: number;
  p50: number;
  p95: number;
  p99: number;
  p999: number;
}

/** Parses the final summary line of ProducerPerformance. */
export function parseProducerPerf(stdout: string): Omit<ProducerPerfResult, 'raw'> | null {
  const re =
    /^(\d+) records sent, ([\d.]+) records\/sec \(([\d.]+) MB\/sec\), ([\d.]+) ms avg latency, ([\d.]+) ms max latency, (\d+) ms 50th, (\d+) ms 95th, (\d+) ms 99th, (\d+) ms 99\.9th\.$/;
  const lines = stdout.trim().split('\n').map((l) => l.trim());
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = re.exec(lines[i]!);
    if (m) {
      const n = m.slice(1).map(Number);
      return {
        records: n[0]!, recordsPerSec: n[1]!, mbPerSec: n[2]!, avgLatencyMs: n[3]!, maxLatencyMs: n[4]!,
        p50: n[5]!, p95: n[6]!, p99: n[7]!, p999: n[8]!,
      };
    }
  }
  return null;
}

export interface ProducerPerfOptions {
  bootstrap: string;
  topic: string;
  numRecords: number;
  recordSize: number;
  throughput?: number;
  /** Extra producer properties (besides bootstrap.servers). */
  props?: Record<string, string | number>;
  timeoutMs?: number;
}

/** kafka-producer-perf-test with the Java defaults (acks=all, idempotence on, no linger...). */
export async function producerPerf(o: ProducerPerfOptions): Promise<ProducerPerfResult> {
  const props = [`bootstrap.servers=${o.bootstrap}`, ...Object.entries(o.props ?? {}).map(([k, v]) => `${k}=${v}`)];
  const raw = await runJava(
    'org.apache.kafka.tools.ProducerPerformance',
    [
      '--topic', o.topic,
      '--num-records', String(o.numRecords),
      '--record-size', String(o.recordSize),
      '--throughput', String(o.throughput ?? -1),
      // Deprecated in 4.2+ in favour of --command-property, but it is what the
      // docs and everybody's scripts use; still accepted by 4.x.
      '--producer-props', ...props,
    ],
    { timeoutMs: o.timeoutMs ?? 600_000, jvmArgs: ['-Xmx1g'] },
  );
  const parsed = parseProducerPerf(raw.stdout);
  if (!parsed) {
    throw new Error(`ProducerPerformance printed no summary (code ${raw.code}):\n${raw.stdout.slice(-2000)}\n${raw.stderr.slice(-4000)}`);
  }
  return { raw, ...parsed };
}

export interface ConsumerPerfResult {
  raw: JavaResult;
  mb: number;
  records: number;
  mbPerSec: number;
  recordsPerSec: number;
  rebalanceMs: number;
  fetchMs: number;
}

/** Parses the CSV summary (header + one line) printed by ConsumerPerformance. */
export function parseConsumerPerf(stdout: string): Omit<ConsumerPerfResult, 'raw'> | null {
  const lines = stdout.trim().split('\n').map((l) => l.trim());
  const h = lines.findIndex((l) => l.startsWith('start.time'));
  if (h < 0 || !lines[h + 1]) return null;
  const header = lines[h]!.split(',').map((s) => s.trim());
  const vals = lines[h + 1]!.split(',').map((s) => s.trim());
  const get = (k: string): number => Number(vals[header.indexOf(k)]);
  return {
    mb: get('data.consumed.in.MB'),
    records: get('data.consumed.in.nMsg'),
    mbPerSec: get('MB.sec'),
    recordsPerSec: get('nMsg.sec'),
    rebalanceMs: get('rebalance.time.ms'),
    fetchMs: get('fetch.time.ms'),
  };
}

/** kafka-consumer-perf-test (subscribes with a consumer group). */
export async function consumerPerf(o: {
  bootstrap: string;
  topic: string;
  numRecords: number;
  group?: string;
  /** A consumer properties file (--consumer.config). */
  consumerConfig?: string;
  timeoutMs?: number;
}): Promise<ConsumerPerfResult> {
  const args = ['--bootstrap-server', o.bootstrap, '--topic', o.topic, '--num-records', String(o.numRecords), '--timeout', '60000'];
  if (o.group) args.push('--group', o.group);
  if (o.consumerConfig) args.push('--consumer.config', o.consumerConfig);
  const raw = await runJava('org.apache.kafka.tools.ConsumerPerformance', args, { timeoutMs: o.timeoutMs ?? 600_000, jvmArgs: ['-Xmx1g'] });
  const parsed = parseConsumerPerf(raw.stdout);
  if (!parsed) {
    throw new Error(`ConsumerPerformance printed no summary (code ${raw.code}):\n${raw.stdout.slice(-2000)}\n${raw.stderr.slice(-4000)}`);
  }
  return { raw, ...parsed };
}

/**
 * kafka-console-consumer in assign mode (--partition, no consumer group), output
 * discarded by NoOpMessageFormatter. Returns the 'Processed a total of N messages' count.
 */
export async function consoleConsumeCount(o: {
  bootstrap: string;
  topic: string;
  partition: number;
  maxMessages: number;
  timeoutMs?: number;
}): Promise<{ raw: JavaResult; count: number }> {
  const raw = await runJava(
    'org.apache.kafka.tools.consumer.ConsoleConsumer',
    [
      '--bootstrap-server', o.bootstrap,
      '--topic', o.topic,
      '--partition', String(o.partition),
      '--offset', 'earliest',
      '--max-messages', String(o.maxMessages),
      '--timeout-ms', '30000',
      '--formatter', 'org.apache.kafka.tools.consumer.NoOpMessageFormatter',
    ],
    { timeoutMs: o.timeoutMs ?? 600_000, jvmArgs: ['-Xmx1g'] },
  );
  const m = /Processed a total of (\d+) messages/.exec(raw.stderr + raw.stdout);
  return { raw, count: m ? Number(m[1]) : -1 };
}

/** One JSON event line of VerifiableProducer / VerifiableConsumer. */
export type VerifiableEvent = { name: string; timestamp: number } & Record<string, unknown>;

export function parseJsonLines(stdout: string): VerifiableEvent[] {
  const out: VerifiableEvent[] = [];
  for (const line of stdout.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('{')) continue;
    try {
      out.push(JSON.parse(t) as VerifiableEvent);
    } catch {
      /* tool sometimes interleaves partial lines; ignore non-JSON */
    }
  }
  return out;
}

/** kafka-verifiable-producer: values are '0'..'max-1' (optionally prefixed). */
export async function verifiableProducer(o: {
  bootstrap: string;
  topic: string;
  maxMessages: number;
  acks?: number | 'all';
  throughput?: number;
  valuePrefix?: number;
  timeoutMs?: number;
}): Promise<{ raw: JavaResult; events: VerifiableEvent[] }> {
  const acks = o.acks === undefined || o.acks === 'all' ? -1 : o.acks;
  const args = ['--bootstrap-server', o.bootstrap, '--topic', o.topic, '--max-messages', String(o.maxMessages), '--acks', String(acks)];
  if (o.throughput !== undefined) args.push('--throughput', String(o.throughput));
  if (o.valuePrefix !== undefined) args.push('--value-prefix', String(o.valuePrefix));
  const raw = await runJava('org.apache.kafka.tools.VerifiableProducer', args, { timeoutMs: o.timeoutMs ?? 300_000 });
  return { raw, events: parseJsonLines(raw.stdout) };
}

/** kafka-verifiable-consumer with --verbose (one record_data event per record). */
export async function verifiableConsumer(o: {
  bootstrap: string;
  topic: string;
  group: string;
  maxMessages: number;
  groupProtocol?: 'classic' | 'consumer';
  resetPolicy?: 'earliest' | 'latest';
  enableAutocommit?: boolean;
  timeoutMs?: number;
}): Promise<{ raw: JavaResult; events: VerifiableEvent[] }> {
  const args = [
    '--bootstrap-server', o.bootstrap,
    '--topic', o.topic,
    '--group-id', o.group,
    '--max-messages', String(o.maxMessages),
    '--reset-policy', o.resetPolicy ?? 'earliest',
    '--verbose',
  ];
  if (o.groupProtocol) args.push('--group-protocol', o.groupProtocol);
  if (o.enableAutocommit) args.push('--enable-autocommit');
  const raw = await runJava('org.apache.kafka.tools.VerifiableConsumer', args, { timeoutMs: o.timeoutMs ?? 300_000 });
  return { raw, events: parseJsonLines(raw.stdout) };
}

export { REPO_ROOT };
