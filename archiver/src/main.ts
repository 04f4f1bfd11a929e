// Entry point of the archiver process: `runArchiver(config)`.
import { Archiver, type ArchiverStats, type PartitionLag } from './archiver.js';
import { loadConfig, type ArchiverConfig } from './config.js';
import { observeArchiver } from './metrics.js';
import { startHttp } from '../../common/http/http-server.js';
import { HttpConfigError, httpsOptions, type HttpSettings } from '../../common/http/http-settings.js';
import { RunnelError } from '../../common/errors.js';
import { archiverHttpSettings, ARCHIVER_HTTP_ENV } from './config.js';
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
  // checked before anything starts: a half-configured endpoint must not serve unprotected
  const httpSettings = config.httpPort > 0 ? checkedHttp(config) : null;
  const a = new Archiver(config, hooks);
  try {
    await a.start();
  } catch (e) {
    // nothing to flush yet: release what was opened (worker threads, lake client, Redis)
    await a.stop({ flush: false }).catch(() => {});
    throw e;
  }
  let http: Awaited<ReturnType<typeof startHttp>> | null = null;
  if (httpSettings) {
    observeArchiver(a.metrics.registry, a);
    http = await startHttp(httpSettings, { ready: () => a.ready(), registry: a.metrics.registry }).catch(async (e: unknown) => {
      await a.stop({ flush: false }).catch(() => {});
      throw e;
    });
    a.log.info('http endpoint listening', http.describe);
  }
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

/** The settings, or RN3001 (invalid configuration) naming the variable at fault. */
function checkedHttp(config: ArchiverConfig): HttpSettings {
  try {
    const s = archiverHttpSettings(config);
    httpsOptions(s, ARCHIVER_HTTP_ENV);
    return s;
  } catch (e) {
    if (e instanceof HttpConfigError) throw new RunnelError('CONFIG_INVALID', e.message);
    throw e;
  }
}
