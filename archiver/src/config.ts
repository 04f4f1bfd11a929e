// Every setting of the archiver process, with its environment variable and default.
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { parseBoolean, parseInteger } from '../../common/config/values.js';
import { RunnelError } from '../../common/errors.js';
import { LOG_FORMATS, isLogFormat, type LogFormat } from '../../common/logger/format.js';
import { parseClientAuth, type HttpSettings, type HttpSettingsInput } from '../../common/http/http-settings.js';
import type { RedisTlsConfig } from '../../common/redis/tls-options.js';

/** Every setting; the redis.tls.* ones (RedisTlsConfig) are read from RUNNEL_REDIS_TLS_CA_LOCATION etc. */
export interface ArchiverConfig extends RedisTlsConfig {
  /**
   * RUNNEL_REDIS_URL: the Redis holding the log. One URL, or for a Redis Cluster a
   * comma-separated seed list (`redis://user:pass@h1:p1,h2:p2`); cluster mode is
   * detected from the server. `rediss://` turns TLS on (settings below).
   */
  redisUrl: string;
  /**
   * RUNNEL_REDIS_CONNECTION_TIMEOUT_MS (the broker's redis.connection.timeout.ms): how long
   * start-up waits for Redis, retrying every 200 ms; then the archiver exits naming the reason.
   */
  redisConnectionTimeoutMs: number;
  /** RUNNEL_KEY_PREFIX: key prefix of the Redis key contract. */
  keyPrefix: string;
  /** RUNNEL_LAKE: `file:///abs/path` (or a plain path) or `s3://bucket/prefix`. One table per topic at <lake>/<topic>. */
  lake: string;
  /** RUNNEL_S3_ENDPOINT: custom S3 endpoint (MinIO, versitygw, moto...). */
  s3Endpoint?: string;
  /** RUNNEL_S3_FORCE_PATH_STYLE: path-style addressing; default true when an endpoint is given (MinIO, moto, ...), else false. */
  s3ForcePathStyle: boolean;
  /** RUNNEL_S3_REGION (falls back to AWS_REGION, then us-east-1). Credentials: AWS default chain. */
  s3Region?: string;
  /** RUNNEL_ARCHIVER_TARGET_FILE_BYTES: cut a data file when the estimated Parquet size reaches this. */
  targetFileBytes: number;
  /** RUNNEL_ARCHIVER_MAX_FILE_AGE_MS: cut a file at the latest this long after its first record was read (bounds lake lag). */
  maxFileAgeMs: number;
  /** RUNNEL_ARCHIVER_CHECKPOINT_INTERVAL: write a Parquet checkpoint every N table versions. */
  checkpointInterval: number;
  /** RUNNEL_ARCHIVER_LEASE_TTL_MS: partition lease and membership TTL; renewed every ttl/3. */
  leaseTtlMs: number;
  /** RUNNEL_ARCHIVER_POLL_INTERVAL_MS: idle poll interval of the streams. */
  pollIntervalMs: number;
  /** RUNNEL_ARCHIVER_READ_COUNT: XRANGE COUNT (batches per read per partition). */
  readCount: number;
  /** RUNNEL_ARCHIVER_WORKERS: Parquet worker threads (default: the cores, at most 4). */
  workers: number;
  /** RUNNEL_ARCHIVER_SPLIT_MIN_BYTES: a flush is encoded as several runs in parallel when each gets at least this many stored bytes. */
  splitMinBytes: number;
  /** RUNNEL_ARCHIVER_VERIFY_CRC: verify CRC-32C of every batch (default true). */
  verifyCrc: boolean;
  /** RUNNEL_ARCHIVER_OPTIMIZE_INTERVAL_MS: how often to look for small files to compact (0 = never). */
  optimizeIntervalMs: number;
  /** RUNNEL_ARCHIVER_OPTIMIZE_MIN_FILES: compact a date partition once it has this many small files. */
  optimizeMinFiles: number;
  /** RUNNEL_ARCHIVER_SMALL_FILE_BYTES: files below this size are compaction candidates (default target/4). */
  smallFileBytes: number;
  /** RUNNEL_ARCHIVER_VACUUM_INTERVAL_MS: how often to VACUUM (0 = never). */
  vacuumIntervalMs: number;
  /** RUNNEL_ARCHIVER_VACUUM_RETENTION_MS: keep unreferenced files and tombstones this long (default 7 days). */
  vacuumRetentionMs: number;
  /** RUNNEL_ARCHIVER_TOPIC_REFRESH_MS: how often `rn:topics` is re-read. */
  topicRefreshMs: number;
  /** RUNNEL_ARCHIVER_TOPICS: comma-separated allow-list of topics (default: all). */
  topics?: string[];
  /** RUNNEL_ARCHIVER_ID: this process's member id (default host-pid-random). */
  archiverId: string;
  /** RUNNEL_ARCHIVER_HTTP_PORT: /health, /ready and /metrics (lake lag per partition); 0 disables. */
  httpPort: number;
  /** RUNNEL_ARCHIVER_HTTP_*: bind address, authentication and TLS of that endpoint (ARCHIVER_HTTP_ENV). */
  http: HttpSettingsInput;
  /** RUNNEL_LOG_LEVEL: error | warn | info | debug. */
  logLevel: 'error' | 'warn' | 'info' | 'debug';
  /** RUNNEL_LOG_FORMAT: json (default) | pretty (one human-readable line, for a terminal). */
  logFormat: LogFormat;
}

type Env = Record<string, string | undefined>;

// Values have the broker's syntax (common/config/values.ts); an unset or empty variable takes the default.

/** An integer setting (durations: `*_MS`, integer milliseconds). */
function int(env: Env, name: string, dflt: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  const v = parseInteger(raw, min);
  if (v === undefined) throw new RunnelError('CONFIG_INVALID', `${name}=${raw} (expected an integer >= ${min})`);
  return v;
}

function bool(env: Env, name: string, dflt: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  const v = parseBoolean(raw);
  if (v === undefined) throw new RunnelError('CONFIG_INVALID', `${name}=${raw} (expected true/false)`);
  return v;
}

export function loadConfig(env: Env = process.env, overrides: Partial<ArchiverConfig> = {}): ArchiverConfig {
  const target = int(env, 'RUNNEL_ARCHIVER_TARGET_FILE_BYTES', 128 * 1024 * 1024, 1024);
  const level = (env.RUNNEL_LOG_LEVEL ?? 'info') as ArchiverConfig['logLevel'];
  const s3Endpoint = env.RUNNEL_S3_ENDPOINT || undefined;
  const format = env.RUNNEL_LOG_FORMAT || 'json';
  if (!isLogFormat(format)) throw new RunnelError('CONFIG_INVALID', `RUNNEL_LOG_FORMAT=${format} (expected ${LOG_FORMATS.join(' or ')})`);
  const cfg: ArchiverConfig = {
    redisUrl: env.RUNNEL_REDIS_URL || 'redis://127.0.0.1:6379',
    redisConnectionTimeoutMs: int(env, 'RUNNEL_REDIS_CONNECTION_TIMEOUT_MS', 10_000, 1),
    redisTlsCaLocation: env.RUNNEL_REDIS_TLS_CA_LOCATION || '',
    redisTlsCertLocation: env.RUNNEL_REDIS_TLS_CERT_LOCATION || '',
    redisTlsKeyLocation: env.RUNNEL_REDIS_TLS_KEY_LOCATION || '',
    redisTlsServername: env.RUNNEL_REDIS_TLS_SERVERNAME || '',
    redisTlsInsecureSkipVerify: bool(env, 'RUNNEL_REDIS_TLS_INSECURE_SKIP_VERIFY', false),
    keyPrefix: env.RUNNEL_KEY_PREFIX || 'rn',
    lake: env.RUNNEL_LAKE || `file://${process.cwd()}/lake`,
    s3Endpoint,
    // a custom endpoint (MinIO, moto, Ceph...) rarely has wildcard DNS for <bucket>.<host>
    s3ForcePathStyle: bool(env, 'RUNNEL_S3_FORCE_PATH_STYLE', s3Endpoint !== undefined),
    s3Region: env.RUNNEL_S3_REGION || undefined,
    targetFileBytes: Math.min(target, 1024 * 1024 * 1024),
    maxFileAgeMs: int(env, 'RUNNEL_ARCHIVER_MAX_FILE_AGE_MS', 60_000, 1),
    checkpointInterval: int(env, 'RUNNEL_ARCHIVER_CHECKPOINT_INTERVAL', 10, 1),
    leaseTtlMs: int(env, 'RUNNEL_ARCHIVER_LEASE_TTL_MS', 15_000, 300),
    pollIntervalMs: int(env, 'RUNNEL_ARCHIVER_POLL_INTERVAL_MS', 200, 1),
    readCount: int(env, 'RUNNEL_ARCHIVER_READ_COUNT', 256, 1),
    // encoding is the archiver's work; while workers encode, the main thread mostly waits
    workers: int(env, 'RUNNEL_ARCHIVER_WORKERS', Math.min(4, os.availableParallelism()), 1),
    splitMinBytes: int(env, 'RUNNEL_ARCHIVER_SPLIT_MIN_BYTES', 8 * 1024 * 1024, 1),
    verifyCrc: bool(env, 'RUNNEL_ARCHIVER_VERIFY_CRC', true),
    optimizeIntervalMs: int(env, 'RUNNEL_ARCHIVER_OPTIMIZE_INTERVAL_MS', 300_000),
    optimizeMinFiles: int(env, 'RUNNEL_ARCHIVER_OPTIMIZE_MIN_FILES', 8, 2),
    smallFileBytes: int(env, 'RUNNEL_ARCHIVER_SMALL_FILE_BYTES', Math.floor(target / 4), 1),
    vacuumIntervalMs: int(env, 'RUNNEL_ARCHIVER_VACUUM_INTERVAL_MS', 3_600_000),
    vacuumRetentionMs: int(env, 'RUNNEL_ARCHIVER_VACUUM_RETENTION_MS', 7 * 24 * 3_600_000),
    topicRefreshMs: int(env, 'RUNNEL_ARCHIVER_TOPIC_REFRESH_MS', 5_000, 10),
    topics: env.RUNNEL_ARCHIVER_TOPICS ? env.RUNNEL_ARCHIVER_TOPICS.split(',').map((s) => s.trim()).filter(Boolean) : undefined,
    archiverId: env.RUNNEL_ARCHIVER_ID || `${os.hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    httpPort: int(env, 'RUNNEL_ARCHIVER_HTTP_PORT', 0),
    http: {
      host: env.RUNNEL_ARCHIVER_HTTP_HOST || '127.0.0.1',
      bearerToken: env.RUNNEL_ARCHIVER_HTTP_AUTH_BEARER_TOKEN || '',
      basicUser: env.RUNNEL_ARCHIVER_HTTP_AUTH_BASIC_USER || '',
      basicPassword: env.RUNNEL_ARCHIVER_HTTP_AUTH_BASIC_PASSWORD || '',
      keystoreLocation: env.RUNNEL_ARCHIVER_HTTP_SSL_KEYSTORE_LOCATION || '',
      keyPassword: env.RUNNEL_ARCHIVER_HTTP_SSL_KEY_PASSWORD || '',
      truststoreLocation: env.RUNNEL_ARCHIVER_HTTP_SSL_TRUSTSTORE_LOCATION || '',
      clientAuth: env.RUNNEL_ARCHIVER_HTTP_SSL_CLIENT_AUTH || 'none',
    },
    logLevel: ['error', 'warn', 'info', 'debug'].includes(level) ? level : 'info',
    logFormat: format,
    ...overrides,
  };
  return cfg;
}

/** The variable behind each HTTP setting (named in configuration errors). */
export const ARCHIVER_HTTP_ENV: Record<keyof HttpSettings, string> = {
  host: 'RUNNEL_ARCHIVER_HTTP_HOST',
  port: 'RUNNEL_ARCHIVER_HTTP_PORT',
  bearerToken: 'RUNNEL_ARCHIVER_HTTP_AUTH_BEARER_TOKEN',
  basicUser: 'RUNNEL_ARCHIVER_HTTP_AUTH_BASIC_USER',
  basicPassword: 'RUNNEL_ARCHIVER_HTTP_AUTH_BASIC_PASSWORD',
  keystoreLocation: 'RUNNEL_ARCHIVER_HTTP_SSL_KEYSTORE_LOCATION',
  keyPassword: 'RUNNEL_ARCHIVER_HTTP_SSL_KEY_PASSWORD',
  truststoreLocation: 'RUNNEL_ARCHIVER_HTTP_SSL_TRUSTSTORE_LOCATION',
  clientAuth: 'RUNNEL_ARCHIVER_HTTP_SSL_CLIENT_AUTH',
};

/** The HTTP endpoint's settings of a config, as common/http takes them. */
export function archiverHttpSettings(cfg: ArchiverConfig): HttpSettings {
  return { ...cfg.http, port: cfg.httpPort, clientAuth: parseClientAuth(cfg.http.clientAuth, ARCHIVER_HTTP_ENV.clientAuth) };
}

/**
 * Every environment variable loadConfig reads, with its kind and meaning: the
 * `runnel archiver` flags are derived from this table (cli/archiver-flags.ts).
 */
export const ARCHIVER_ENV: ReadonlyArray<{ name: string; kind: 'string' | 'bool'; help: string }> = [
  { name: 'RUNNEL_REDIS_URL', kind: 'string', help: 'Redis holding the log (default: the embedded Redis of `runnel broker` with the same --data-dir, read from <data-dir>/redis.url, else redis://127.0.0.1:6379; cluster: comma-separated seeds)' },
  { name: 'RUNNEL_DATA_DIR', kind: 'string', help: 'data folder of a `runnel broker` with an embedded Redis (default ./data): its redis.url is used when no Redis is given, and the default lake is <data-dir>/lake' },
  { name: 'RUNNEL_REDIS_CONNECTION_TIMEOUT_MS', kind: 'string', help: 'how long start-up waits for Redis, retrying every 200 ms, before exiting (default 10000; the broker\'s redis.connection.timeout.ms)' },
  { name: 'RUNNEL_REDIS_TLS_CA_LOCATION', kind: 'string', help: 'PEM file of the CA(s) of the Redis server certificate (rediss://)' },
  { name: 'RUNNEL_REDIS_TLS_CERT_LOCATION', kind: 'string', help: 'PEM client certificate' },
  { name: 'RUNNEL_REDIS_TLS_KEY_LOCATION', kind: 'string', help: 'PEM private key of the client certificate' },
  { name: 'RUNNEL_REDIS_TLS_SERVERNAME', kind: 'string', help: 'SNI and certificate name (default: the URL host)' },
  { name: 'RUNNEL_REDIS_TLS_INSECURE_SKIP_VERIFY', kind: 'bool', help: 'accept any server certificate (testing only)' },
  { name: 'RUNNEL_KEY_PREFIX', kind: 'string', help: 'Redis key prefix (default rn)' },
  { name: 'RUNNEL_LAKE', kind: 'string', help: 'file:///abs/path, a path, or s3://bucket/prefix (default file://<data-dir>/lake)' },
  { name: 'RUNNEL_S3_ENDPOINT', kind: 'string', help: 'custom S3 endpoint (MinIO, ...)' },
  { name: 'RUNNEL_S3_FORCE_PATH_STYLE', kind: 'bool', help: 'path-style S3 addressing (default true when --s3-endpoint is given)' },
  { name: 'RUNNEL_S3_REGION', kind: 'string', help: 'S3 region (default AWS_REGION, then us-east-1)' },
  { name: 'RUNNEL_ARCHIVER_TARGET_FILE_BYTES', kind: 'string', help: 'cut a data file at this estimated Parquet size (default 128 MiB)' },
  { name: 'RUNNEL_ARCHIVER_MAX_FILE_AGE_MS', kind: 'string', help: 'cut a file at the latest this long after its first record (default 60000; 1000 with a broker\'s embedded Redis)' },
  { name: 'RUNNEL_ARCHIVER_CHECKPOINT_INTERVAL', kind: 'string', help: 'Delta checkpoint every N versions (default 10)' },
  { name: 'RUNNEL_ARCHIVER_LEASE_TTL_MS', kind: 'string', help: 'partition lease TTL (default 15000)' },
  { name: 'RUNNEL_ARCHIVER_POLL_INTERVAL_MS', kind: 'string', help: 'idle poll interval (default 200)' },
  { name: 'RUNNEL_ARCHIVER_READ_COUNT', kind: 'string', help: 'batches per read per partition (default 256)' },
  { name: 'RUNNEL_ARCHIVER_WORKERS', kind: 'string', help: 'Parquet worker threads (default: the cores, at most 4)' },
  { name: 'RUNNEL_ARCHIVER_SPLIT_MIN_BYTES', kind: 'string', help: 'encode a flush as parallel runs of at least this many stored bytes (default 8 MiB)' },
  { name: 'RUNNEL_ARCHIVER_VERIFY_CRC', kind: 'string', help: 'verify the CRC-32C of every batch: true|false (default true)' },
  { name: 'RUNNEL_ARCHIVER_OPTIMIZE_INTERVAL_MS', kind: 'string', help: 'small-file compaction interval, 0 = never (default 300000)' },
  { name: 'RUNNEL_ARCHIVER_OPTIMIZE_MIN_FILES', kind: 'string', help: 'compact a date partition at this many small files (default 8)' },
  { name: 'RUNNEL_ARCHIVER_SMALL_FILE_BYTES', kind: 'string', help: 'compaction candidates are below this size (default target/4)' },
  { name: 'RUNNEL_ARCHIVER_VACUUM_INTERVAL_MS', kind: 'string', help: 'VACUUM interval, 0 = never (default 3600000)' },
  { name: 'RUNNEL_ARCHIVER_VACUUM_RETENTION_MS', kind: 'string', help: 'keep unreferenced files this long (default 7 days)' },
  { name: 'RUNNEL_ARCHIVER_TOPIC_REFRESH_MS', kind: 'string', help: 'topic list refresh interval (default 5000)' },
  { name: 'RUNNEL_ARCHIVER_TOPICS', kind: 'string', help: 'comma-separated topics to archive (default: all)' },
  { name: 'RUNNEL_ARCHIVER_ID', kind: 'string', help: 'member id (default host-pid-random)' },
  { name: 'RUNNEL_ARCHIVER_HTTP_PORT', kind: 'string', help: '/health, /ready, /metrics port; 0 disables (default 0)' },
  { name: 'RUNNEL_ARCHIVER_HTTP_HOST', kind: 'string', help: 'address the HTTP endpoint binds (default 127.0.0.1; 0.0.0.0 for every interface)' },
  { name: 'RUNNEL_ARCHIVER_HTTP_AUTH_BEARER_TOKEN', kind: 'string', help: 'bearer token required on /ready and /metrics (prefer the variable to the flag)' },
  { name: 'RUNNEL_ARCHIVER_HTTP_AUTH_BASIC_USER', kind: 'string', help: 'basic-auth user required on /ready and /metrics' },
  { name: 'RUNNEL_ARCHIVER_HTTP_AUTH_BASIC_PASSWORD', kind: 'string', help: 'basic-auth password (prefer the variable to the flag)' },
  { name: 'RUNNEL_ARCHIVER_HTTP_SSL_KEYSTORE_LOCATION', kind: 'string', help: 'PEM file with the private key and certificate chain: serve HTTPS' },
  { name: 'RUNNEL_ARCHIVER_HTTP_SSL_KEY_PASSWORD', kind: 'string', help: 'passphrase of an encrypted private key' },
  { name: 'RUNNEL_ARCHIVER_HTTP_SSL_TRUSTSTORE_LOCATION', kind: 'string', help: 'PEM CA certificates for client certificates' },
  { name: 'RUNNEL_ARCHIVER_HTTP_SSL_CLIENT_AUTH', kind: 'string', help: 'client certificates: none | requested | required (default none)' },
  { name: 'RUNNEL_LOG_LEVEL', kind: 'string', help: 'error | warn | info | debug (default info)' },
  { name: 'RUNNEL_LOG_FORMAT', kind: 'string', help: 'json | pretty (one human-readable line per record; default json)' },
];
