// Entry point of the archiver process: `runArchiver(config)`.
import { Archiver, type ArchiverStats, type PartitionLag } from './archiver.js';
import { loadConfig, type ArchiverConfig } from './config.js';
import { stalledGauge } from './metrics.js';
import { startHttp, type HttpProbes } from '../../broker/src/http/http-server.js';
import type { TransactionHooks } from './records/transactions.js';

export { loadConfig, type ArchiverConfig } from './config.js';
export type { PartitionLag, ArchiverStats } from './archiver.js';
export { abortedTransactionFilter, type TransactionHooks } from './records/transactions.js';
export { redisTransactionHooks } from './records/redis-transactions.js';

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
  hooks?: TransactionHooks,
): Promise<ArchiverHandle> {
  const a = new Archiver(config, hooks);
  try {
    await a.start();
  } catch (e) {
    // nothing to flush yet: release what was opened (worker threads, lake client, Redis)
    await a.stop({ flush: false }).catch(() => {});
    throw e;
  }
  const http = config.httpPort > 0 ? await startHttp('0.0.0.0', config.httpPort, archiverProbes(a)) : null;
  return {
    lag: () => a.lag(),
    stats: () => ({ ...a.stats }),
    stop: async () => {
      await http?.close();
      await a.stop();
    },
    archiver: a,
  };
}

/** Lake lag per partition (records and seconds behind the log end) and counters, for Prometheus. */
function archiverProbes(a: Archiver): HttpProbes {
  return {
    ready: () => a.ready(),
    metrics: async () => {
      const lag = a.lag();
      const labels = (l: PartitionLag) => ({ topic: l.topic, partition: l.partition });
      return [
        { name: 'runnel_archiver_lag_records', help: 'Records in Redis not yet committed to the lake', samples: lag.map((l) => ({ labels: labels(l), value: l.lagRecords ?? NaN })) },
        { name: 'runnel_archiver_lag_seconds', help: 'Age of the oldest record not yet committed to the lake', samples: lag.map((l) => ({ labels: labels(l), value: l.lagSeconds ?? NaN })) },
        { name: 'runnel_archiver_archived_offset', help: 'Highest offset committed to the lake', samples: lag.map((l) => ({ labels: labels(l), value: l.archivedOffset })) },
        stalledGauge(lag),
        ...Object.entries(a.stats).map(([k, v]) => ({ name: `runnel_archiver_${k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`, help: `archiver counter ${k}`, samples: [{ value: v as number }] })),
      ];
    },
  };
}
