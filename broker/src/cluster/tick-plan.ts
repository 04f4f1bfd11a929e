// What one leadership tick does, decided without I/O (leadership.ts runs it).
// A tick has two parts that never wait for each other:
//   upkeep  - renew the held units whose local validity is running out, and
//             hand over a few that now belong to another broker;
//   takes   - acquire free units this broker should lead, at most
//             `acquirePerTick` in flight at once (claims included), so a burst
//             of new partitions (or a restart that finds every lease free)
//             is taken over several ticks and never queues the renewals, the
//             registration or the clients' commands behind thousands of
//             partition loads.

/** A unit held here, as the upkeep sees it. */
export interface HeldUnit<T> {
  unit: T;
  /** Local deadline after which this broker stops acting as leader unless renewed. */
  validUntil: number;
  /** The desired leader (rendezvous hashing over live brokers) is this broker. */
  ours: boolean;
}

export interface UpkeepOptions {
  now: number;
  /** Renew once the local validity has at most this many ms left. */
  renewWithinMs: number;
  /** Held units handed over to their new desired leader per tick. */
  handoffPerTick: number;
}

export interface UpkeepPlan<T> {
  renew: T[];
  handoff: T[];
}

/**
 * Every held unit whose validity is running out is renewed, however many
 * there are and whatever else is pending (renewals are never capped: a
 * renewal that waits loses the lease); at most handoffPerTick units that
 * belong elsewhere are released instead.
 */
export function planUpkeep<T>(held: Iterable<HeldUnit<T>>, o: UpkeepOptions): UpkeepPlan<T> {
  const renew: T[] = [];
  const handoff: T[] = [];
  for (const h of held) {
    if (!h.ours && handoff.length < o.handoffPerTick) handoff.push(h.unit);
    else if (h.validUntil - o.now <= o.renewWithinMs) renew.push(h.unit);
  }
  return { renew, handoff };
}

/** A unit not held here, with its lease holder as just read. */
export interface OtherUnit<T> {
  unit: T;
  /** Nobody holds the lease in Redis. */
  free: boolean;
  ours: boolean;
  /** An acquisition (a tick's or a claim's) is already in flight. */
  acquiring: boolean;
}

export interface TakeOptions {
  /** Most acquisitions in flight at once. */
  acquirePerTick: number;
  /** Acquisitions already in flight (earlier ticks' and claims'). */
  inFlight: number;
}

/**
 * The free units this broker should lead, in the order given, as many as
 * fit beside the acquisitions already in flight; the rest wait for a later
 * tick.
 */
export function planTakes<T>(others: Iterable<OtherUnit<T>>, o: TakeOptions): T[] {
  const room = Math.max(0, o.acquirePerTick - o.inFlight);
  const take: T[] = [];
  if (room === 0) return take;
  for (const u of others) {
    if (!u.free || !u.ours || u.acquiring) continue;
    take.push(u.unit);
    if (take.length >= room) break;
  }
  return take;
}
