// Everything share groups need on one broker (KIP-932): the coordinator of
// their membership, the share-partitions it serves and the share sessions of
// the members fetching from it, with the settings and per-group configs.
import type { Clock } from '../../../../common/clock.js';
import type { Logger } from '../../../../common/logger/logger.js';
import type { TopicMeta } from '../consumer/assignors.js';
import { ShareCoordinator } from './share-coordinator.js';
import { ShareAdmin } from './share-admin.js';
import { SharePartitions } from './share-partitions.js';
import { ShareSessions } from './share-sessions.js';
import { brokerDefaultConfigs, type ShareBrokerSettings, type ShareGroupConfigs } from './share-configs.js';
import type { ShareGroupStore, SharePartitionStore } from './share-store.js';
import type { ShareLimits } from './share-partition.js';

export class ShareService {
  readonly coordinator: ShareCoordinator;
  readonly partitions: SharePartitions;
  readonly sessions: ShareSessions;
  readonly configs: ShareGroupConfigs;
  readonly admin: ShareAdmin;

  constructor(
    readonly store: SharePartitionStore & ShareGroupStore,
    readonly clock: Clock,
    readonly settings: ShareBrokerSettings,
    topics: () => Promise<TopicMeta[]>,
    opts: { logger?: Logger; configs?: ShareGroupConfigs; coordinatorEpoch?: (groupId: string) => number | null } = {},
  ) {
    this.configs = opts.configs ?? brokerDefaultConfigs(settings);
    this.coordinator = new ShareCoordinator(clock, this.configs, settings.maxSize, topics, store, opts.coordinatorEpoch, opts.logger);
    this.partitions = new SharePartitions(store, clock);
    this.sessions = new ShareSessions(settings.maxShareSessions, settings.sessionTimeoutMs);
    this.admin = new ShareAdmin(this);
  }

  /** The limits of the group's share-partitions. */
  limits(groupId: string): ShareLimits {
    const c = this.configs.of(groupId);
    return { lockMs: c.recordLockDurationMs, deliveryLimit: c.deliveryCountLimit, maxLocks: this.settings.partitionMaxRecordLocks };
  }

  /** The share groups `isLocal` says this broker coordinates: those with members here, and those with stored state (Empty when no member is here). */
  async listGroups(isLocal: (groupId: string) => boolean): Promise<Array<{ groupId: string; state: string }>> {
    const ids = new Set([...this.coordinator.groupIds(), ...(await this.store.listGroupIds())]);
    return [...ids].filter(isLocal).map((groupId) => ({ groupId, state: this.coordinator.group(groupId)?.state ?? 'Empty' }));
  }

  stop(): void {
    this.coordinator.stop();
  }
}
