// ShareFetch (key 78), v1-v2.
//   v1: share groups (KIP-932; v0 was Kafka 4.0's early access): a member
//       fetches records it then holds under an acquisition lock, and
//       piggybacks acknowledgements of records it fetched before. The share
//       session (ShareSessionEpoch 0 opens, -1 closes, otherwise the next
//       epoch) keeps the partitions fetched; acknowledgements are applied
//       first, then records are acquired from each session partition (up to
//       MaxRecords): whole stored batches are returned with the ranges
//       acquired in them (AcquiredRecords, with delivery counts); the client
//       hands out only those. A fetch that acquires nothing waits up to
//       MaxWaitMs for new records or expiring locks.
//   v2: ShareAcquireMode (records are always acquired up to MaxRecords here)
//       and RENEW acknowledgements (KIP-1206, KIP-1222); with IsRenewAck
//       nothing is fetched.
// Needs READ on the group and on each topic. Reads stop at the high watermark
// (share.isolation.level read_uncommitted).
import { ShareFetch } from '../protocol/messages/share-fetch.js';
import { ErrorCode } from '../../../common/errors.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';
import { FINAL_EPOCH, INITIAL_EPOCH, partKey, type ShareSession } from '../groups/share/share-sessions.js';
import { acknowledge, codeOf, initialStart, locate, openShareRequest, releaseSession } from './support/share-common.js';
import type { AcquiredRange } from '../groups/share/share-partition.js';
import type { AbortedTxn, FetchBatch } from '../storage/log-store.js';
import { At, Attr, BATCH_HEADER_SIZE } from '../../../common/record-batch/layout.js';
import type { Partition } from '../log/partition.js';

interface Answer {
  partitionIndex: number;
  errorCode: number;
  errorMessage: string | null;
  acknowledgeErrorCode: number;
  acknowledgeErrorMessage: string | null;
  currentLeader: { leaderId: number; leaderEpoch: number };
  records: Buffer[];
  acquiredRecords: AcquiredRange[];
}

const DEFAULT_MAX_RECORDS = 500;
/** How often a waiting fetch looks at lock expiries. */
const LOCK_POLL_MS = 250;

export const shareFetchHandler: HandlerOf<typeof ShareFetch> = {
  api: ShareFetch,
  minVersion: 1,
  maxVersion: 2,
  async handle(req, ctx, b) {
    const top = (errorCode: number, errorMessage: string | null = null) =>
      ({ throttleTimeMs: 0, errorCode, errorMessage, acquisitionLockTimeoutMs: 0, responses: [], nodeEndpoints: [] });
    const open = await openShareRequest(req, ctx, b);
    if (!open.ok) return top(open.errorCode, open.errorMessage);
    const { shares, groupId, memberId } = open;
    const epoch = req.shareSessionEpoch;
    const hasAcks = req.topics.some((t) => t.partitions.some((p) => p.acknowledgementBatches.length > 0));
    if (epoch === INITIAL_EPOCH && hasAcks) return top(ErrorCode.INVALID_REQUEST, 'Acknowledge data present in the initial fetch request.');

    let session: ShareSession;
    if (epoch === INITIAL_EPOCH) {
      const r = shares.sessions.open(groupId, memberId, shares.clock.now());
      for (const gone of r.evicted) await releaseSession(b, shares, gone);
      if (!r.session) return top(r.errorCode);
      if (r.replaced) await releaseSession(b, shares, r.replaced);
      session = r.session;
    } else {
      const r = shares.sessions.advance(groupId, memberId, epoch, shares.clock.now());
      if (!r.session) return top(r.errorCode);
      session = r.session;
    }

    const answers = new Map<string, Answer & { topicId: string }>();
    const answerOf = (topicId: string, partition: number): Answer & { topicId: string } => {
      const k = partKey(topicId, partition);
      let a = answers.get(k);
      if (!a) {
        a = { topicId, partitionIndex: partition, errorCode: ErrorCode.NONE, errorMessage: null, acknowledgeErrorCode: ErrorCode.NONE, acknowledgeErrorMessage: null, currentLeader: { leaderId: b.cluster.nodeId, leaderEpoch: -1 }, records: [], acquiredRecords: [] };
        answers.set(k, a);
      }
      return a;
    };
    const topicAllowed = new Map<string, boolean>();
    const allowed = async (topicId: string): Promise<boolean> => {
      let ok = topicAllowed.get(topicId);
      if (ok === undefined) {
        const t = await b.log.topicById(topicId);
        ok = t === null || authorize(ctx, b, Op.READ, Resource.TOPIC, t.name);
        topicAllowed.set(topicId, ok);
      }
      return ok;
    };

    if (epoch !== FINAL_EPOCH) {
      for (const t of req.topics) for (const p of t.partitions) session.partitions.set(partKey(t.topicId, p.partitionIndex), { topicId: t.topicId, partition: p.partitionIndex });
      for (const t of req.forgottenTopicsData) for (const p of t.partitions) session.partitions.delete(partKey(t.topicId, p));
    }

    // Acknowledgements first (those of records fetched before).
    for (const t of req.topics) {
      for (const p of t.partitions) {
        if (p.acknowledgementBatches.length === 0) continue;
        const a = answerOf(t.topicId, p.partitionIndex);
        if (!(await allowed(t.topicId))) { a.acknowledgeErrorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED; continue; }
        const r = await acknowledge(b, shares, groupId, memberId, t.topicId, p.partitionIndex, p.acknowledgementBatches);
        a.acknowledgeErrorCode = r.errorCode;
        a.acknowledgeErrorMessage = r.errorMessage;
      }
    }
    const limits = shares.limits(groupId);
    if (epoch === FINAL_EPOCH) {
      shares.sessions.close(groupId, memberId);
      await releaseSession(b, shares, session);
      return respond(answers, limits.lockMs);
    }
    const renewOnly = ctx.apiVersion >= 2 && req.isRenewAck;
    if (!renewOnly) {
      const maxRecords = req.maxRecords > 0 ? req.maxRecords : DEFAULT_MAX_RECORDS;
      const maxBytes = Math.min(req.maxBytes > 0 ? req.maxBytes : b.config.fetchMaxBytes, b.config.fetchMaxBytes);
      const targets = [...session.partitions.values()];
      const located = new Map<string, Partition>();
      for (const { topicId, partition } of targets) {
        const a = answerOf(topicId, partition);
        if (!(await allowed(topicId))) { a.errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED; continue; }
        const where = await locate(b, topicId, partition);
        if (!where.partition) { a.errorCode = where.errorCode; continue; }
        a.currentLeader.leaderEpoch = where.partition.leaderEpoch;
        located.set(partKey(topicId, partition), where.partition);
      }
      const deadline = Date.now() + Math.max(0, req.maxWaitMs);
      for (;;) {
        let records = 0;
        let bytes = 0;
        for (const { topicId, partition } of targets) {
          const p = located.get(partKey(topicId, partition));
          if (!p || records >= maxRecords || bytes >= maxBytes) continue;
          const a = answerOf(topicId, partition);
          try {
            const got = await acquireFrom(shares, groupId, memberId, topicId, partition, p, maxRecords - records, maxBytes - bytes);
            for (const batch of got.batches) { a.records.push(...batch.pieces); bytes += batch.size; }
            a.acquiredRecords.push(...got.ranges);
            for (const r of got.ranges) records += r.lastOffset - r.firstOffset + 1;
          } catch (e) {
            a.errorCode = codeOf(e);
          }
        }
        if (records > 0 || located.size === 0 || Date.now() >= deadline) break;
        await waitForAppend([...located.values()], Math.min(LOCK_POLL_MS, Math.max(0, deadline - Date.now())));
      }
    }
    // The first fetch of a session answers every partition; later ones those with news.
    const shown = new Map([...answers].filter(([, a]) => epoch === INITIAL_EPOCH || a.acquiredRecords.length > 0 || a.errorCode !== ErrorCode.NONE
      || a.acknowledgeErrorCode !== ErrorCode.NONE || req.topics.some((t) => t.topicId === a.topicId && t.partitions.some((p) => p.partitionIndex === a.partitionIndex))));
    return respond(shown, limits.lockMs);
  },
};

function respond(answers: Map<string, Answer & { topicId: string }>, lockMs: number) {
  const byTopic = new Map<string, Answer[]>();
  for (const a of answers.values()) {
    const { topicId, ...rest } = a;
    const list = byTopic.get(topicId) ?? [];
    list.push(rest);
    byTopic.set(topicId, list);
  }
  return {
    throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, acquisitionLockTimeoutMs: lockMs,
    responses: [...byTopic].map(([topicId, partitions]) => ({ topicId, partitions })), nodeEndpoints: [],
  };
}

/** Acquires records of one share-partition for the member: the stored batches holding them and the ranges acquired. */
function acquireFrom(
  shares: NonNullable<import('./support/types.js').BrokerServices['shares']>, groupId: string, memberId: string, topicId: string, partition: number, p: Partition,
  maxRecords: number, maxBytes: number,
): Promise<{ batches: FetchBatch[]; ranges: AcquiredRange[] }> {
  const limits = shares.limits(groupId);
  return shares.partitions.run({ groupId, topicId, partition }, p.leaderEpoch, initialStart(shares, groupId, p), async (sp) => {
    const now = shares.clock.now();
    let changed = sp.expireLocks(now, limits);
    changed = sp.moveStartTo(p.earliestOffset) || changed;
    const from = sp.nextFetchOffset();
    // share.isolation.level=read_committed: up to the last stable offset, the records of aborted transactions archived
    const committed = shares.configs.of(groupId).isolationLevel === 'read_committed';
    const bound = committed ? p.lastStableOffset : p.highWatermark;
    if (from >= bound) return { value: { batches: [], ranges: [] }, changed };
    const read = await p.readForFetch(from, Math.max(1, maxBytes), committed);
    if (read.length === 0) return { value: { batches: [], ranges: [] }, changed };
    const last = Math.min(bound - 1, ...read.map((x) => x.baseOffset + x.lastOffsetDelta));
    const aborted = committed ? abortedRanges(read, await p.abortedTxns(from, bound)) : [];
    const archive = aborted.length ? (o: number): boolean => aborted.some(([f, l]) => o >= f && o <= l) : undefined;
    const ranges = sp.acquire(memberId, from, last, maxRecords, now, limits, archive);
    const batches = read.filter((x) => ranges.some((r) => r.firstOffset <= x.baseOffset + x.lastOffsetDelta && r.lastOffset >= x.baseOffset));
    return { value: { batches, ranges }, changed: changed || ranges.length > 0 };
  });
}

/**
 * The offsets of the read batches that belong to aborted transactions: a
 * transactional data batch of a producer with an aborted transaction that
 * spans its base offset (Kafka's read_committed rule, as its consumers apply
 * the fetch response's aborted-transaction list).
 */
export function abortedRanges(read: readonly FetchBatch[], aborted: readonly AbortedTxn[]): Array<[number, number]> {
  if (aborted.length === 0) return [];
  const out: Array<[number, number]> = [];
  for (const b of read) {
    const head = b.pieces[0]!.length >= BATCH_HEADER_SIZE ? b.pieces[0]! : Buffer.concat(b.pieces).subarray(0, BATCH_HEADER_SIZE);
    const attrs = head.readInt16BE(At.ATTRIBUTES);
    if ((attrs & Attr.TRANSACTIONAL) === 0 || (attrs & Attr.CONTROL) !== 0) continue;
    const producerId = Number(head.readBigInt64BE(At.PRODUCER_ID));
    if (aborted.some((a) => a.producerId === producerId && a.firstOffset <= b.baseOffset && b.baseOffset <= a.lastOffset)) out.push([b.baseOffset, b.baseOffset + b.lastOffsetDelta]);
  }
  return out;
}

function waitForAppend(parts: Partition[], ms: number): Promise<void> {
  return new Promise((resolve) => {
    const offs: Array<() => void> = [];
    const done = (): void => {
      clearTimeout(timer);
      for (const off of offs) off();
      resolve();
    };
    const timer = setTimeout(done, ms);
    for (const p of parts) offs.push(p.onAppend(done));
  });
}
