// The in-flight records of one share-partition (KIP-932), sans-IO: which
// records of one topic-partition a share group has handed out, to whom, how
// often, and which it is done with. The window runs from the share-partition
// start offset (SPSO: every record below it is done) to the end offset (SPEO:
// one past the highest offset ever acquired). Within it each record is
//   AVAILABLE     to be acquired (again),
//   ACQUIRED      handed to one member under a lock until a deadline,
//   ACKNOWLEDGED  accepted: processed, never delivered again,
//   ARCHIVED      rejected, a gap in the log, or past the delivery-count limit.
// Kafka's facts kept here: an acquisition increments the delivery count; a
// record released (RELEASE, lock expiry, member leaving) whose count reached
// group.share.delivery.count.limit is archived instead of made available; a
// REJECT or a GAP archives; the SPSO moves over ACKNOWLEDGED and ARCHIVED
// records at the front; no more than group.share.partition.max.record.locks
// records past the SPSO are in flight. Time is given by the caller.
import { ErrorCode } from '../../../../common/errors.js';

/** Kafka's RecordState ids (they are what is stored, as in Kafka's share-group state). */
export const RecordState = { AVAILABLE: 0, ACQUIRED: 1, ACKNOWLEDGED: 2, ARCHIVED: 4 } as const;
export type RecordStateId = (typeof RecordState)[keyof typeof RecordState];

/** AcknowledgeTypes of ShareFetch/ShareAcknowledge: 0 gap, 1 accept, 2 release, 3 reject, 4 renew (v2+). */
export const AckType = { GAP: 0, ACCEPT: 1, RELEASE: 2, REJECT: 3, RENEW: 4 } as const;

export interface ShareLimits {
  /** group.share.record.lock.duration.ms (share.record.lock.duration.ms of the group). */
  lockMs: number;
  /** group.share.delivery.count.limit */
  deliveryLimit: number;
  /** group.share.partition.max.record.locks: records in flight past the SPSO. */
  maxLocks: number;
}

export interface InFlight {
  state: RecordStateId;
  deliveryCount: number;
  /** Lock deadline (ms since the epoch) of an ACQUIRED record; 0 otherwise. */
  lockUntil: number;
  /** The member holding an ACQUIRED record; '' otherwise. */
  memberId: string;
}

export interface AcquiredRange { firstOffset: number; lastOffset: number; deliveryCount: number }
export interface AckBatch { firstOffset: number; lastOffset: number; acknowledgeTypes: number[] }

/** The stored form: SPSO, SPEO and runs [first, last, state, deliveryCount, lockUntil, memberId] of equal records. */
export interface StoredSharePartition {
  startOffset: number;
  endOffset: number;
  runs: Array<[number, number, number, number, number, string]>;
}

export class SharePartition {
  private readonly records = new Map<number, InFlight>();

  constructor(public startOffset: number, public endOffset: number = startOffset) {}

  static fromStored(s: StoredSharePartition): SharePartition {
    const p = new SharePartition(s.startOffset, s.endOffset);
    for (const [first, last, state, deliveryCount, lockUntil, memberId] of s.runs) {
      for (let o = first; o <= last; o++) p.records.set(o, { state: state as RecordStateId, deliveryCount, lockUntil, memberId });
    }
    return p;
  }

  toStored(): StoredSharePartition {
    const runs: StoredSharePartition['runs'] = [];
    for (let o = this.startOffset; o < this.endOffset; o++) {
      const r = this.records.get(o);
      if (!r) continue;
      const last = runs.at(-1);
      if (last && last[1] === o - 1 && last[2] === r.state && last[3] === r.deliveryCount && last[4] === r.lockUntil && last[5] === r.memberId) last[1] = o;
      else runs.push([o, o, r.state, r.deliveryCount, r.lockUntil, r.memberId]);
    }
    return { startOffset: this.startOffset, endOffset: this.endOffset, runs };
  }

  record(offset: number): InFlight | undefined {
    return this.records.get(offset);
  }

  /** Records in flight (between SPSO and SPEO, not yet done). */
  get inFlightCount(): number {
    let n = 0;
    for (const r of this.records.values()) if (r.state === RecordState.AVAILABLE || r.state === RecordState.ACQUIRED) n++;
    return n;
  }

  /** The earliest lock deadline, or null when nothing is acquired. */
  nextLockDeadline(): number | null {
    let next: number | null = null;
    for (const r of this.records.values()) if (r.state === RecordState.ACQUIRED && (next === null || r.lockUntil < next)) next = r.lockUntil;
    return next;
  }

  /** Where a fetch reads from: the first AVAILABLE record in the window, else the SPEO. */
  nextFetchOffset(): number {
    for (let o = this.startOffset; o < this.endOffset; o++) if (this.records.get(o)?.state === RecordState.AVAILABLE) return o;
    return this.endOffset;
  }

  /** A record leaves its member: available again, or archived once its deliveries reached the limit. */
  private release(r: InFlight, limits: ShareLimits): void {
    r.state = r.deliveryCount >= limits.deliveryLimit ? RecordState.ARCHIVED : RecordState.AVAILABLE;
    r.lockUntil = 0;
    r.memberId = '';
  }

  /** Releases the records whose acquisition lock ran out; true when any did. */
  expireLocks(now: number, limits: ShareLimits): boolean {
    let changed = false;
    for (const r of this.records.values()) {
      if (r.state === RecordState.ACQUIRED && r.lockUntil <= now) {
        this.release(r, limits);
        changed = true;
      }
    }
    if (changed) this.advance();
    return changed;
  }

  /** Releases every record `memberId` holds (its share session closed or it left); true when any was. */
  releaseMember(memberId: string, limits: ShareLimits): boolean {
    let changed = false;
    for (const r of this.records.values()) {
      if (r.state === RecordState.ACQUIRED && r.memberId === memberId) {
        this.release(r, limits);
        changed = true;
      }
    }
    if (changed) this.advance();
    return changed;
  }

  /** The log start moved past the SPSO (retention, DeleteRecords): records below it are gone. */
  moveStartTo(logStart: number): boolean {
    if (logStart <= this.startOffset) return false;
    for (const o of [...this.records.keys()]) if (o < logStart) this.records.delete(o);
    this.startOffset = logStart;
    this.endOffset = Math.max(this.endOffset, logStart);
    return true;
  }

  /**
   * Acquires for `memberId` up to `maxRecords` records among the offsets
   * [from, to] the log returned: AVAILABLE ones in the window, and new ones past
   * the SPEO while fewer than maxLocks records lie past the SPSO. Returns the
   * acquired ranges (consecutive offsets with one delivery count).
   */
  acquire(memberId: string, from: number, to: number, maxRecords: number, now: number, limits: ShareLimits, archive?: (offset: number) => boolean): AcquiredRange[] {
    const out: AcquiredRange[] = [];
    let taken = 0;
    let archived = false;
    const take = (o: number, r: InFlight): void => {
      r.state = RecordState.ACQUIRED;
      r.deliveryCount++;
      r.lockUntil = now + limits.lockMs;
      r.memberId = memberId;
      taken++;
      const last = out.at(-1);
      if (last && last.lastOffset === o - 1 && last.deliveryCount === r.deliveryCount) last.lastOffset = o;
      else out.push({ firstOffset: o, lastOffset: o, deliveryCount: r.deliveryCount });
    };
    for (let o = Math.max(from, this.startOffset); o <= to && taken < maxRecords; o++) {
      // read_committed: a record of an aborted transaction is archived, never delivered (Kafka's share-partition does the same)
      const skip = archive?.(o) ?? false;
      if (o < this.endOffset) {
        const r = this.records.get(o);
        if (r?.state === RecordState.AVAILABLE) {
          if (skip) {
            r.state = RecordState.ARCHIVED;
            archived = true;
          } else take(o, r);
        }
        continue;
      }
      // A new record: it widens the window, which is bounded.
      if (o - this.startOffset >= limits.maxLocks) break;
      // Offsets skipped between the SPEO and o (none normally: `from` is the fetch offset) are left to a later fetch.
      if (o > this.endOffset) break;
      const r: InFlight = { state: skip ? RecordState.ARCHIVED : RecordState.AVAILABLE, deliveryCount: 0, lockUntil: 0, memberId: '' };
      this.records.set(o, r);
      this.endOffset = o + 1;
      if (skip) archived = true;
      else take(o, r);
    }
    if (archived) this.advance();
    return out;
  }

  /**
   * Applies a member's acknowledgements: every offset named must be ACQUIRED
   * by that member, else nothing is applied and the answer is
   * INVALID_RECORD_STATE (Kafka answers per partition). One type covers a
   * whole batch; otherwise one type per offset.
   */
  acknowledge(memberId: string, batches: AckBatch[], now: number, limits: ShareLimits): { errorCode: number; errorMessage: string | null } {
    const ops: Array<[InFlight, number]> = [];
    for (const b of batches) {
      if (b.lastOffset < b.firstOffset || b.acknowledgeTypes.length === 0) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Invalid acknowledgement batch' };
      const n = b.lastOffset - b.firstOffset + 1;
      if (b.acknowledgeTypes.length !== 1 && b.acknowledgeTypes.length !== n) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'AcknowledgeTypes do not match the batch' };
      for (let o = b.firstOffset; o <= b.lastOffset; o++) {
        const type = b.acknowledgeTypes.length === 1 ? b.acknowledgeTypes[0]! : b.acknowledgeTypes[o - b.firstOffset]!;
        if (type < AckType.GAP || type > AckType.RENEW) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Invalid acknowledge type ${type}` };
        const r = this.records.get(o);
        if (!r || r.state !== RecordState.ACQUIRED || r.memberId !== memberId) {
          return { errorCode: ErrorCode.INVALID_RECORD_STATE, errorMessage: `Record at offset ${o} is not acquired by the member` };
        }
        ops.push([r, type]);
      }
    }
    for (const [r, type] of ops) {
      if (type === AckType.ACCEPT) { r.state = RecordState.ACKNOWLEDGED; r.lockUntil = 0; r.memberId = ''; }
      else if (type === AckType.RELEASE) this.release(r, limits);
      else if (type === AckType.RENEW) r.lockUntil = now + limits.lockMs;
      else { r.state = RecordState.ARCHIVED; r.lockUntil = 0; r.memberId = ''; }
    }
    this.advance();
    return { errorCode: ErrorCode.NONE, errorMessage: null };
  }

  /** Moves the SPSO over the ACKNOWLEDGED and ARCHIVED records at the front of the window. */
  private advance(): void {
    while (this.startOffset < this.endOffset) {
      const r = this.records.get(this.startOffset);
      if (r && r.state !== RecordState.ACKNOWLEDGED && r.state !== RecordState.ARCHIVED) break;
      this.records.delete(this.startOffset);
      this.startOffset++;
    }
  }
}
