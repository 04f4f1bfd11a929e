// What a share group runs with: the broker's group.share.* defaults, and, per
// group, the overrides of its group configs (share.record.lock.duration.ms,
// share.delivery.count.limit, share.auto.offset.reset, share.isolation.level,
// share.session.timeout.ms, share.heartbeat.interval.ms) set with
// `kafka-configs --entity-type groups` (groups/config/). The state machines read
// them synchronously through `of`; the handlers `load` a group's configs (read
// from Redis at most once a second per group, groups/config/group-configs.ts)
// before they act on it.
import type { EffectiveGroupConfig } from '../config/group-config-rules.js';

export interface ShareBrokerSettings {
  /** group.share.session.timeout.ms */
  sessionTimeoutMs: number;
  /** group.share.heartbeat.interval.ms */
  heartbeatIntervalMs: number;
  /** group.share.record.lock.duration.ms */
  recordLockDurationMs: number;
  /** group.share.delivery.count.limit */
  deliveryCountLimit: number;
  /** group.share.partition.max.record.locks */
  partitionMaxRecordLocks: number;
  /** group.share.max.size */
  maxSize: number;
  /** group.share.max.share.sessions: share sessions one broker keeps */
  maxShareSessions: number;
}

export const DEFAULT_SHARE_SETTINGS: ShareBrokerSettings = {
  sessionTimeoutMs: 45_000,
  heartbeatIntervalMs: 5_000,
  recordLockDurationMs: 30_000,
  deliveryCountLimit: 5,
  partitionMaxRecordLocks: 2_000,
  maxSize: 200,
  maxShareSessions: 2_000,
};

export interface ShareGroupConfig {
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  recordLockDurationMs: number;
  deliveryCountLimit: number;
  /** share.auto.offset.reset: where a share-partition without state starts (Kafka's default: latest). */
  autoOffsetReset: 'latest' | 'earliest';
  /** share.isolation.level (Kafka's default: read_uncommitted). */
  isolationLevel: 'read_uncommitted' | 'read_committed';
}

/** Per-group configuration: the seam where group configs plug in. */
export interface ShareGroupConfigs {
  /** The group's configuration as last loaded (the broker defaults before that). */
  of(groupId: string): ShareGroupConfig;
  /** Reads the group's configs, so that `of` returns them; the handlers call it before acting on the group. */
  load(groupId: string): Promise<void>;
}

/** Every group with the broker defaults (no group configs yet). */
export function brokerDefaultConfigs(s: ShareBrokerSettings): ShareGroupConfigs {
  const cfg: ShareGroupConfig = {
    sessionTimeoutMs: s.sessionTimeoutMs,
    heartbeatIntervalMs: s.heartbeatIntervalMs,
    recordLockDurationMs: s.recordLockDurationMs,
    deliveryCountLimit: s.deliveryCountLimit,
    autoOffsetReset: 'latest',
    isolationLevel: 'read_uncommitted',
  };
  return { of: () => cfg, load: async () => {} };
}

/**
 * The group configs of `source` (groups/config/GroupConfigs: overrides, else
 * the broker's group.share.* settings). share.auto.offset.reset by_duration
 * starts a new share-partition at the end of the log, as latest does (not
 * yet served by its timestamp).
 */
export function groupConfigBacked(source: { get(groupId: string): Promise<EffectiveGroupConfig> }, s: ShareBrokerSettings): ShareGroupConfigs {
  const defaults = brokerDefaultConfigs(s).of('');
  const loaded = new Map<string, ShareGroupConfig>();
  return {
    of: (groupId) => loaded.get(groupId) ?? defaults,
    async load(groupId) {
      const e = await source.get(groupId);
      if (loaded.size > 10_000 && !loaded.has(groupId)) loaded.clear();
      loaded.set(groupId, {
        sessionTimeoutMs: e.shareSessionTimeoutMs,
        heartbeatIntervalMs: e.shareHeartbeatIntervalMs,
        recordLockDurationMs: e.shareRecordLockDurationMs,
        deliveryCountLimit: e.shareDeliveryCountLimit,
        autoOffsetReset: e.shareAutoOffsetReset.strategy === 'earliest' ? 'earliest' : 'latest',
        isolationLevel: e.shareIsolationLevel,
      });
    },
  };
}
