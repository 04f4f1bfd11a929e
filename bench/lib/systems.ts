// The three systems under test, behind one small interface:
//   kafka   Apache Kafka 4.x, single KRaft node (test/helpers/kafka.ts), -Xmx1g, default flush settings
//   runnel  the Runnel broker (dist/, test/helpers/runnel.ts) on its own redis-server
//   raw     a redis-server with nothing in front: the raw-Redis ceiling (raw.ts drives it)
// Both Redis servers run with the same persistence: appendonly yes, appendfsync
// everysec, no RDB snapshots (test/helpers/redis.ts defaults).
import fs from 'node:fs';
import path from 'node:path';
import kafkajs from 'kafkajs';
import { startKafka, type KafkaBroker } from '../../test/helpers/kafka.js';
import { startRedis, type RedisServer } from '../../test/helpers/redis.js';
import { apiVersionsProbe, RUNNEL_CLI, startRunnel, type RunnelBroker } from '../../test/helpers/runnel.js';
import { freePort, HOST, runCommand, spawnManaged, waitFor, waitForPort } from '../../test/helpers/procs.js';
import { V8_STARTUP_FLAGS } from '../../cli/v8-flags.js';
import { RespConnection } from './resp.js';
import type { RawBatch } from './raw.js';
import { prepareSecureListeners, secureBootstraps, securePorts, secureServerSettings, type SecureListeners, type SecureMaterial } from './secure-setup.js';

export type SystemName = 'kafka' | 'runnel' | 'raw';
export const SYSTEM_LABEL: Record<SystemName, string> = { kafka: 'Apache Kafka', runnel: 'Runnel', raw: 'raw Redis' };

export interface System {
  name: SystemName;
  /** Kafka bootstrap (not for raw). */
  bootstrap: string;
  /** Redis port (runnel and raw). */
  redisPort: number;
  /** Consumer-group APIs available (ConsumerPerformance works). */
  groups: boolean;
  /** SSL and SASL_SSL listeners (workload k), when the system was started with them. */
  secure?: SecureListeners;
  /** `configs`: topic configs (cleanup.policy, segment.ms, ...); the raw ceiling ignores them. */
  createTopic(topic: string, partitions: number, configs?: Record<string, string>): Promise<void>;
  deleteTopic(topic: string, partitions: number): Promise<void>;
  /** Redis INFO used_memory (runnel/raw), null for Kafka. */
  usedMemory(): Promise<number | null>;
  /** Redis INFO persistence: AOF rewrites done since start and whether one runs now (runnel/raw), null for Kafka. */
  aofRewrites(): Promise<AofRewrites | null>;
  /** Bytes the system stores for a topic: Kafka .log segment bytes; Redis: null (use usedMemory deltas). */
  logBytes(topic: string, partitions: number): Promise<number | null>;
  /** MEMORY USAGE of the topic's streams (runnel/raw), null for Kafka. */
  streamBytes(topic: string, partitions: number): Promise<number | null>;
  /** Stream entries (= stored batches) of a topic (runnel/raw). */
  entries(topic: string, partitions: number): Promise<number | null>;
  /** Up to n of the newest stored batches of one partition (runnel/raw). */
  sampleBatches(topic: string, partition: number, n: number): Promise<RawBatch[]>;
  /** Settings that matter for the comparison, as reported by the server itself. */
  describe(): Promise<Record<string, string>>;
  /** Server processes whose CPU time is accounted: broker (Kafka JVM / Runnel node) and redis. */
  pids(): { broker?: number; redis?: number };
  stop(): Promise<void>;
}

/** Runnel's stream key of a partition (key layout 2, common/keys.ts); the raw-Redis ceiling uses the same names. */
export const streamKey = (topic: string, p: number): string => `rn:p:{${topic}/${p}}:log`;
/** The compacted prefix of a compact-policy partition (Runnel); absent otherwise. */
export const compactedKey = (topic: string, p: number): string => `rn:p:{${topic}/${p}}:clog`;

/** Kafka's log.cleaner.backoff.ms and Runnel's RUNNEL_LOG_CLEANER_BACKOFF_MS in the bench (both default to 15000). */
export const CLEANER_BACKOFF_MS = 500;

async function redisCall(port: number, args: Array<string | number>): Promise<unknown> {
  const c = await RespConnection.connect(port);
  try {
    return await c.call(args);
  } finally {
    c.close();
  }
}

/** Kafka's `.log` segment files of a topic's partitions under its log dir. */
function segmentFiles(dataDir: string, topic: string, partitions: number): string[] {
  const out: string[] = [];
  for (let p = 0; p < partitions; p++) {
    const d = path.join(dataDir, `${topic}-${p}`);
    if (!fs.existsSync(d)) continue;
    for (const f of fs.readdirSync(d)) if (f.endsWith('.log')) out.push(path.join(d, f));
  }
  return out;
}

export interface AofRewrites {
  done: number;
  inProgress: boolean;
}

/**
 * A rewrite forks Redis and writes the whole dataset again; on the bench's
 * shared cores it competes with the run it overlaps, so runs report it.
 */
async function redisAofRewrites(port: number): Promise<AofRewrites | null> {
  const info = String(await redisCall(port, ['INFO', 'persistence']));
  const done = /aof_rewrites:(\d+)/.exec(info);
  const running = /aof_rewrite_in_progress:(\d)/.exec(info);
  return done && running ? { done: Number(done[1]), inProgress: running[1] === '1' } : null;
}

/** Rewrites that overlapped the span between two readings: finished in it, or still running at its end. */
export function aofRewritesBetween(a: AofRewrites | null, b: AofRewrites | null): number | null {
  return a && b ? b.done - a.done + (b.inProgress ? 1 : 0) : null;
}

async function redisUsedMemory(port: number): Promise<number> {
  const info = String(await redisCall(port, ['INFO', 'memory']));
  const m = /used_memory:(\d+)/.exec(info);
  if (!m) throw new Error('INFO memory: no used_memory');
  return Number(m[1]);
}

async function redisEntries(port: number, topic: string, partitions: number): Promise<number> {
  const c = await RespConnection.connect(port);
  try {
    const lens = await Promise.all(Array.from({ length: partitions }, (_, p) => c.call(['XLEN', streamKey(topic, p)])));
    return lens.reduce((a: number, b) => a + Number(b), 0);
  } finally {
    c.close();
  }
}

async function redisStreamBytes(port: number, topic: string, partitions: number): Promise<number> {
  const c = await RespConnection.connect(port);
  try {
    const n = await Promise.all(Array.from({ length: partitions }, (_, p) => c.call(['MEMORY', 'USAGE', streamKey(topic, p), 'SAMPLES', 0])));
    return n.reduce((a: number, b) => a + Number(b ?? 0), 0);
  } finally {
    c.close();
  }
}

async function redisSample(port: number, topic: string, partition: number, n: number): Promise<RawBatch[]> {
  // The newest batches: the producer's steady state, not its ramp-up.
  const r = (await redisCall(port, ['XREVRANGE', streamKey(topic, partition), '+', '-', 'COUNT', n])) as Array<[Buffer, Buffer[]]>;
  return r.map(([, f]) => {
    const bytes = Buffer.from(f[1]!);
    return { bytes, records: bytes.readInt32BE(57) };
  });
}

async function redisDescribe(port: number): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const k of ['appendonly', 'appendfsync', 'save', 'auto-aof-rewrite-percentage', 'auto-aof-rewrite-min-size', 'maxmemory', 'stream-node-max-bytes', 'rdbcompression', 'aof-use-rdb-preamble']) {
    const r = (await redisCall(port, ['CONFIG', 'GET', k])) as Buffer[];
    out[k] = r[1]?.toString() ?? '';
  }
  const info = String(await redisCall(port, ['INFO', 'server']));
  out.redis_version = /redis_version:(\S+)/.exec(info)?.[1] ?? '?';
  return out;
}

/**
 * redis-server arguments beyond persistence, for Runnel's Redis and raw Redis
 * alike: docs/durability.md "Redis settings" (stream-node-max-bytes 1 MiB, rdbcompression no, auto-aof-rewrite-percentage 400). BENCH_REDIS_ARGS
 * replaces them for tuning runs ("" = the server's defaults); the report lists the values.
 */
export const EXTRA_REDIS_ARGS = (process.env.BENCH_REDIS_ARGS ?? '--stream-node-max-bytes 1048576 --rdbcompression no --auto-aof-rewrite-percentage 400').split(/\s+/).filter(Boolean);

async function startBenchRedis(): Promise<RedisServer> {
  return startRedis({ flavor: 'redis', appendonly: true, appendfsync: 'everysec', args: EXTRA_REDIS_ARGS });
}

function kafkaAdmin(bootstrap: string): kafkajs.Admin {
  return new kafkajs.Kafka({ clientId: 'runnel-bench', brokers: [bootstrap], logLevel: kafkajs.logLevel.NOTHING }).admin();
}

async function adminCreate(admin: kafkajs.Admin, topic: string, partitions: number, configs: Record<string, string> = {}): Promise<void> {
  const configEntries = Object.entries(configs).map(([name, value]) => ({ name, value }));
  const ok = await admin.createTopics({ topics: [{ topic, numPartitions: partitions, replicationFactor: 1, configEntries }], waitForLeaders: true, timeout: 30_000 }).catch((e: unknown) => {
    // kafkajs says only "Topic creation errors"; the broker's error code and message are in e.errors.
    const errs = (e as { errors?: Array<{ type?: string; message?: string }> }).errors ?? [];
    const why = errs.map((x) => `${x.type ?? '?'}: ${x.message ?? ''}`).join('; ');
    throw new Error(`createTopics ${topic}: ${e instanceof Error ? e.message : String(e)}${why ? ` (${why})` : ''}`);
  });
  if (!ok) throw new Error(`createTopics ${topic}: topic already existed`);
}

/** Creates the SCRAM user and checks the SASL_SSL listener; a failure is kept in `error` (workload k reports it) instead of stopping the bench. */
async function secureListeners(m: SecureMaterial, plain: string, ports: { SSL: number; SASL_SSL: number }): Promise<SecureListeners> {
  const bootstrap = secureBootstraps(plain, ports);
  const error = await prepareSecureListeners(m, bootstrap).catch((e: unknown) => (e instanceof Error ? e.message : String(e)));
  return error ? { bootstrap, error } : { bootstrap };
}

export interface StartSystemOptions {
  /** Also listen on SSL and SASL_SSL (SCRAM-SHA-512) with this PKI (workload k). */
  secure?: SecureMaterial;
}

export async function startKafkaSystem(o: StartSystemOptions = {}): Promise<System> {
  const ports = o.secure ? await securePorts() : null;
  // The log cleaner looks for dirty compacted logs every CLEANER_BACKOFF_MS (Kafka's default 15 s) so
  // the compaction workload (i) does not mostly measure the cleaner's sleep; delete-policy topics do not care.
  const k: KafkaBroker = await startKafka({
    heap: '1g',
    props: { 'log.cleaner.backoff.ms': CLEANER_BACKOFF_MS, ...(o.secure ? secureServerSettings(o.secure) : {}) },
    extraListeners: ports ? (['SSL', 'SASL_SSL'] as const).map((p) => ({ name: p, protocol: p, port: ports[p] })) : [],
  });
  const admin = kafkaAdmin(k.bootstrap);
  await admin.connect();
  const secure = o.secure && ports ? await secureListeners(o.secure, k.bootstrap, ports) : undefined;
  const dataDir = path.join(k.dir, 'data');
  return {
    name: 'kafka',
    bootstrap: k.bootstrap,
    redisPort: 0,
    groups: true,
    secure,
    createTopic: (t, n, c) => adminCreate(admin, t, n, c),
    async deleteTopic(t) {
      await admin.deleteTopics({ topics: [t], timeout: 30_000 }).catch(() => undefined);
    },
    usedMemory: async () => null,
    aofRewrites: async () => null,
    async logBytes(topic, partitions) {
      return segmentFiles(dataDir, topic, partitions).reduce((n, f) => n + fs.statSync(f).size, 0);
    },
    streamBytes: async () => null,
    async entries(topic, partitions) {
      // Record batches in the .log segments: each starts with baseOffset (8 bytes) and its length (4) after them.
      let n = 0;
      for (const f of segmentFiles(dataDir, topic, partitions)) {
        const b = fs.readFileSync(f);
        for (let at = 0; at + 12 <= b.length; at += 12 + b.readInt32BE(at + 8)) n++;
      }
      return n;
    },
    sampleBatches: async () => [],
    async describe() {
      const props = fs.readFileSync(path.join(k.dir, 'server.properties'), 'utf8');
      const flush = props.split('\n').filter((l) => /flush/.test(l));
      return {
        heap: '-Xmx1g -Xms256m -XX:+UseG1GC',
        flushSettings: flush.length ? flush.join('; ') : 'defaults (no log.flush.interval.*: the OS page cache decides)',
        'log.cleaner.backoff.ms': String(CLEANER_BACKOFF_MS),
        ...secureDescribe(secure),
      };
    },
    pids: () => ({ broker: k.proc.pid }),
    async stop() {
      await admin.disconnect().catch(() => undefined);
      await k.stop();
    },
  };
}

/** The listeners of workload k, for describe(). */
function secureDescribe(s: SecureListeners | undefined): Record<string, string> {
  if (!s) return {};
  return { secureListeners: `SSL ${s.bootstrap.SSL}, SASL_SSL ${s.bootstrap.SASL_SSL} (PEM keystore, P-256; SCRAM-SHA-512)${s.error ? `; set-up failed: ${s.error}` : ''}` };
}

export interface StartRunnelSystemOptions extends StartSystemOptions {
  /** Node flags for the broker process (e.g. --cpu-prof; Node 20 refuses it in NODE_OPTIONS). */
  nodeArgs?: string[];
  /** Broker settings as RUNNEL_* environment variables (e.g. RUNNEL_LOG_TAIL_CACHE_BYTES from --tail-cache-bytes). */
  env?: Record<string, string>;
}

/**
 * test/helpers/runnel.ts startRunnel() with node flags in front of the CLI
 * path. Stops with SIGTERM, so the broker exits through process.exit() and
 * --cpu-prof writes its profile.
 */
export async function startRunnelWithNodeArgs(redisUrl: string, nodeArgs: string[], env: Record<string, string>): Promise<RunnelBroker> {
  const port = await freePort();
  const proc = spawnManaged(`runnel-${port}`, process.execPath, [...V8_STARTUP_FLAGS, ...nodeArgs, RUNNEL_CLI, 'broker', '--host', HOST, '--port', String(port), '--redis', redisUrl], {
    env: { ...process.env, ...env },
  });
  await waitForPort(port, { proc, timeoutMs: 60_000 });
  await waitFor('ApiVersions', async () => (await apiVersionsProbe(port)).errorCode === 0, { proc, timeoutMs: 60_000 });
  return {
    bootstrap: `${HOST}:${port}`,
    port,
    proc: () => proc,
    stop: async () => void (await proc.stop(30_000)),
    kill: async () => void (await proc.kill()),
    restart: async () => {
      throw new Error('not supported');
    },
  };
}

/** Runnel's listeners for workload k: PLAINTEXT on `port` (the first listener, as --port says), SSL and SASL_SSL; the same settings as Kafka's. */
function secureRunnelArgs(m: SecureMaterial, port: number, ports: { SSL: number; SASL_SSL: number }): string[] {
  const settings = {
    listeners: `PLAINTEXT://${HOST}:${port},SSL://${HOST}:${ports.SSL},SASL_SSL://${HOST}:${ports.SASL_SSL}`,
    ...secureServerSettings(m),
  };
  return Object.entries(settings).flatMap(([k, v]) => ['--set', `${k}=${v}`]);
}

export async function startRunnelSystem(o: StartRunnelSystemOptions = {}): Promise<System> {
  const ports = o.secure ? await securePorts() : null;
  const redis = await startBenchRedis();
  let rn: RunnelBroker;
  try {
    // Same cleaner back-off as Kafka's log.cleaner.backoff.ms above (Runnel's default is also 15 s),
    // and the same group.initial.rebalance.delay.ms as the Kafka of test/helpers/kafka.ts (0; workload p's join times).
    const env = { RUNNEL_LOG_LEVEL: 'warn', RUNNEL_LOG_CLEANER_BACKOFF_MS: String(CLEANER_BACKOFF_MS), RUNNEL_GROUP_INITIAL_REBALANCE_DELAY_MS: '0', ...o.env };
    if (o.secure && o.nodeArgs?.length) throw new Error('startRunnelSystem: secure listeners and node flags together are not supported');
    if (o.nodeArgs?.length) rn = await startRunnelWithNodeArgs(redis.url, o.nodeArgs, env);
    else if (o.secure && ports) {
      const port = await freePort();
      rn = await startRunnel({ redisUrl: redis.url, env, port, args: secureRunnelArgs(o.secure, port, ports) });
    } else rn = await startRunnel({ redisUrl: redis.url, env });
  } catch (e) {
    await redis.stop();
    throw e;
  }
  const admin = kafkaAdmin(rn.bootstrap);
  await admin.connect();
  const groups = await runnelHasGroups();
  const secure = o.secure && ports ? await secureListeners(o.secure, rn.bootstrap, ports) : undefined;
  return {
    name: 'runnel',
    bootstrap: rn.bootstrap,
    redisPort: redis.port,
    groups,
    secure,
    createTopic: (t, n, c) => adminCreate(admin, t, n, c),
    async deleteTopic(t) {
      await admin.deleteTopics({ topics: [t], timeout: 30_000 }).catch(() => undefined);
    },
    usedMemory: () => redisUsedMemory(redis.port),
    aofRewrites: () => redisAofRewrites(redis.port),
    logBytes: async () => null,
    streamBytes: (t, n) => redisStreamBytes(redis.port, t, n),
    entries: (t, n) => redisEntries(redis.port, t, n),
    sampleBatches: (t, p, n) => redisSample(redis.port, t, p, n),
    describe: async () => ({ ...(await redisDescribe(redis.port)), RUNNEL_LOG_CLEANER_BACKOFF_MS: String(CLEANER_BACKOFF_MS), RUNNEL_GROUP_INITIAL_REBALANCE_DELAY_MS: '0', ...o.env, ...secureDescribe(secure) }),
    pids: () => ({ broker: rn.proc().pid, redis: redis.proc().pid }),
    async stop() {
      await admin.disconnect().catch(() => undefined);
      await rn.stop();
      await redis.stop();
    },
  };
}

export async function startRawSystem(): Promise<System> {
  const redis = await startBenchRedis();
  return {
    name: 'raw',
    bootstrap: '',
    redisPort: redis.port,
    groups: false,
    createTopic: async () => undefined,
    async deleteTopic(t, n) {
      await redisCall(redis.port, ['DEL', ...Array.from({ length: n }, (_, p) => streamKey(t, p))]);
    },
    usedMemory: () => redisUsedMemory(redis.port),
    aofRewrites: () => redisAofRewrites(redis.port),
    logBytes: async () => null,
    streamBytes: (t, n) => redisStreamBytes(redis.port, t, n),
    entries: (t, n) => redisEntries(redis.port, t, n),
    sampleBatches: (t, p, n) => redisSample(redis.port, t, p, n),
    describe: () => redisDescribe(redis.port),
    pids: () => ({ redis: redis.proc().pid }),
    stop: () => redis.stop(),
  };
}

/** Does this build of Runnel advertise the group coordinator (FindCoordinator)? Asks `runnel apis`. */
async function runnelHasGroups(): Promise<boolean> {
  const r = await runCommand(process.execPath, [RUNNEL_CLI, 'apis'], { timeoutMs: 30_000 });
  return r.code === 0 && /\|\s*FindCoordinator\s*\|/.test(r.stdout);
}
