// In-memory ClusterStore with the Redis store's semantics: registrations and
// leases belong to an instance; registrations expire by the caller's clock;
// leases taken with acquireLease expire after their TTL (by `now`, the wall
// clock unless a test passes its own; Redis' PX), unless renewed; leases a test sets in `leases` directly never
// expire (tests drop them explicitly).
import { unitKey } from '../../../broker/src/cluster/leadership.js';
import { nodeIdOfInstance, type BrokerInfo, type ClusterStore, type LeaseHolder, type LeaseUnit, type RegisterResult } from '../../../broker/src/storage/cluster-store.js';

export class MemoryClusterStore implements ClusterStore {
  brokers = new Map<number, { info: BrokerInfo; instance: string; expiresAt: number }>();
  /** unit key -> holding instance */
  leases = new Map<string, string>();
  /** unit key -> time (by `now`) at which an acquired lease lapses */
  private readonly leaseExpiry = new Map<string, number>();
  epochs = new Map<string, number>();
  /** `<topic>/<partition>` -> leader epoch -> start offset */
  private readonly history = new Map<string, Map<number, number>>();
  /** unit key -> coordinator epoch (bumped with every coordinator lease taken) */
  slotEpochs = new Map<string, number>();
  /** Every renew/release attempt: `<op> <unit> <instance>`. */
  readonly calls: string[] = [];
  down = false;
  constructor(private readonly now: () => number = Date.now) {}
  private check(): void { if (this.down) throw new Error('down'); }
  /** The holding instance, dropping a lease whose TTL has passed. */
  private holderOf(k: string): string | null {
    const at = this.leaseExpiry.get(k);
    if (at !== undefined && at <= this.now()) { this.leases.delete(k); this.leaseExpiry.delete(k); }
    return this.leases.get(k) ?? null;
  }

  async registerBroker(info: BrokerInfo, instance: string, expiresAt: number, now: number): Promise<RegisterResult> {
    this.check();
    const cur = this.brokers.get(info.nodeId);
    if (cur && cur.instance !== instance && cur.expiresAt > now) return { ok: false, holder: cur.instance, expiresAt: cur.expiresAt };
    this.brokers.set(info.nodeId, { info, instance, expiresAt });
    return { ok: true };
  }
  async unregisterBroker(id: number, instance: string) { if (this.brokers.get(id)?.instance === instance) this.brokers.delete(id); }
  async liveBrokers(now: number) { this.check(); return [...this.brokers.values()].filter((b) => b.expiresAt > now).map((b) => b.info).sort((a, b) => a.nodeId - b.nodeId); }
  /** Units whose holder leaseHolders has read, summed over calls. */
  holderReads = 0;
  async leaseHolders(units: LeaseUnit[]): Promise<LeaseHolder[]> {
    this.check();
    this.holderReads += units.length;
    return units.map((u) => {
      const instance = this.holderOf(unitKey(u));
      return { holder: instance === null ? null : nodeIdOfInstance(instance), instance, epoch: this.epochs.get(unitKey(u)) ?? 0 };
    });
  }
  async acquireLease(u: LeaseUnit, instance: string, ttlMs: number) {
    this.check();
    const k = unitKey(u);
    if (this.holderOf(k) !== null) return null;
    this.leases.set(k, instance);
    this.leaseExpiry.set(k, this.now() + ttlMs);
    if (u.kind === 'partition') return { epoch: 0 };
    const epoch = (this.slotEpochs.get(k) ?? 0) + 1;
    this.slotEpochs.set(k, epoch);
    return { epoch };
  }
  /** Round trips of renewLeases (one per call, as on a single Redis node). */
  renewCalls = 0;
  async renewLeases(units: LeaseUnit[], instance: string, ttlMs: number) {
    this.check();
    this.renewCalls++;
    return units.map((u) => {
      const k = unitKey(u);
      this.calls.push(`renew ${k} ${instance}`);
      if (this.holderOf(k) !== instance) return false;
      if (this.leaseExpiry.has(k)) this.leaseExpiry.set(k, this.now() + ttlMs);
      return true;
    });
  }
  async releaseLease(u: LeaseUnit, instance: string) {
    this.calls.push(`release ${unitKey(u)} ${instance}`);
    if (this.holderOf(unitKey(u)) === instance) { this.leases.delete(unitKey(u)); this.leaseExpiry.delete(unitKey(u)); }
  }
  async bumpLeaderEpoch(t: string, p: number) { const k = `p:${t}/${p}`; const e = (this.epochs.get(k) ?? 0) + 1; this.epochs.set(k, e); return e; }
  async recordEpochStart(t: string, p: number, epoch: number, startOffset: number) {
    const k = `${t}/${p}`;
    let h = this.history.get(k);
    if (!h) this.history.set(k, (h = new Map()));
    h.set(epoch, startOffset);
  }
  async epochHistory(t: string, p: number) { return new Map(this.history.get(`${t}/${p}`) ?? []); }
}
