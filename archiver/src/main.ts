// Entry point of the archiver process: `runArchiver(config)`.
import { Archiver, type ArchiverStats, type PartitionLag } from './archiver.js';
import { loadConfig, type ArchiverConfig } from './config.js';
import { abortedTransactionFilter, type TransactionHooks } from './records/transactions.js';

export { loadConfig, type ArchiverConfig } from './config.js';
export type { PartitionLag, ArchiverStats } from './archiver.js';
export { abortedTransactionFilter, type TransactionHooks } from './records/transactions.js';

export interface ArchiverHandle {
  /** Lake lag per archived partition (records and seconds), for the metrics endpoint. */
  lag(): PartitionLag[];
  stats(): ArchiverStats;
  /** Flushes buffered data, releases leases, closes connections. */
  stop(): Promise<void>;
  readonly archiver: Archiver;
}

/**
 * Start an archiver. Resolves once it has joined the archiver group (`rn:archivers`);
 * its partitions are leased and adopted in the background. Runs until `stop()`.
 */
export async function runArchiver(
  config: ArchiverConfig = loadConfig(),
  hooks: TransactionHooks = abortedTransactionFilter,
): Promise<ArchiverHandle> {
  const a = new Archiver(config, hooks);
  await a.start();
  return {
    lag: () => a.lag(),
    stats: () => ({ ...a.stats }),
    stop: () => a.stop(),
    archiver: a,
  };
}
