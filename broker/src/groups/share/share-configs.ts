// What a share group runs with: the broker's group.share.* defaults, and, per
// group, the overrides of its group configs (share.record.lock.duration.ms,
// share.delivery.count.limit, share.auto.offset.reset, share.isolation.level,
// share.session.timeout.ms, share.heartbeat.interval.ms). Group configs
// (`kafka-configs --entity-type groups`) are not stored yet: `ShareGroupConfigs`
// is the one place they will be read from; until then every group gets the
// broker defaults.

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
  of(groupId: string): ShareGroupConfig;
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
  return { of: () => cfg };
}
