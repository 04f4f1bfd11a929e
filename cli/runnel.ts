#!/usr/bin/env node
// `runnel <command>`: broker | archiver
import { loadBrokerConfig } from '../broker/src/config.js';
import { startBroker } from '../broker/src/broker.js';
import { redactSecrets } from '../broker/src/logger.js';
import { resolve } from 'node:path';

const USAGE = `usage: runnel <command> [options]

commands:
  broker     run a Kafka-compatible broker (see README for flags and settings)
  archiver   drain topics into Delta Lake tables
  apis       print the supported Kafka APIs and versions (from the handler registry)
  placement  per Redis primary: the partitions it holds and their bytes (--redis URL [--json])
`;

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (command === 'broker') {
    const cfg = loadBrokerConfig(rest);
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
    const { buildHandlers } = await import('../broker/src/handlers/registry.js');
    const { apiTable } = await import('../broker/src/handlers/api-table.js');
    process.stdout.write(apiTable(buildHandlers()));
    return;
  }
  if (command === 'placement') {
    const { placementCommand } = await import('./placement.js');
    await placementCommand(rest);
    return;
  }
  if (command === 'archiver') {
    // Flags mirror the environment variables of archiver/src/config.ts.
    const env: NodeJS.ProcessEnv = { ...process.env };
    const flags: Record<string, string> = { '--lake': 'RUNNEL_LAKE', '--redis': 'RUNNEL_REDIS_URL', '--s3-endpoint': 'RUNNEL_S3_ENDPOINT' };
    for (let i = 0; i < rest.length; i++) {
      const name = flags[rest[i]!];
      if (!name || rest[i + 1] === undefined) {
        process.stderr.write(`unknown or incomplete flag ${rest[i]}\n`);
        process.exit(2);
      }
      env[name] = rest[++i];
    }
    if (!env.RUNNEL_LAKE) env.RUNNEL_LAKE = `file://${resolve('data', 'lake')}`;
    const { loadConfig, runArchiver } = await import('../archiver/src/main.js');
    const handle = await runArchiver(loadConfig(env));
    const shutdown = (): void => {
      void handle.stop().then(() => process.exit(0));
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
    return;
  }
  process.stderr.write(USAGE);
  process.exit(command ? 2 : 0);
}

main().catch((e) => {
  process.stderr.write(`${redactSecrets(e instanceof Error ? e.message : String(e))}\n`);
  process.exit(1);
});
