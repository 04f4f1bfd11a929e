// Cluster coordination state: broker registrations, leadership leases and
// leader-epoch history. Narrow and domain-shaped like LogStore.
//
// Registrations and leases name a broker *instance* (`<nodeId>:<random>`, one
// per process), not just its node id: a process can only renew or release
// what it took itself, so two processes started with the same node.id cannot
// keep each other's leases alive.

/** Where clients reach a broker on one listener (Kafka's advertised.listeners entry). */
export interface Endpoint {
  listener: string;
  host: string;
  port: number;
}

export interface BrokerInfo {
  nodeId: number;
  /** The address other brokers use (its inter-broker listener: the first PLAINTEXT one, else the first). */
  host: string;
  port: number;
  rack: string | null;
  /**
   * Every listener's advertised address. Absent in registrations written
   * before listeners existed: such a broker served one PLAINTEXT listener at host:port.
   */
  endpoints?: Endpoint[];
}

/** A unit of leadership: a topic-partition or a group-coordinator slot. */
export type LeaseUnit = { kind: 'partition'; topic: string; partition: number } | { kind: 'coordinator'; slot: number };

/** Outcome of a registration: refused while another instance's registration for the node id has not expired. */
export type RegisterResult = { ok: true } | { ok: false; holder: string; expiresAt: number };

export interface LeaseHolder {
  /** Node id of the holding instance (what Metadata reports), null when free. */
  holder: number | null;
  /** The holding instance, null when free. */
  instance: string | null;
  /** Partitions: the leader epoch; coordinator slots: 0. */
  epoch: number;
}

/** Node id of an instance name `<nodeId>:<random>` (a bare node id is accepted too). */
export function nodeIdOfInstance(instance: string): number {
  const i = instance.indexOf(':');
  return Number(i < 0 ? instance : instance.slice(0, i));
}

export interface ClusterStore {
  /**
   * Registers (or refreshes) this broker instance until `expiresAt` (ms);
   * refused while another instance holds an unexpired registration for the
   * same node id. `now` is the caller's clock, the one `expiresAt` uses.
   */
  registerBroker(info: BrokerInfo, instance: string, expiresAt: number, now: number): Promise<RegisterResult>;
  /** Removes the registration if this instance still holds it. */
  unregisterBroker(nodeId: number, instance: string): Promise<void>;
  /** Brokers whose registration has not expired at `now`. */
  liveBrokers(now: number): Promise<BrokerInfo[]>;

  /** Current lease holder per unit and, for partitions, the leader epoch; in the order given. */
  leaseHolders(units: LeaseUnit[]): Promise<LeaseHolder[]>;
  /**
   * Takes a free lease for `instance`; null if someone holds it. For a
   * coordinator slot, the slot's coordinator epoch is bumped in the same
   * atomic step and returned (group writes are fenced with it); for a
   * partition `epoch` is 0 (the partition's takeover bumps its leader epoch).
   */
  acquireLease(unit: LeaseUnit, instance: string, ttlMs: number): Promise<{ epoch: number } | null>;
  /**
   * Extends leases this instance holds, in as few round trips as the server
   * allows; per unit, in the order given, false if it no longer holds it.
   */
  renewLeases(units: LeaseUnit[], instance: string, ttlMs: number): Promise<boolean[]>;
  /** Gives up a lease this instance holds. */
  releaseLease(unit: LeaseUnit, instance: string): Promise<void>;

  /** Increments and returns the partition's leader epoch. */
  bumpLeaderEpoch(topic: string, partition: number): Promise<number>;
  /** Records that `epoch` started at `startOffset`. */
  recordEpochStart(topic: string, partition: number, epoch: number, startOffset: number): Promise<void>;
  /** Epoch -> start offset, for OffsetForLeaderEpoch. */
  epochHistory(topic: string, partition: number): Promise<Map<number, number>>;
}

/**
 * A stored registration as BrokerInfo. Registrations written before
 * listeners existed have no `endpoints` (a rolling upgrade reads both).
 */
export function registrationInfo(r: BrokerInfo): BrokerInfo {
  const info: BrokerInfo = { nodeId: r.nodeId, host: r.host, port: r.port, rack: r.rack ?? null };
  if (Array.isArray(r.endpoints)) info.endpoints = r.endpoints.map((e) => ({ listener: e.listener, host: e.host, port: e.port }));
  return info;
}
