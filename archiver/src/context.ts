// What the archiver's parts (membership, reader, commit, maintenance) share.
// The Archiver implements it.
import type { RedisClient } from '../../common/redis/connect.js';
import type { ArchiverConfig } from './config.js';
import type { Keys } from './keys.js';
import type { Leases } from './lease.js';
import type { Logger } from '../../common/logger/logger.js';
import type { ArchiverMetrics, ArchiverStats } from './metrics.js';
import type { ParquetPool } from './parquet/pool.js';
import type { TransactionHooks } from './records/transactions.js';
import type { ObjectStore } from '../../common/lake/index.js';
import type { TopicArchiver, TopicSchemas } from './topic-state.js';
import type { RegistryReader } from './schemas/registry.js';

export interface ArchiverContext {
  readonly config: ArchiverConfig;
  readonly hooks: TransactionHooks;
  readonly keys: Keys;
  readonly store: ObjectStore;
  /** one node, or a Redis Cluster client (every command then touches one hash tag) */
  readonly redis: RedisClient;
  readonly pool: ParquetPool;
  readonly log: Logger;
  readonly leases: Leases;
  readonly stats: ArchiverStats;
  /** Commit times (absent in contexts built by tests). */
  readonly metrics?: ArchiverMetrics;
  readonly topics: Map<string, TopicArchiver>;
  /** true once stop() has begun */
  readonly stopping: boolean;
  /** id of the topic as registered in Redis, if known */
  topicId(topic: string): string | undefined;
  /** the topic's typed-column settings (absent in contexts built by tests: raw columns only) */
  topicSchemas?(topic: string): TopicSchemas | undefined;
  /** registry schemas by id (typed columns) */
  readonly registry?: RegistryReader;
  /** end the main loop's current sleep */
  wakeUp(): void;
}
