// `runnel placement [--json] [broker flags]`: per Redis primary, the
// partitions it holds and their bytes, read from the same Redis the brokers
// use (the broker's --redis / redis.url, key.prefix and redis.tls.* settings;
// without one, the embedded Redis a `runnel broker` published in the data folder).
import { loadBrokerConfig, type BrokerConfig } from '../broker/src/config/config.js';
import { RedisLogStore, type PrimaryPlacement } from '../broker/src/redis/redis-log-store.js';
import { resolve } from 'node:path';
import { isInternalTopic } from '../broker/src/log/internal-topics.js';
import { EMBEDDED_REDIS_URL_FILE, readEmbeddedRedisUrl } from '../broker/src/redis/embedded-redis.js';
import { redisTlsOptions, redisTlsSettings } from '../common/redis/tls-options.js';

const human = (n: number): string => (n >= 1048576 ? `${(n / 1048576).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`);

export function placementTable(rows: PrimaryPlacement[]): string {
  const total = rows.reduce((a, r) => a + r.partitions.length, 0);
  const lines = ['primary                 partitions  share    bytes        topics/partitions'];
  for (const r of rows) {
    const share = total ? `${((100 * r.partitions.length) / total).toFixed(1)}%` : '-';
    // user topics first: the 50 partitions of __consumer_offsets would otherwise fill the eight shown
    const parts = [...r.partitions.filter((p) => !isInternalTopic(p.slice(0, p.lastIndexOf('/')))), ...r.partitions.filter((p) => isInternalTopic(p.slice(0, p.lastIndexOf('/'))))];
    const shown = parts.length > 8 ? `${parts.slice(0, 8).join(' ')} ... (+${parts.length - 8})` : parts.join(' ');
    lines.push(`${r.node.padEnd(24)}${String(r.partitions.length).padStart(10)}  ${share.padStart(6)}  ${human(r.bytes).padStart(11)}  ${shown}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * A store on the Redis the brokers use (--redis / redis.url, key.prefix,
 * redis.tls.*), or with none given the embedded Redis of a `runnel broker` on
 * the same data folder (`<data.dir>/redis.url`, as `runnel archiver` finds it);
 * connect() and close() are the caller's.
 */
export function storeFromConfig(cfg: BrokerConfig, command: string): RedisLogStore {
  const url = cfg.redisUrl || readEmbeddedRedisUrl(cfg.dataDir);
  if (!url) {
    throw new Error(`runnel ${command} needs --redis (or redis.url / RUNNEL_REDIS_URL), or a running \`runnel broker\` with its embedded Redis`
      + ` in the data folder (no ${resolve(cfg.dataDir, EMBEDDED_REDIS_URL_FILE)}; --data-dir names another folder)`);
  }
  const tls = redisTlsOptions(url, redisTlsSettings(cfg));
  return new RedisLogStore(url, cfg.keyPrefix, tls ? { tls } : {});
}

export async function placementCommand(args: string[]): Promise<void> {
  const json = args.includes('--json');
  const store = storeFromConfig(loadBrokerConfig(args.filter((a) => a !== '--json')), 'placement');
  try {
    await store.connect();
    const rows = await store.placementReport();
    process.stdout.write(json ? `${JSON.stringify({ cluster: store.cluster, primaries: rows }, null, 2)}\n` : placementTable(rows));
  } finally {
    await store.close();
  }
}
