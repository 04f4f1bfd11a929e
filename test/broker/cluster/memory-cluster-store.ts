// In-memory ClusterStore with the Redis store's semantics: registrations and
// leases belong to an instance; registrations expire by the caller's clock;
// leases never expire unless dropped (tests drop them explicitly).
import { unitKey } from '../../../broker/src/cluster/leadership.js';
import { nodeIdOfInstance, type BrokerInfo, type ClusterStore, type LeaseHolder, type LeaseUnit, type RegisterResult } from '../../../broker/src/storage/cluster-store.js';

export class MemoryClusterStore implements ClusterStore {
  brokers = new Map<number, { info: BrokerInfo; instance: string; expiresAt: number }>();
  /** unit key -> holding instance */
  leases = new Map<string, string>();
  epochs = new Map<string, number>();
  /** unit key -> coordinator epoch (bumped with every coordinator lease taken) */
  slotEpochs = new Map<string, number>();
  /** Every renew/release attempt: `<op> <unit> <instance>`. */
  readonly calls: string[] = [];
  down = false;
  private check(): void { if (this.down) throw new Error('down'); }

  async registerBroker(info: BrokerInfo, instance: string, expiresAt: number, now: number): Promise<RegisterResult> {
    this.check();
    const cur = this.brokers.get(info.nodeId);
    if (cur && cur.instance !== instance && cur.expiresAt > now) return { ok: false, holder: cur.instance, expiresAt: cur.expiresAt };
    this.brokers.set(info.nodeId, { info, instance, expiresAt });
    return { ok: true };
  }
  async unregisterBroker(id: number, instance: string) { if (this.brokers.get(id)?.instance === instance) this.brokers.delete(id); }
  async liveBrokers(now: number) { this.check(); return [...this.brokers.values()].filter((b) => b.expiresAt > now).map((b) => b.info); }
  async leaseHolders(units: LeaseUnit[]): Promise<LeaseHolder[]> {
    this.check();
    return units.map((u) => {
      const instance = this.leases.get(unitKey(u)) ?? null;
      return { holder: instance === null ? null : nodeIdOfInstance(instance), instance, epoch: this.epochs.get(unitKey(u)) ?? 0 };
    });
  }
  async acquireLease(u: LeaseUnit, instance: string) {
    this.check();
    const k = unitKey(u);
    if (this.leases.has(k)) return null;
    this.leases.set(k, instance);
    if (u.kind === 'partition') return { epoch: 0 };
    const epoch = (this.slotEpochs.get(k) ?? 0) + 1;
    this.slotEpochs.set(k, epoch);
    return { epoch };
  }
  async renewLease(u: LeaseUnit, instance: string) {
    this.check();
    this.calls.push(`renew ${unitKey(u)} ${instance}`);
    return this.leases.get(unitKey(u)) === instance;
  }
  async releaseLease(u: LeaseUnit, instance: string) {
    this.calls.push(`release ${unitKey(u)} ${instance}`);
    if (this.leases.get(unitKey(u)) === instance) this.leases.delete(unitKey(u));
  }
  async bumpLeaderEpoch(t: string, p: number) { const k = `p:${t}/${p}`; const e = (this.epochs.get(k) ?? 0) + 1; this.epochs.set(k, e); return e; }
  async recordEpochStart() {}
  async epochHistory() { return new Map<number, number>(); }
}
