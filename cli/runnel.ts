#!/usr/bin/env node
// `runnel <command>`: broker | archiver
import { loadBrokerConfig } from '../broker/src/config.js';
import { startBroker } from '../broker/src/broker.js';

const USAGE = `usage: runnel <command> [options]

commands:
  broker     run a Kafka-compatible broker (see README for flags and settings)
  archiver   drain topics into Delta Lake tables
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
    return;
  }
  if (command === 'archiver') {
    const mod = await import('../archiver/src/main.js' as string).catch(() => null);
    if (!mod?.main) {
      process.stderr.write('runnel archiver is not available in this build\n');
      process.exit(2);
    }
    await mod.main(rest);
    return;
  }
  process.stderr.write(USAGE);
  process.exit(command ? 2 : 0);
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
