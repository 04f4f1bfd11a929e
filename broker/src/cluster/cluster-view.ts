import type { BrokerInfo, LeaseUnit } from '../storage/cluster-store.js';
import type { LeadershipView } from '../log/log-manager.js';

/** What request handlers may ask about the cluster. */
export interface ClusterView extends LeadershipView {
  readonly nodeId: number;
  liveBrokers(): BrokerInfo[];
  leaderOf(u: LeaseUnit): number | null;
  /** Epoch of a partition led by another broker, as last observed. */
  observedEpoch(u: LeaseUnit): number;
  coordinatorSlot(key: string): number;
  /** Coordinator epoch of a slot this broker coordinates right now (fences group writes), else null. */
  coordinatorEpoch(slot: number): number | null;
}

/** A one-broker cluster that leads everything (unit tests, embedded tools). */
export function soloCluster(self: BrokerInfo): ClusterView {
  return {
    nodeId: self.nodeId,
    liveBrokers: () => [self],
    leads: () => true,
    claim: async () => true,
    leaderOf: () => self.nodeId,
    observedEpoch: () => 0,
    coordinatorSlot: () => 0,
    coordinatorEpoch: () => 0,
  };
}
