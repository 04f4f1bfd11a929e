// Who leads what, as reported to clients. A single broker leads every
// partition; the cluster issue replaces this with lease-based leadership.
import { ErrorCode } from '../errors.js';
import type { TopicRecord } from '../storage/log-store.js';
import type { BrokerServices } from './types.js';

export function brokerList(b: BrokerServices): Array<Record<string, unknown>> {
  return [{ nodeId: b.config.nodeId, host: b.config.advertisedHost, port: b.config.advertisedPort, rack: null }];
}

export function leaderEpochOf(b: BrokerServices, t: TopicRecord, p: number): number {
  const loaded = b.log.cachedPartition(t.name, p);
  return loaded?.leaderEpoch ?? 0;
}

export function partitionMetadata(b: BrokerServices, t: TopicRecord, p: number): Record<string, unknown> {
  const id = b.config.nodeId;
  return {
    errorCode: ErrorCode.NONE,
    partitionIndex: p,
    leaderId: id,
    leaderEpoch: leaderEpochOf(b, t, p),
    replicaNodes: [id],
    isrNodes: [id],
    offlineReplicas: [],
  };
}

export function liveBrokerCount(_b: BrokerServices): number {
  return 1;
}

export interface NodeAddress { nodeId: number; host: string; port: number }

/**
 * The broker that coordinates a consumer group (or other coordinator key).
 * Single broker: always this one. The cluster work spreads keys over live
 * brokers by coordinator slot; callers must answer NOT_COORDINATOR when the
 * result is not this broker.
 */
export function coordinatorFor(b: BrokerServices, _key: string): NodeAddress | null {
  return { nodeId: b.config.nodeId, host: b.config.advertisedHost, port: b.config.advertisedPort };
}

export function isLocalCoordinator(b: BrokerServices, key: string): boolean {
  return coordinatorFor(b, key)?.nodeId === b.config.nodeId;
}
