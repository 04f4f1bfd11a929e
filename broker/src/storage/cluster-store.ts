// Cluster coordination state: broker registrations, leadership leases and
// leader-epoch history. Narrow and domain-shaped like LogStore.

export interface BrokerInfo {
  nodeId: number;
  host: string;
  port: number;
  rack: string | null;
}

/** A unit of leadership: a topic-partition or a group-coordinator slot. */
export type LeaseUnit = { kind: 'partition'; topic: string; partition: number } | { kind: 'coordinator'; slot: number };

export interface ClusterStore {
  /** Registers (or refreshes) this broker; its registration expires at `expiresAt` (ms). */
  registerBroker(info: BrokerInfo, expiresAt: number): Promise<void>;
  unregisterBroker(nodeId: number): Promise<void>;
  /** Brokers whose registration has not expired at `now`. */
  liveBrokers(now: number): Promise<BrokerInfo[]>;

  /** Current lease holder per unit (null when free) and, for partitions, the leader epoch; in the order given. */
  leaseHolders(units: LeaseUnit[]): Promise<Array<{ holder: number | null; epoch: number }>>;
  /** Takes a free lease; false if someone holds it. */
  acquireLease(unit: LeaseUnit, nodeId: number, ttlMs: number): Promise<boolean>;
  /** Extends a lease this node holds; false if it no longer holds it. */
  renewLease(unit: LeaseUnit, nodeId: number, ttlMs: number): Promise<boolean>;
  /** Gives up a lease this node holds. */
  releaseLease(unit: LeaseUnit, nodeId: number): Promise<void>;

  /** Increments and returns the partition's leader epoch. */
  bumpLeaderEpoch(topic: string, partition: number): Promise<number>;
  /** Records that `epoch` started at `startOffset`. */
  recordEpochStart(topic: string, partition: number, epoch: number, startOffset: number): Promise<void>;
  /** Epoch -> start offset, for OffsetForLeaderEpoch. */
  epochHistory(topic: string, partition: number): Promise<Map<number, number>>;
}
