// Who leads what, as reported to clients, from the cluster's leadership view.
import { leaseUnitOf } from '../../log/internal-topics.js';
import { ErrorCode } from '../../../../common/errors.js';
import type { TopicRecord } from '../../storage/log-store.js';
import type { BrokerServices } from './types.js';
import type { Metadata } from '../../protocol/messages/metadata.js';
import type { Element, ResponseOf } from '../../protocol/typed.js';

/** One partition of a Metadata answer. */
export type PartitionMetadata = Element<Element<ResponseOf<typeof Metadata>['topics']>['partitions']>;
import { addressFor } from '../../cluster/endpoints.js';
import type { Session } from '../../security/session.js';

/** The listener a request came in on: brokers are reported with their addresses on it. */
export type ListenerOf = Pick<Session, 'listenerName' | 'securityProtocol'>;

/** Live brokers with an address on the client's listener (Kafka leaves the others out). */
export function brokerList(b: BrokerServices, on: ListenerOf): Array<{ nodeId: number; host: string; port: number; rack: string | null }> {
  return b.cluster.liveBrokers().flatMap((x) => {
    const a = addressFor(x, on);
    return a ? [{ nodeId: x.nodeId, host: a.host, port: a.port, rack: x.rack }] : [];
  });
}

/** Lowest live node id: reported as the controller, so admin tools have one to talk to. */
export function controllerId(b: BrokerServices): number {
  return Math.min(...b.cluster.liveBrokers().map((x) => x.nodeId));
}

/**
 * Leader, epoch, replicas and ISR of one partition. The data lives in Redis,
 * not on brokers, so the only honest replica list is the leader itself;
 * durability across hosts is Redis replication (see min.insync.replicas).
 */
export function partitionMetadata(b: BrokerServices, t: TopicRecord, p: number, on: ListenerOf & { apiVersion: number }): PartitionMetadata {
  // `__consumer_offsets` partition p is led by the coordinator of slot p.
  const unit = leaseUnitOf({ topic: t.name, partition: p });
  const leader = b.cluster.leaderOf(unit);
  if (leader === null) {
    return { errorCode: ErrorCode.LEADER_NOT_AVAILABLE, partitionIndex: p, leaderId: -1, leaderEpoch: -1, replicaNodes: [], isrNodes: [], offlineReplicas: [] };
  }
  // Kafka: a leader without the client's listener is LISTENER_NOT_FOUND from Metadata v6 on, LEADER_NOT_AVAILABLE before.
  const info = b.cluster.liveBrokers().find((x) => x.nodeId === leader);
  if (info && !addressFor(info, on)) {
    const errorCode = on.apiVersion >= 6 ? ErrorCode.LISTENER_NOT_FOUND : ErrorCode.LEADER_NOT_AVAILABLE;
    return { errorCode, partitionIndex: p, leaderId: leader, leaderEpoch: -1, replicaNodes: [leader], isrNodes: [leader], offlineReplicas: [] };
  }
  const local = leader === b.cluster.nodeId ? b.log.cachedPartition(t.name, p) : undefined;
  return {
    errorCode: ErrorCode.NONE,
    partitionIndex: p,
    leaderId: leader,
    leaderEpoch: local ? local.leaderEpoch : b.cluster.observedEpoch(unit),
    replicaNodes: [leader],
    isrNodes: [leader],
    offlineReplicas: [],
  };
}

export function liveBrokerCount(b: BrokerServices): number {
  return b.cluster.liveBrokers().length;
}

export interface NodeAddress { nodeId: number; host: string; port: number }

const coordinatorUnit = (b: BrokerServices, key: string) => ({ kind: 'coordinator' as const, slot: b.cluster.coordinatorSlot(key) });

/**
 * The broker that coordinates a consumer group (or other coordinator key):
 * keys hash onto coordinator slots, each led by one broker under a lease.
 * Null while the slot has no leader, or the leader has no address on the
 * client's listener `on` (answer COORDINATOR_NOT_AVAILABLE, as Kafka does).
 * Without `on`: the inter-broker address. Callers must answer NOT_COORDINATOR
 * when the result is not this broker.
 */
export function coordinatorFor(b: BrokerServices, key: string, on?: ListenerOf): NodeAddress | null {
  const leader = b.cluster.leaderOf(coordinatorUnit(b, key));
  const info = leader === null ? undefined : b.cluster.liveBrokers().find((x) => x.nodeId === leader);
  const a = info && (on ? addressFor(info, on) : { host: info.host, port: info.port });
  return info && a ? { nodeId: info.nodeId, host: a.host, port: a.port } : null;
}

export function isLocalCoordinator(b: BrokerServices, key: string): boolean {
  return b.cluster.leads(coordinatorUnit(b, key));
}
