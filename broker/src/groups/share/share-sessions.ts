// Share sessions (KIP-932), sans-IO: one per (group, member) on the broker
// that serves its ShareFetch/ShareAcknowledge. ShareSessionEpoch 0 opens a
// session (replacing an earlier one of the member), -1 closes it after its
// acknowledgements are applied, and any other epoch must be the one the
// session expects next (then it moves on by one, wrapping to 1). When the
// cache is full, a session unused for longer than the idle limit (the share
// group session timeout: its member has been removed from the group by then)
// gives way.
import { ErrorCode } from '../../../../common/errors.js';

export const INITIAL_EPOCH = 0;
export const FINAL_EPOCH = -1;

export interface SessionPartition { topicId: string; partition: number }

export interface ShareSession {
  groupId: string;
  memberId: string;
  /** The epoch the next request must carry. */
  epoch: number;
  /** When a request of the session was last served (ms). */
  lastUsed: number;
  /** `<topicId>/<partition>` -> partition, in the order they were added. */
  partitions: Map<string, SessionPartition>;
}

export const partKey = (topicId: string, partition: number): string => `${topicId}/${partition}`;

export class ShareSessions {
  private readonly sessions = new Map<string, ShareSession>();

  constructor(private readonly maxSessions: number, private readonly idleMs = 45_000) {}

  /** Removes (and returns) the sessions unused for longer than the idle limit. */
  evictIdle(now: number): ShareSession[] {
    const out: ShareSession[] = [];
    for (const [k, s] of this.sessions) {
      if (now - s.lastUsed > this.idleMs) {
        this.sessions.delete(k);
        out.push(s);
      }
    }
    return out;
  }

  private key(groupId: string, memberId: string): string {
    return `${groupId}\u0000${memberId}`;
  }

  get(groupId: string, memberId: string): ShareSession | undefined {
    return this.sessions.get(this.key(groupId, memberId));
  }

  /** Epoch 0: a new session (the member's earlier one is replaced and returned as `replaced`). */
  open(groupId: string, memberId: string, now = 0): { errorCode: number; session?: ShareSession; replaced?: ShareSession; evicted: ShareSession[] } {
    const k = this.key(groupId, memberId);
    const replaced = this.sessions.get(k);
    const evicted = !replaced && this.sessions.size >= this.maxSessions ? this.evictIdle(now) : [];
    if (!replaced && this.sessions.size >= this.maxSessions) return { errorCode: ErrorCode.SHARE_SESSION_LIMIT_REACHED, evicted };
    const session: ShareSession = { groupId, memberId, epoch: 1, partitions: new Map(), lastUsed: now };
    this.sessions.set(k, session);
    return replaced ? { errorCode: ErrorCode.NONE, session, replaced, evicted } : { errorCode: ErrorCode.NONE, session, evicted };
  }

  /** A request of an open session: SHARE_SESSION_NOT_FOUND or INVALID_SHARE_SESSION_EPOCH, else the session, its epoch moved on. */
  advance(groupId: string, memberId: string, epoch: number, now = 0): { errorCode: number; session?: ShareSession } {
    const s = this.sessions.get(this.key(groupId, memberId));
    if (!s) return { errorCode: ErrorCode.SHARE_SESSION_NOT_FOUND };
    s.lastUsed = now;
    if (epoch === FINAL_EPOCH) return { errorCode: ErrorCode.NONE, session: s };
    if (epoch !== s.epoch) return { errorCode: ErrorCode.INVALID_SHARE_SESSION_EPOCH };
    s.epoch = s.epoch === 0x7fffffff ? 1 : s.epoch + 1;
    return { errorCode: ErrorCode.NONE, session: s };
  }

  close(groupId: string, memberId: string): ShareSession | undefined {
    const k = this.key(groupId, memberId);
    const s = this.sessions.get(k);
    this.sessions.delete(k);
    return s;
  }
}
