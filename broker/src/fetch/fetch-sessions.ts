// Incremental fetch sessions (KIP-227), sans-IO. A consumer that fetches many
// partitions opens a session with a full fetch (epoch 0) and then sends only
// the partitions whose fetch offset changed; the broker answers only the
// partitions with something new (records, a moved high watermark or log start
// offset, an error). The cache is per broker and in memory, as in Kafka.
//
// Request metadata (SessionId, SessionEpoch):
//   (0, -1)   sessionless full fetch
//   (0, 0)    full fetch that asks for a new session
//   (id, -1)  close session id, sessionless full fetch
//   (id, 0)   close session id, full fetch with a new session
//   (id, n>0) incremental fetch in session id at epoch n
import { ErrorCode } from '../../../common/errors.js';

export const INITIAL_EPOCH = 0;
export const FINAL_EPOCH = -1;
/** Kafka's MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS: a session younger than this is only evicted when stale. */
export const EVICTION_MS = 120_000;

/** One partition as a fetch names it: the request's fields plus the key that identifies it. */
export interface FetchTarget {
  /** `<topic or topic id>\0<partition>` */
  key: string;
  topic: string;
  topicId: string;
  partition: number;
  fetchOffset: number;
  partitionMaxBytes: number;
  currentLeaderEpoch: number;
}

/** A session's partition: the last request parameters and the marks last sent for it. */
export interface CachedPartition extends FetchTarget {
  highWatermark: number;
  logStartOffset: number;
}

export interface FetchSession {
  readonly id: number;
  readonly usesTopicIds: boolean;
  readonly creationMs: number;
  lastUsedMs: number;
  /** The epoch the next incremental request must carry. */
  epoch: number;
  /** Insertion-ordered: the order partitions are read in (those that returned records move to the end). */
  readonly partitions: Map<string, CachedPartition>;
}

/** What a fetch request asks for, decided before anything is read. */
export type FetchContext =
  | { kind: 'error'; errorCode: number }
  | { kind: 'sessionless' }
  | { kind: 'full' }
  | { kind: 'incremental'; session: FetchSession; expectedEpoch: number };

/** Kafka's FetchMetadata.nextEpoch. */
export function nextEpoch(epoch: number): number {
  if (epoch < 0) return FINAL_EPOCH;
  return epoch === 0x7fffffff ? 1 : epoch + 1;
}

/** The marks a response carries for one partition, as the session compares them. */
export interface PartitionOutcome {
  errorCode: number;
  highWatermark: number;
  logStartOffset: number;
  hasRecords: boolean;
}

export class FetchSessionCache {
  private readonly sessions = new Map<number, FetchSession>();

  /**
   * @param maxEntries max.incremental.fetch.session.cache.slots (0 disables sessions)
   * @param random session ids: a random positive int32, never 0, never one in use
   */
  constructor(
    private readonly maxEntries: number,
    private readonly evictionMs = EVICTION_MS,
    private readonly random: () => number = () => 1 + Math.floor(Math.random() * 0x7ffffffe),
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  get(id: number): FetchSession | undefined {
    return this.sessions.get(id);
  }

  /**
   * Decides the request's context and applies an incremental request's
   * changes to its session (Kafka's FetchManager.newContext).
   */
  newContext(version: number, sessionId: number, epoch: number, targets: FetchTarget[], forgotten: string[], now: number): FetchContext {
    if (version < 7) return { kind: 'sessionless' };
    if (epoch === INITIAL_EPOCH || epoch === FINAL_EPOCH) {
      // Any session named in a full fetch is closed.
      if (sessionId !== 0) this.sessions.delete(sessionId);
      return epoch === FINAL_EPOCH ? { kind: 'sessionless' } : { kind: 'full' };
    }
    const session = this.sessions.get(sessionId);
    if (!session) return { kind: 'error', errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND };
    if (session.epoch !== epoch) return { kind: 'error', errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH };
    if (session.usesTopicIds !== version >= 13) return { kind: 'error', errorCode: ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR };
    for (const t of targets) {
      const cached = session.partitions.get(t.key);
      if (cached) Object.assign(cached, { fetchOffset: t.fetchOffset, partitionMaxBytes: t.partitionMaxBytes, currentLeaderEpoch: t.currentLeaderEpoch });
      else session.partitions.set(t.key, { ...t, highWatermark: -1, logStartOffset: -1 });
    }
    for (const key of forgotten) session.partitions.delete(key);
    if (session.partitions.size === 0) {
      // Nothing left to fetch: the session ends and the request is answered without one.
      this.sessions.delete(session.id);
      return { kind: 'sessionless' };
    }
    session.lastUsedMs = now;
    session.epoch = nextEpoch(session.epoch);
    return { kind: 'incremental', session, expectedEpoch: session.epoch };
  }

  /**
   * After a full fetch: opens a session holding its partitions and the marks
   * sent for them. Returns its id, or 0 when the cache is full and no session
   * may be evicted (the client then keeps sending full fetches).
   */
  create(version: number, partitions: Array<{ target: FetchTarget; outcome: PartitionOutcome }>, now: number): number {
    if (this.maxEntries <= 0) return 0;
    if (this.sessions.size >= this.maxEntries && !this.evictFor(partitions.length, now)) return 0;
    let id = this.random();
    while (this.sessions.has(id) || id <= 0) id = this.random();
    const map = new Map<string, CachedPartition>();
    for (const { target, outcome } of partitions) {
      map.set(target.key, { ...target, highWatermark: outcome.errorCode === ErrorCode.NONE ? outcome.highWatermark : -1, logStartOffset: outcome.logStartOffset });
    }
    this.sessions.set(id, { id, usesTopicIds: version >= 13, creationMs: now, lastUsedMs: now, epoch: nextEpoch(INITIAL_EPOCH), partitions: map });
    return id;
  }

  /**
   * Kafka's eviction: the least recently used session if it is stale (unused
   * for evictionMs); otherwise the smallest session older than evictionMs, if
   * the new one has more partitions. Every session here is a consumer's (no
   * follower sessions, which Kafka privileges).
   */
  private evictFor(size: number, now: number): boolean {
    let lru: FetchSession | undefined;
    for (const s of this.sessions.values()) if (!lru || s.lastUsedMs < lru.lastUsedMs || (s.lastUsedMs === lru.lastUsedMs && s.id < lru.id)) lru = s;
    if (!lru) return false;
    if (now - lru.lastUsedMs > this.evictionMs) {
      this.sessions.delete(lru.id);
      return true;
    }
    let smallest: FetchSession | undefined;
    for (const s of this.sessions.values()) {
      if (now - s.creationMs <= this.evictionMs) continue;
      if (!smallest || s.partitions.size < smallest.partitions.size || (s.partitions.size === smallest.partitions.size && s.id < smallest.id)) smallest = s;
    }
    if (!smallest || size <= smallest.partitions.size) return false;
    this.sessions.delete(smallest.id);
    return true;
  }
}

/**
 * Whether an incremental response must carry the partition (Kafka's
 * CachedPartition.maybeUpdateResponseData), updating the marks the session
 * remembers. An error resets the remembered high watermark, so the partition
 * is sent again once the error clears.
 */
export function mustRespond(cached: CachedPartition, o: PartitionOutcome): boolean {
  let must = o.hasRecords;
  if (cached.highWatermark !== o.highWatermark) {
    must = true;
    cached.highWatermark = o.highWatermark;
  }
  if (cached.logStartOffset !== o.logStartOffset) {
    must = true;
    cached.logStartOffset = o.logStartOffset;
  }
  if (o.errorCode !== ErrorCode.NONE) {
    cached.highWatermark = -1;
    must = true;
  }
  return must;
}
