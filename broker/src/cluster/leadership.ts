// Broker membership and leadership leases. Each broker registers with a
// lease; every topic-partition and every group-coordinator slot is a lease
// unit whose desired leader is chosen by rendezvous hashing over live
// brokers. A broker takes free units it should lead, renews the ones it
// holds, and hands over units that now belong elsewhere a few per tick, so
// joins and departures move leadership gradually. A killed broker's units are
// taken over once its leases expire (lease TTL + one tick). Free units are
// taken at most leadership.acquire.per.tick at a time, beside the renewals
// rather than before them (tick-plan.ts), so a burst of new partitions or a
// restart is absorbed over several ticks.
//
// Registrations and leases are held by this process's *instance*
// (`<nodeId>:<random>`): a second process with the same node id fails to
// start (registration.ts), and a process that finds its registration taken
// by a newer instance (it was paused past its lease) gives everything up.
// A coordinator slot lease comes with the slot's coordinator epoch, which
// fences the group writes of a coordinator that lost the slot.
import type { BrokerInfo, ClusterStore, LeaseUnit } from '../storage/cluster-store.js';
import type { Logger } from '../../../common/logger/logger.js';
import { claimNodeId } from './registration.js';
import { rendezvousNode } from '../../../common/rendezvous.js';
import { planTakes, planUpkeep, type HeldUnit, type OtherUnit } from './tick-plan.js';

export interface LeadershipOptions {
  self: BrokerInfo;
  /** This process's identity in registrations and leases: `<nodeId>:<random>`, unique per process. */
  instance: string;
  leaseTtlMs: number;
  tickMs: number;
  coordinatorSlots: number;
  /** Units handed over to their new desired leader per tick. */
  handoffPerTick: number;
  /**
   * Most partition and coordinator-slot acquisitions in flight at once (the
   * ticks' and claims' together): a burst of free units is taken this many
   * at a time, over several ticks (leadership.acquire.per.tick).
   */
  acquirePerTick: number;
}

export interface Held {
  since: number;
  /** Local deadline after which this broker stops acting as leader unless renewed. */
  validUntil: number;
  /** Coordinator slots: the slot's coordinator epoch taken with the lease (0 for partitions). */
  epoch: number;
}

export interface LeadershipEvents {
  /** Called after a partition lease is taken (the partition must reload and bump its epoch). */
  onAcquire(unit: LeaseUnit & { kind: 'partition' }): Promise<void>;
  onRelease(unit: LeaseUnit): void;
  /**
   * This process's registration was taken over by another instance with the
   * same node id (this one was paused or cut off past its lease): every unit
   * has been given up and the leadership loop has stopped.
   */
  onSuperseded?(holder: string): void;
}

/**
 * A broker acts as leader for this share of the lease TTL after a successful
 * renewal; the rest covers clock-rate differences and pauses (another broker
 * can take the lease only after the full TTL).
 */
const LOCAL_VALIDITY = 0.8;
/**
 * A held unit is renewed once its local validity has at most this share of the
 * TTL left: about every 0.3 TTL (every other tick at the defaults, 3000 ms and
 * 500 ms), leaving time for another attempt before the local deadline.
 * Renewing every tick cost 2-3x the Redis commands for no gain.
 */
const RENEW_WHEN_LEFT = 0.5;
/** desiredLeader keeps at most this many answers (units of deleted topics would otherwise stay). */
const MAX_DESIRED_CACHED = 1_000_000;

/** A tick's units and their keys (unitKey), index for index. */
interface TickUnits {
  units: LeaseUnit[];
  keys: string[];
}

export const unitKey = (u: LeaseUnit): string => (u.kind === 'partition' ? `p:${u.topic}/${u.partition}` : `c:${u.slot}`);

/** Compact ranges: [0, 1, 2, 5] -> "0-2,5". */
export function ranges(ns: number[]): string {
  const s = [...new Set(ns)].sort((a, b) => a - b);
  const out: string[] = [];
  for (let i = 0; i < s.length; i++) {
    let j = i;
    while (j + 1 < s.length && s[j + 1] === s[j]! + 1) j++;
    out.push(j === i ? String(s[i]) : `${s[i]}-${s[j]}`);
    i = j;
  }
  return out.join(',');
}

/** Unit keys in short form: partitions as `topic[0-3,7]`, coordinator slots as ranges. */
export function describeUnits(keys: string[]): { partitions: string; coordinatorSlots: string } {
  const byTopic = new Map<string, number[]>();
  const slots: number[] = [];
  for (const k of keys) {
    const u = parseKey(k);
    if (u.kind === 'coordinator') slots.push(u.slot);
    else byTopic.set(u.topic, [...(byTopic.get(u.topic) ?? []), u.partition]);
  }
  const partitions = [...byTopic.keys()].sort().map((t) => `${t}[${ranges(byTopic.get(t)!)}]`).join(' ');
  return { partitions, coordinatorSlots: ranges(slots) };
}

export class Leadership {
  private live: BrokerInfo[] = [];
  private readonly solo: BrokerInfo[];
  private readonly held = new Map<string, Held>();
  private readonly observed = new Map<string, number>();
  private readonly observedEpochs = new Map<string, number>();
  /** desiredLeader's answers for the live brokers `desiredFor` (their node ids, joined). */
  private readonly desired = new Map<string, number | null>();
  private desiredFor = '';
  private desiredIds: number[] = [];
  /** The live-broker list desiredFor was computed from (a tick replaces the list). */
  private desiredBrokers: BrokerInfo[] | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** The upkeep in flight (resolves to the units and their keys, or null if it failed). */
  private upkeeping: Promise<TickUnits | null> | null = null;
  /** The takes being planned (holders read), at most one at a time; resolves to its acquisitions' end. */
  private taking: Promise<Promise<unknown>> | null = null;
  private stopped = false;
  /** Leadership changes not yet logged: one summary line per tick (or per burst of claims), per-unit lines at debug. */
  private changes: { acquired: string[]; released: string[] } = { acquired: [], released: [] };
  private flushTimer: NodeJS.Timeout | null = null;
  /**
   * Acquisitions in flight (the lease is taken in Redis before onAcquire has
   * finished and the unit is held here): a tick that runs meanwhile must not
   * mistake the lease for a failed takeover and release it, nor start a second
   * acquisition (whose onAcquire would bump the leader epoch again and fence the
   * partition the first one loaded).
   */
  private readonly acquiring = new Map<string, Promise<boolean>>();

  constructor(
    private readonly store: ClusterStore,
    private readonly opts: LeadershipOptions,
    private readonly units: () => Promise<LeaseUnit[]>,
    private readonly events: LeadershipEvents,
    private readonly logger: Logger,
  ) {
    this.solo = [opts.self];
  }

  get nodeId(): number { return this.opts.self.nodeId; }
  get instance(): string { return this.opts.instance; }

  /** Claims the node id (fails with NodeIdInUseError if another live process holds it), then starts ticking. */
  async start(): Promise<void> {
    await claimNodeId(this.store, {
      self: this.opts.self, instance: this.opts.instance, leaseTtlMs: this.opts.leaseTtlMs, pollMs: this.opts.tickMs, logger: this.logger,
    });
    await this.tick();
    this.timer = setInterval(() => void this.tick(), this.opts.tickMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.settled();
    // Graceful shutdown hands everything over at once and leaves the cluster.
    const releases = [...this.held.keys()].map((k) => this.releaseKey(k));
    await Promise.allSettled(releases);
    this.flushChanges();
    await this.store.unregisterBroker(this.nodeId, this.instance).catch(() => undefined);
  }

  /** Resolves once no tick and no acquisition is in flight. */
  private async settled(): Promise<void> {
    while (this.upkeeping || this.taking || this.acquiring.size > 0) {
      await Promise.allSettled([this.upkeeping, this.taking, ...this.acquiring.values()]);
    }
  }

  liveBrokers(): BrokerInfo[] {
    return this.live.length ? this.live : this.solo;
  }

  /** This broker may act as leader of the unit right now. */
  leads(u: LeaseUnit): boolean {
    const h = this.held.get(unitKey(u));
    return h !== undefined && Date.now() < h.validUntil;
  }

  /** Coordinator epoch of a slot this broker coordinates right now, else null. */
  coordinatorEpoch(slot: number): number | null {
    const u: LeaseUnit = { kind: 'coordinator', slot };
    return this.leads(u) ? this.held.get(unitKey(u))!.epoch : null;
  }

  /** The leader as last observed (this broker if held), or null. */
  leaderOf(u: LeaseUnit): number | null {
    if (this.leads(u)) return this.nodeId;
    const o = this.observed.get(unitKey(u));
    return o ?? null;
  }

  /** Leader epoch of a partition led elsewhere, as last observed (0 if unknown). */
  observedEpoch(u: LeaseUnit): number {
    return this.observedEpochs.get(unitKey(u)) ?? 0;
  }

  desiredLeader(u: LeaseUnit): number | null {
    return this.desiredOf(u, unitKey(u));
  }

  /**
   * desiredLeader for a unit whose key the caller has. Rendezvous hashing
   * costs a SHA-1 per unit and live broker; a tick asks for every unit, so
   * answers are kept until the set of live brokers changes (their node ids
   * are joined once per change, not per unit).
   */
  private desiredOf(u: LeaseUnit, key: string): number | null {
    const brokers = this.liveBrokers();
    if (brokers !== this.desiredBrokers || this.desired.size > MAX_DESIRED_CACHED) {
      const ids = brokers.map((b) => b.nodeId);
      const sig = ids.join(',');
      if (sig !== this.desiredFor || this.desired.size > MAX_DESIRED_CACHED) this.desired.clear();
      this.desiredFor = sig;
      this.desiredIds = ids;
      this.desiredBrokers = brokers;
    }
    let d = this.desired.get(key);
    if (d === undefined) {
      d = rendezvousNode(key, this.desiredIds);
      this.desired.set(key, d);
    }
    return d;
  }

  coordinatorSlot(key: string): number {
    let h = 0;
    for (let i = 0; i < key.length; i++) h = (Math.imul(h, 31) + key.charCodeAt(i)) | 0;
    return Math.abs(h) % this.opts.coordinatorSlots;
  }

  /**
   * Claims a free unit right away if this broker is its desired leader (new
   * topics need not wait for the next tick). Resolves true if now held.
   */
  async claim(u: LeaseUnit): Promise<boolean> {
    if (this.leads(u)) return true;
    if (this.desiredLeader(u) !== this.nodeId) return false;
    // As many acquisitions in flight as a tick may run: the unit is taken by a later tick instead.
    if (this.acquiring.size >= this.opts.acquirePerTick && !this.acquiring.has(unitKey(u))) return false;
    return this.tryAcquire(u);
  }

  private tryAcquire(u: LeaseUnit): Promise<boolean> {
    const key = unitKey(u);
    const inFlight = this.acquiring.get(key);
    if (inFlight) return inFlight;
    const p = this.acquire(u, key).finally(() => this.acquiring.delete(key));
    this.acquiring.set(key, p);
    return p;
  }

  private async acquire(u: LeaseUnit, key: string): Promise<boolean> {
    const started = Date.now();
    const taken = await this.store.acquireLease(u, this.instance, this.opts.leaseTtlMs);
    if (!taken) return false;
    try {
      if (u.kind === 'partition') await this.events.onAcquire(u);
    } catch (e) {
      await this.store.releaseLease(u, this.instance).catch(() => undefined);
      throw e;
    }
    this.held.set(key, { since: started, validUntil: started + this.opts.leaseTtlMs * LOCAL_VALIDITY, epoch: taken.epoch });
    this.observed.set(key, this.nodeId);
    this.logger.debug('leadership acquired', { unit: key });
    this.noteChange('acquired', key);
    return true;
  }

  private async releaseKey(key: string): Promise<void> {
    const u = parseKey(key);
    this.held.delete(key);
    this.events.onRelease(u);
    await this.store.releaseLease(u, this.instance);
    this.logger.debug('leadership released', { unit: key });
    this.noteChange('released', key);
  }

  /** Renews held units in one batch; a unit whose lease is no longer ours is released here. */
  private async renew(units: LeaseUnit[]): Promise<void> {
    if (units.length === 0) return;
    const renewAt = Date.now();
    const ok = await this.store.renewLeases(units, this.instance, this.opts.leaseTtlMs);
    units.forEach((u, i) => {
      const key = unitKey(u);
      const h = this.held.get(key);
      if (!h) return; // released meanwhile (a handoff, stop)
      if (ok[i]) h.validUntil = renewAt + this.opts.leaseTtlMs * LOCAL_VALIDITY;
      else {
        this.held.delete(key);
        this.events.onRelease(u);
        this.noteChange('released', key);
      }
    });
  }

  private noteChange(kind: 'acquired' | 'released', key: string): void {
    this.changes[kind].push(key);
    // Outside a tick (a claim for a new topic, shutdown): one line for the burst,
    // shortly after; while a backlog is being acquired, at most one per tick.
    if (!this.upkeeping && !this.taking && !this.flushTimer) {
      this.flushTimer = setTimeout(() => this.flushChanges(), this.acquiring.size > 1 ? this.opts.tickMs : 20);
      this.flushTimer.unref();
    }
  }

  /** One info line for the leadership changes since the last one: counts and the units in short form. */
  private flushChanges(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const { acquired, released } = this.changes;
    if (acquired.length === 0 && released.length === 0) return;
    this.changes = { acquired: [], released: [] };
    const fields: Record<string, unknown> = { acquired: acquired.length, released: released.length, held: this.held.size };
    for (const [kind, keys] of [['acquired', acquired], ['released', released]] as const) {
      if (keys.length === 0) continue;
      const d = describeUnits(keys);
      if (d.partitions) fields[`${kind}Partitions`] = d.partitions;
      if (d.coordinatorSlots) fields[`${kind}CoordinatorSlots`] = d.coordinatorSlots;
    }
    this.logger.info('leadership changed', fields);
  }

  /** Another instance registered this node id: give up every unit and stop (see LeadershipEvents.onSuperseded). */
  private async superseded(holder: string): Promise<void> {
    this.logger.error('node id taken over by another instance; giving up leadership', { nodeId: this.nodeId, instance: this.instance, holder });
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.taking;
    await Promise.allSettled([...this.acquiring.values()]);
    await Promise.allSettled([...this.held.keys()].map((k) => this.releaseKey(k)));
    this.flushChanges();
    this.events.onSuperseded?.(holder);
  }

  /**
   * One tick: the upkeep (registration, live brokers, renewals, handoffs),
   * then the takes (holders of the units not held here, and acquisitions of
   * free ones this broker should lead, at most acquirePerTick in flight).
   * The timer starts a tick every tickMs; its upkeep runs even while an
   * earlier tick's takes are still loading partitions, so renewals never wait
   * behind acquisitions. Resolves when both parts of this tick are done.
   */
  async tick(): Promise<void> {
    if (this.stopped) return;
    if (!this.upkeeping) this.upkeeping = this.upkeep().finally(() => { this.upkeeping = null; });
    const units = await this.upkeeping;
    if (!units || this.stopped) return;
    if (!this.taking) this.taking = this.takes(units).finally(() => { this.taking = null; });
    const started = await this.taking;
    await started;
  }

  /** Registration, live brokers, renewals and handoffs; resolves to the units, or null if the tick failed. */
  private async upkeep(): Promise<TickUnits | null> {
    const now = Date.now();
    try {
      const reg = await this.store.registerBroker(this.opts.self, this.instance, now + this.opts.leaseTtlMs, now);
      if (!reg.ok) { await this.superseded(reg.holder); return null; }
      this.live = await this.store.liveBrokers(now);
      if (!this.live.some((b) => b.nodeId === this.nodeId)) this.live.push(this.opts.self);
      const units = await this.units();
      const keys = units.map(unitKey); // once per unit and tick: the tick's Map lookups all use it
      const plan = planUpkeep(this.heldUnits(units, keys), {
        now: Date.now(), renewWithinMs: this.opts.leaseTtlMs * RENEW_WHEN_LEFT, handoffPerTick: this.opts.handoffPerTick,
      });
      // Units held here are renewed, not read: the renewal says whether the lease is still ours.
      await Promise.all([this.renew(plan.renew), ...plan.handoff.map((u) => this.releaseKey(unitKey(u)))]);
      return { units, keys };
    } catch (e) {
      this.logger.warn('leadership tick failed', { err: e instanceof Error ? e.message : String(e) });
      return null;
    } finally {
      this.flushChanges();
    }
  }

  private *heldUnits(units: LeaseUnit[], keys: string[]): Generator<HeldUnit<LeaseUnit>> {
    for (let i = 0; i < units.length; i++) {
      const h = this.held.get(keys[i]!);
      if (h) yield { unit: units[i]!, validUntil: h.validUntil, ours: this.desiredOf(units[i]!, keys[i]!) === this.nodeId };
    }
  }

  /**
   * Reads the holders and epochs of the units not held here (their leaders
   * for Metadata), and acquires the free ones this broker should lead, as
   * many as fit beside the acquisitions in flight; the rest wait for a later
   * tick. Resolves once they are started, to a promise of their end.
   */
  private async takes({ units, keys: allKeys }: TickUnits): Promise<Promise<unknown>> {
    try {
      const others: LeaseUnit[] = [];
      const keys: string[] = [];
      for (let i = 0; i < units.length; i++) {
        if (this.held.has(allKeys[i]!)) continue;
        others.push(units[i]!);
        keys.push(allKeys[i]!);
      }
      if (others.length === 0) return Promise.resolve();
      const holders = await this.store.leaseHolders(others);
      const work: Promise<unknown>[] = [];
      const candidates: Array<OtherUnit<LeaseUnit>> = [];
      others.forEach((u, i) => {
        const key = keys[i]!;
        const h = holders[i];
        const holder = h?.holder ?? null;
        this.observedEpochs.set(key, h?.epoch ?? 0);
        if (h?.instance === this.instance) {
          // Held in Redis but not here, and no acquisition in flight (a failed takeover): give it back cleanly.
          if (!this.acquiring.has(key) && !this.held.has(key)) work.push(this.store.releaseLease(u, this.instance));
          return;
        }
        if (holder === null) {
          this.observed.delete(key);
          if (this.desiredOf(u, key) === this.nodeId) candidates.push({ unit: u, free: true, ours: true, acquiring: this.acquiring.has(key) });
        } else if (holder === this.nodeId) {
          // A dead predecessor with this node id still holds it until its lease expires: nobody leads it now.
          this.observed.delete(key);
        } else this.observed.set(key, holder);
      });
      for (const u of planTakes(candidates, { acquirePerTick: this.opts.acquirePerTick, inFlight: this.acquiring.size })) {
        work.push(this.tryAcquire(u).catch((e) => this.logger.warn('acquire failed', { unit: unitKey(u), err: String(e) })));
      }
      // One line for this tick's acquisitions once they are done.
      return Promise.all(work).finally(() => this.flushChanges());
    } catch (e) {
      this.logger.warn('leadership tick failed', { err: e instanceof Error ? e.message : String(e) });
      return Promise.resolve();
    } finally {
      this.flushChanges();
    }
  }
}

function parseKey(key: string): LeaseUnit {
  if (key.startsWith('c:')) return { kind: 'coordinator', slot: Number(key.slice(2)) };
  const body = key.slice(2);
  const i = body.lastIndexOf('/');
  return { kind: 'partition', topic: body.slice(0, i), partition: Number(body.slice(i + 1)) };
}
