// `runnel <command>`: dev | broker | archiver | apis | placement | status | topic | produce | consume | group | acl | user | quota | schema (the last eight are clients: cli/commands/). Arguments are
// parsed with node:util parseArgs (strict): an unknown flag exits 2 with the
// usage; --help and --version exit 0. Loaded by cli/runnel.ts once the Node.js
// version is known to be new enough.
import './v8-setup.js';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { BROKER_OPTIONS, brokerFlagsUsage, loadBrokerConfig } from '../broker/src/config/config.js';
import { redactSecrets, setLogFormat } from '../common/logger/logger.js';
import { connectFailureReason } from '../common/redis/connect-retry.js';
import { EMBEDDED_REDIS_URL_FILE, readEmbeddedRedisUrl } from '../broker/src/redis/embedded-redis.js';
import { ARCHIVER_OPTIONS, archiverEnv, archiverFlagsUsage } from './archiver-flags.js';
import { CLIENT_COMMANDS, clientCommandsUsage, runClientCommand } from './commands/index.js';

const USAGE = `usage: runnel <command> [options]
       runnel --version | --help
       runnel <command> --help

commands:
  dev        a playground: broker, embedded Redis, web console, schema registry and archiver in one command
  broker     run a Kafka-compatible broker
  archiver   drain topics into Delta Lake tables
  apis       print the supported Kafka APIs and versions (from the handler registry)
  placement  per Redis primary: the partitions it holds and their bytes
  status     brokers, partition leaders and log ends, lake lag, group lag, Redis memory
${clientCommandsUsage()}`;

const COMMAND_USAGE: Record<string, () => string> = {
  dev: () => `usage: runnel dev [broker options]\n\nStarts a broker (with an embedded Redis unless --redis is given) on 127.0.0.1:9092, its web console\nand /metrics on http://127.0.0.1:8080, its Schema Registry on http://127.0.0.1:8081, and the archiver\ninto <data-dir>/lake; prints where each listens. Ctrl-C stops the archiver, then the broker. The broker options and RUNNEL_* variables\noverride these defaults (for example --set http.port=9080).\n\noptions:\n${brokerFlagsUsage()}`,
  broker: () => `usage: runnel broker [options]\n\nSettings: Kafka's broker keys (server.properties) and Runnel's; see docs/configuration.md.\nPrecedence: defaults < --config file < RUNNEL_* environment < flags.\n\noptions:\n${brokerFlagsUsage()}`,
  archiver: () => `usage: runnel archiver [options]\n\nEvery flag overrides the environment variable shown in brackets.\n\noptions:\n${archiverFlagsUsage()}`,
  apis: () => 'usage: runnel apis\n\nPrints the supported Kafka APIs and their versions.\n\noptions:\n  -h, --help               this help\n',
  placement: () => `usage: runnel placement [--json] [broker options]\n\nPer Redis primary: the partitions it holds and their bytes. Reads --redis / redis.url, or the\nembedded Redis of a \`runnel broker\` on the same --data-dir (data/redis.url).\n\noptions:\n  --json                   JSON instead of a table\n${brokerFlagsUsage()}`,
  status: () => `usage: runnel status [--json] [--verbose] [--internal] [--watch [--interval S]] [broker options]\n\nLive brokers; per partition its leader, leader epoch, log end and archived offset (lake lag);\nconsumer groups and their lag; Redis memory per primary. Reads --redis / redis.url, or the\nembedded Redis of a \`runnel broker\` on the same --data-dir (data/redis.url).\n\noptions:\n  --json                   JSON instead of tables\n  -V, --verbose            also each group's committed offset and lag per partition\n  --internal               also internal topics (__consumer_offsets)\n  --watch                  refresh until Ctrl-C: redraw on a terminal, one report after another otherwise\n  --interval S             seconds between refreshes with --watch (default 2)\n${brokerFlagsUsage()}`,
};

class UsageError extends Error {}

/** Names what the archiver could not reach: the Redis URL (password redacted) and why. */
function archiverStartError(e: unknown, redisUrl: string): Error {
  const err = e as { code?: string; port?: number; address?: string };
  if (!err?.code || !/^E[A-Z]+$/.test(err.code)) return e as Error;
  const redisPorts = [...redisUrl.matchAll(/:(\d+)(?=[,/]|$)/g)].map((m) => Number(m[1]));
  const isRedis = err.port === undefined || redisPorts.includes(err.port) || (redisPorts.length === 0 && err.port === 6379);
  const what = isRedis ? `redis at ${redactSecrets(redisUrl)}` : `${err.address ?? 'a service'}:${err.port}`;
  return new Error(`archiver: cannot connect to ${what}: ${connectFailureReason(e)}`, { cause: e });
}

function version(): string {
  for (const p of ['../../package.json', '../package.json']) {
    try {
      return (JSON.parse(readFileSync(new URL(p, import.meta.url), 'utf8')) as { version: string }).version;
    } catch { /* next */ }
  }
  return 'unknown';
}

function parse(args: string[], options: NonNullable<ParseArgsConfig['options']>): Record<string, string | boolean | (string | boolean)[] | undefined> {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (e) {
    if ((e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) throw new UsageError((e as Error).message);
    throw e;
  }
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  if (command === '--version' || command === '-v' || command === 'version') {
    process.stdout.write(`runnel ${version()}\n`);
    return;
  }
  if (Object.hasOwn(CLIENT_COMMANDS, command)) {
    process.exitCode = await runClientCommand(command, rest);
    return;
  }
  const usage = COMMAND_USAGE[command];
  if (!usage) throw new UsageError(`unknown command ${command}`);
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(usage());
    return;
  }
  if (command === 'dev') {
    parse(rest, BROKER_OPTIONS);
    const { devCommand } = await import('./dev.js');
    process.exit(await devCommand(rest));
  }
  if (command === 'broker') {
    parse(rest, BROKER_OPTIONS);
    const cfg = loadBrokerConfig(rest);
    setLogFormat(cfg.logFormat); // every logger of the process, those made at import included
    const { startBroker } = await import('../broker/src/broker.js');
    const broker = await startBroker(cfg);
    const shutdown = (): void => {
      void broker.stop().then(() => process.exit(0));
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
    // Another process took this node id over while this one was paused or cut off: it has stopped; exit non-zero.
    void broker.superseded.then((holder) => {
      process.stderr.write(`node.id ${cfg.nodeId} was taken over by broker instance ${holder}; this broker stopped\n`);
      process.exit(1);
    });
    return;
  }
  if (command === 'apis') {
    parse(rest, { help: { type: 'boolean', short: 'h' } });
    const { buildHandlers } = await import('../broker/src/handlers/support/registry.js');
    const { apiTable } = await import('../broker/src/handlers/support/api-table.js');
    process.stdout.write(apiTable(buildHandlers()));
    return;
  }
  if (command === 'placement') {
    parse(rest, { ...BROKER_OPTIONS, json: { type: 'boolean' } });
    const { placementCommand } = await import('./placement.js');
    await placementCommand(rest);
    return;
  }
  if (command === 'status') {
    const v = parse(rest, { ...BROKER_OPTIONS, json: { type: 'boolean' }, verbose: { type: 'boolean', short: 'V' }, internal: { type: 'boolean' }, watch: { type: 'boolean' }, interval: { type: 'string' } });
    if (v.interval !== undefined && !v.watch) throw new UsageError('--interval needs --watch');
    if (v.interval !== undefined && !(Number(v.interval) > 0 && Number.isFinite(Number(v.interval)))) throw new UsageError(`--interval ${String(v.interval)}: expected seconds > 0`);
    const { statusCommand } = await import('./status.js');
    await statusCommand(rest);
    return;
  }
  // archiver
  const env = archiverEnv(parse(rest, ARCHIVER_OPTIONS), process.env);
  const dataDir = resolve(env.RUNNEL_DATA_DIR || 'data');
  if (!env.RUNNEL_LAKE) env.RUNNEL_LAKE = `file://${resolve(dataDir, 'lake')}`;
  // No Redis given: the embedded Redis of a `runnel broker` on the same data folder (the quick start).
  const embeddedUrl = env.RUNNEL_REDIS_URL ? null : readEmbeddedRedisUrl(dataDir);
  if (embeddedUrl) {
    env.RUNNEL_REDIS_URL = embeddedUrl;
    // a local trial: commit within a second instead of after a minute (an explicit setting wins)
    if (!env.RUNNEL_ARCHIVER_MAX_FILE_AGE_MS) env.RUNNEL_ARCHIVER_MAX_FILE_AGE_MS = '1000';
  }
  const { loadConfig, runArchiver } = await import('../archiver/src/main.js');
  const cfg = loadConfig(env);
  setLogFormat(cfg.logFormat);
  if (embeddedUrl) {
    const { createLogger } = await import('../common/logger/logger.js');
    createLogger(cfg.logLevel, 'archiver').info('using the embedded redis of the broker in the data folder', {
      redis: embeddedUrl, file: resolve(dataDir, EMBEDDED_REDIS_URL_FILE), lake: cfg.lake, maxFileAgeMs: cfg.maxFileAgeMs,
    });
  }
  const handle = await runArchiver(cfg).catch((e: unknown) => { throw archiverStartError(e, cfg.redisUrl); });
  const shutdown = (): void => {
    void handle.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((e) => {
  if (e instanceof UsageError) {
    const command = process.argv[2];
    process.stderr.write(`runnel: ${e.message}\n\n${(command && COMMAND_USAGE[command]?.()) || USAGE}`);
    process.exit(2);
  }
  process.stderr.write(`${redactSecrets(e instanceof Error ? e.message : String(e))}\n`);
  process.exit(1);
});
