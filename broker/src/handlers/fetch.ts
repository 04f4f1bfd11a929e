// Fetch (key 1), v4-v16.
//   v4: the oldest served: the client reads magic-2 batches; isolation level, and the
//       answer has the last stable offset and the aborted transactions.
//   v5-v6: the partition's log start offset; v6 may answer KAFKA_STORAGE_ERROR.
//   v7-v8: incremental fetch sessions (KIP-227); v8 is answered before throttling.
//   v9: the current leader epoch of each partition, for fencing (KIP-320).
//   v10: zstd batches may be returned (KIP-110).
//   v11: the consumer's rack; a preferred read replica in the answer (KIP-392).
//   v12: flexible encoding; last fetched epoch, diverging epoch, current leader.
//   v13-v14: topic ids instead of names (KIP-516); v14 adds a tiered-storage error.
//   v15-v16: a replica state struct (KIP-903); v16 the new leaders' endpoints (KIP-951).
// Needs READ on each topic. A partition named twice is read once; read_committed
// stops at the last stable offset. On a tiered topic an offset below the Redis log start
// is read from the lake (remote-read.ts). No follower fetching: the preferred read replica
// is -1 and the rack and last fetched epoch are not used.
import { Fetch } from '../protocol/messages/fetch.js';
import { ErrorCode, kafkaCodeOf } from '../../../common/errors.js';
import type { Partition } from '../log/partition.js';
import type { FetchBatch, TopicRecord } from '../storage/log-store.js';
import type { BrokerServices, HandlerOf } from './support/types.js';
import type { Element, ResponseOf } from '../protocol/typed.js';
import { quotaUser } from '../quotas/request-throttle.js';
import { Op, Resource, authorize } from './support/authorize.js';
import { readRemote } from './support/remote-read.js';
import { FINAL_EPOCH, mustRespond, type FetchContext, type FetchTarget, type PartitionOutcome } from '../fetch/fetch-sessions.js';

type FetchTopicAnswer = Element<ResponseOf<typeof Fetch>['responses']>;
/** One partition's answer as it is built: every mark set, records the stored batches (written back to back). */
type PartitionAnswer = Element<FetchTopicAnswer['partitions']> & {
  errorCode: number; highWatermark: number; lastStableOffset: number; logStartOffset: number; records: Buffer[];
};

interface Slot {
  req: FetchTarget;
  partition: Partition | null;
  out: PartitionAnswer;
  bytes: number;
  /** The topic's max.message.bytes: the most one stored batch of it can hold. */
  maxBatchBytes: number;
  /** isolation_level read_committed: read below the last stable offset, with the aborted transactions. */
  committed: boolean;
  /** The high watermark and LSO the partition's read was bounded by, once it returned records. */
  seen?: { highWatermark: number; lastStableOffset: number };
  /** One past the last offset of the returned batches (read_committed looks up aborted transactions below it). */
  upper?: number;
  /** The byte limit the partition was last read with. */
  limit?: number;
  /** The topic's id (the lake table's owner). */
  topicId: string;
}

/** Fetch/ListOffsets isolation_level: 0 read_uncommitted, 1 read_committed. */
export const READ_COMMITTED = 1;

const keyOf = (topicOrId: string, partition: number): string => `${topicOrId}\u0000${partition}`;

export const fetchHandler: HandlerOf<typeof Fetch> = {
  api: Fetch,
  minVersion: 4,
  maxVersion: 16,
  async handle(req, ctx, b) {
    const byId = ctx.apiVersion >= 13;
    const committed = req.isolationLevel === READ_COMMITTED;
    // Kafka keys a fetch by topic-partition (a LinkedHashMap built from the
    // request), so a partition named twice is fetched and answered once, at its
    // first position. Reading it once per mention would multiply the memory a
    // single request costs by the number of mentions.
    const requested = new Map<string, FetchTarget>();
    for (const rt of req.topics) {
      for (const rp of rt.partitions) {
        const key = keyOf(byId ? rt.topicId : rt.topic, rp.partition);
        if (!requested.has(key)) requested.set(key, { key, topic: rt.topic ?? '', topicId: rt.topicId ?? '', partition: rp.partition, fetchOffset: rp.fetchOffset, partitionMaxBytes: rp.partitionMaxBytes, currentLeaderEpoch: rp.currentLeaderEpoch });
      }
    }
    const wanted = [...requested.values()];
    const forgotten = req.forgottenTopicsData.flatMap((ft) => ft.partitions.map((p) => keyOf(byId ? ft.topicId : ft.topic, p)));
    const sessions = b.fetchSessions;
    const fc: FetchContext = sessions
      ? sessions.newContext(ctx.apiVersion, req.sessionId ?? 0, req.sessionEpoch ?? FINAL_EPOCH, wanted, forgotten, Date.now())
      : { kind: 'sessionless' };
    if (fc.kind === 'error') return { throttleTimeMs: 0, errorCode: fc.errorCode, sessionId: 0, responses: [] };
    // An incremental fetch reads every partition of its session, in the session's order.
    const targets = fc.kind === 'incremental' ? [...fc.session.partitions.values()] : wanted;

    const topicsSeen = new Map<string, TopicRecord | null>();
    // Kafka: READ on the topic (an unknown topic id stays UNKNOWN_TOPIC_ID).
    const denied = new Map<string, boolean>();
    const slots: Slot[] = [];
    for (const target of targets) {
      const topicKey = byId ? target.topicId : target.topic;
      let t = topicsSeen.get(topicKey);
      if (t === undefined) {
        t = byId ? await b.log.topicById(target.topicId) : await b.log.topic(target.topic);
        topicsSeen.set(topicKey, t);
        denied.set(topicKey, (t !== null || !byId) && !authorize(ctx, b, Op.READ, Resource.TOPIC, t?.name ?? target.topic));
      }
      const out: PartitionAnswer = { partitionIndex: target.partition, errorCode: ErrorCode.NONE, highWatermark: -1, lastStableOffset: -1, logStartOffset: -1, abortedTransactions: null, records: [] };
      const slot: Slot = { req: target, partition: null, out, bytes: 0, maxBatchBytes: t ? b.log.configNumber(t, 'max.message.bytes') : 0, committed, topicId: t?.id ?? '' };
      if (denied.get(topicKey)) out.errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
      else if (!t) out.errorCode = byId ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      else if (target.partition < 0 || target.partition >= t.partitions) out.errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      else {
        try {
          slot.partition = await b.log.partition(t.name, target.partition);
        } catch (e) {
          out.errorCode = storageCode(e);
        }
      }
      slots.push(slot);
    }

    // Kafka: the response is bounded by min(request max_bytes, fetch.max.bytes).
    const maxBytes = Math.min(req.maxBytes > 0 ? req.maxBytes : b.config.fetchMaxBytes, b.config.fetchMaxBytes);
    const read = (s: Slot, limit: number): Promise<FetchBatch[]> => readOne(s, limit, b);
    let total = await readAll(slots, maxBytes, read);
    const deadline = Date.now() + Math.max(0, req.maxWaitMs);
    // Like Kafka, a fetch with no partition to read (none named, or none led here) is answered at once: nothing can wake it.
    const readable = slots.some((s) => s.partition !== null);
    while (readable && total < Math.max(1, req.minBytes) && Date.now() < deadline && !slots.some((s) => s.out.errorCode !== ErrorCode.NONE)) {
      // the clock may pass the deadline between the check and here: never a negative timer (TimeoutNegativeWarning)
      const woke = await waitForAppend(slots, Math.max(0, deadline - Date.now()));
      if (!woke) break;
      total = await readAll(slots, maxBytes, read);
    }

    // consumer_byte_rate: over the quota, the answer holds no records and the session is left as it was (Kafka's throttled fetch).
    const quotas = b.quotas?.manager;
    if (quotas?.enabled) {
      const t = quotas.recordFetch(quotaUser(ctx.session), ctx.clientId ?? '', slots.reduce((n, s) => n + s.bytes, 0), Date.now());
      if (t > 0) return { throttleTimeMs: t, errorCode: ErrorCode.NONE, sessionId: fc.kind === 'incremental' ? fc.session.id : 0, responses: [] };
    }

    let answered = slots;
    let sessionId = 0;
    if (fc.kind === 'incremental') {
      const { session } = fc;
      // Another request of this session was answered meanwhile (Kafka: a possible duplicate request).
      if (session.epoch !== fc.expectedEpoch) return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH, sessionId: session.id, responses: [] };
      answered = [];
      for (const s of slots) {
        const cached = session.partitions.get(s.req.key);
        if (!cached) continue;
        const o = outcomeOf(s);
        if (!mustRespond(cached, o)) continue;
        answered.push(s);
        // A partition that returned records goes to the back, so the byte budget reaches the others next time.
        if (o.hasRecords) {
          session.partitions.delete(cached.key);
          session.partitions.set(cached.key, cached);
        }
      }
      sessionId = session.id;
    } else if (fc.kind === 'full' && sessions) {
      sessionId = sessions.create(ctx.apiVersion, slots.map((s) => ({ target: s.req, outcome: outcomeOf(s) })), Date.now());
    }
    // The consumer fetches next where this answer ends: start those reads now (read-ahead.ts).
    // (Not inside the lake: a read there is served from the lake reader's cache.)
    for (const s of slots) if (s.partition && s.out.records.length > 0 && s.upper! >= s.partition.logStartOffset) s.partition.readAhead(s.upper!, s.limit!, s.committed);
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId, responses: byTopic(answered, byId, topicsSeen) };
  },
};

function outcomeOf(s: Slot): PartitionOutcome {
  return {
    errorCode: s.out.errorCode,
    highWatermark: s.out.highWatermark,
    logStartOffset: s.out.logStartOffset,
    hasRecords: s.out.records.length > 0,
  };
}

/** Response topics: consecutive partitions of one topic share an entry (Kafka's FetchResponse.of). */
function byTopic(slots: Slot[], byId: boolean, topics: Map<string, TopicRecord | null>): FetchTopicAnswer[] {
  const out: Array<FetchTopicAnswer & { partitions: PartitionAnswer[] }> = [];
  let lastKey: string | null = null;
  for (const s of slots) {
    const key = byId ? s.req.topicId : s.req.topic;
    if (key !== lastKey) {
      const t = topics.get(key);
      out.push({ topic: t?.name ?? s.req.topic, topicId: t?.id ?? s.req.topicId, partitions: [] });
      lastKey = key;
    }
    out[out.length - 1]!.partitions.push(s.out);
  }
  return out;
}

/**
 * Reads the partitions in request order under one byte budget that is applied
 * BEFORE Redis is asked: partitions go in waves whose limits fit together in
 * what is left of the budget, each wave is read in parallel (one round trip),
 * and the next wave gets what the previous ones left. A partition is charged
 * at least its topic's max.message.bytes, because a read always returns the
 * first batch whole (KIP-74), so what one fetch holds in memory stays within
 * the budget plus at most one batch. The first non-empty partition always
 * keeps one whole batch; later ones keep what still fits.
 */
async function readAll(slots: Slot[], maxBytes: number, readOne: (s: Slot, limit: number) => Promise<FetchBatch[]>): Promise<number> {
  await Promise.all(slots.map(prepare));
  const live = slots.filter((s) => s.partition && s.out.errorCode === ErrorCode.NONE);
  for (const s of live) {
    s.out.records = [];
    s.bytes = 0;
  }
  let budget = maxBytes;
  let total = 0;
  let next = 0;
  while (next < live.length && (budget > 0 || total === 0)) {
    const wave: Array<{ s: Slot; limit: number }> = [];
    let charged = 0;
    for (; next < live.length; next++) {
      const s = live[next]!;
      const limit = Math.max(1, Math.min(s.req.partitionMaxBytes, budget - charged));
      const charge = Math.max(limit, s.maxBatchBytes);
      if (wave.length > 0 && charged + charge > budget) break;
      wave.push({ s, limit });
      charged += charge;
    }
    const read = await Promise.all(wave.map(({ s, limit }) => readOne(s, limit)));
    wave.forEach(({ s, limit }, k) => {
      // The batches' pieces go to the response as they are (records given as a list of buffers).
      const kept: Buffer[] = [];
      for (const batch of read[k]!) {
        if (s.bytes + batch.size > budget && (total > 0 || kept.length > 0)) break;
        for (const piece of batch.pieces) kept.push(piece);
        s.bytes += batch.size;
        s.upper = batch.baseOffset + batch.lastOffsetDelta + 1;
      }
      s.out.records = kept;
      budget -= s.bytes;
      total += s.bytes;
      s.limit = limit;
    });
  }
  for (const s of live) {
    const p = s.partition!;
    if (s.out.errorCode !== ErrorCode.NONE) continue;
    // A partition that returned records reports the marks its read was bounded by
    // (as Kafka does); one that returned none, the current ones. Either way no
    // record handed out lies above the high watermark (or, read_committed, the LSO).
    s.out.highWatermark = s.seen?.highWatermark ?? p.highWatermark;
    s.out.lastStableOffset = s.seen?.lastStableOffset ?? p.lastStableOffset;
    s.out.logStartOffset = p.earliestOffset;
  }
  const committed = live.filter((s) => s.committed && s.out.errorCode === ErrorCode.NONE && s.out.records.length > 0);
  if (committed.length > 0) await Promise.all(committed.map(abortedOf));
  return total;
}

/**
 * read_committed: the aborted transactions overlapping the returned batches
 * (producerId, firstOffset), which the consumer uses to drop their records
 * until it meets the abort marker. An empty list when none overlaps.
 */
async function abortedOf(s: Slot): Promise<void> {
  try {
    const found = await s.partition!.abortedTxns(s.req.fetchOffset, s.upper!);
    s.out.abortedTransactions = found.map((a) => ({ producerId: a.producerId, firstOffset: a.firstOffset }));
  } catch (e) {
    s.out.errorCode = storageCode(e);
    s.out.records = [];
  }
}

/** Loads the partition's state and checks the client's leader epoch. */
async function prepare(s: Slot): Promise<void> {
  const p = s.partition;
  if (!p || s.out.errorCode !== ErrorCode.NONE) return;
  try {
    await p.ensureLoaded();
    if (s.req.currentLeaderEpoch >= 0 && s.req.currentLeaderEpoch !== p.leaderEpoch) {
      s.out.errorCode = s.req.currentLeaderEpoch > p.leaderEpoch ? ErrorCode.UNKNOWN_LEADER_EPOCH : ErrorCode.FENCED_LEADER_EPOCH;
    }
  } catch (e) {
    s.out.errorCode = storageCode(e);
  }
}

async function readOne(s: Slot, limit: number, b: BrokerServices): Promise<FetchBatch[]> {
  try {
    const seen = { highWatermark: -1, lastStableOffset: -1 };
    const p = s.partition!;
    const offset = s.req.fetchOffset;
    const inLake = (): boolean => b.remoteLog !== undefined && p.remoteLogStartOffset !== null && offset >= p.remoteLogStartOffset && offset < p.logStartOffset;
    const remote = (): Promise<FetchBatch[]> => readRemote(b.remoteLog!, p, s.topicId, offset, limit, s.committed, seen, b.config.remoteFetchMaxWaitMs);
    let out = inLake() ? await remote() : await p.readForFetch(offset, limit, s.committed, seen);
    // Local retention moved the log start past the offset while Redis was read (the log start moves before
    // Redis trims): what Redis returned starts after a gap that the lake holds.
    if (out.length > 0 && out[0]!.baseOffset > offset && inLake()) out = await remote();
    if (out.length > 0) s.seen = seen;
    return out;
  } catch (e) {
    s.out.errorCode = storageCode(e);
    return [];
  }
}

function storageCode(e: unknown): number {
  const code = kafkaCodeOf(e);
  if (code === null) throw e;
  return code;
}

function waitForAppend(slots: Slot[], ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const offs: Array<() => void> = [];
    const done = (woke: boolean): void => {
      clearTimeout(timer);
      for (const off of offs) off();
      resolve(woke);
    };
    const timer = setTimeout(() => done(false), ms);
    for (const s of slots) if (s.partition) offs.push(s.partition.onAppend(() => done(true)));
  });
}
