// What ShareFetch and ShareAcknowledge share: their opening checks, finding a
// share-partition's topic-partition on this broker, applying a member's
// acknowledgements to it, and releasing what a member holds when its share
// session closes.
import { ErrorCode, kafkaCodeOf } from '../../../../common/errors.js';
import type { Partition } from '../../log/partition.js';
import type { TopicRecord } from '../../storage/log-store.js';
import type { ShareService } from '../../groups/share/share-service.js';
import type { AckBatch } from '../../groups/share/share-partition.js';
import type { ShareSession } from '../../groups/share/share-sessions.js';
import type { BrokerServices, RequestContext } from './types.js';
import { Op, Resource, authorize } from './authorize.js';

/** The share request's member once its opening checks passed, or the top-level error to answer. */
export type ShareRequest =
  | { ok: true; shares: ShareService; groupId: string; memberId: string }
  | { ok: false; errorCode: number; errorMessage: string | null };

/**
 * ShareFetch's and ShareAcknowledge's opening checks: share groups served,
 * GroupId and MemberId set, READ on the group; then the group's configs
 * loaded (share.auto.offset.reset, lock duration, delivery limit).
 */
export async function openShareRequest(req: { groupId: string | null; memberId: string | null }, ctx: RequestContext, b: BrokerServices): Promise<ShareRequest> {
  const fail = (errorCode: number, errorMessage: string | null = null): ShareRequest => ({ ok: false, errorCode, errorMessage });
  const shares = b.shares;
  if (!shares) return fail(ErrorCode.UNKNOWN_SERVER_ERROR, 'share groups are not served');
  const groupId = req.groupId ?? '';
  const memberId = req.memberId ?? '';
  if (groupId === '' || memberId === '') return fail(ErrorCode.INVALID_REQUEST, 'GroupId and MemberId must be set.');
  if (!authorize(ctx, b, Op.READ, Resource.GROUP, groupId)) return fail(ErrorCode.GROUP_AUTHORIZATION_FAILED);
  await shares.configs.load(groupId);
  return { ok: true, shares, groupId, memberId };
}

export interface Located { errorCode: number; topic: TopicRecord | null; partition: Partition | null }

/** The partition of a topic id, loaded, if this broker leads it; else the error to answer. */
export async function locate(b: BrokerServices, topicId: string, index: number): Promise<Located> {
  const t = await b.log.topicById(topicId);
  if (!t) return { errorCode: ErrorCode.UNKNOWN_TOPIC_ID, topic: null, partition: null };
  if (index < 0 || index >= t.partitions) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, topic: t, partition: null };
  try {
    const p = await b.log.partition(t.name, index);
    await p.ensureLoaded();
    return { errorCode: ErrorCode.NONE, topic: t, partition: p };
  } catch (e) {
    return { errorCode: codeOf(e), topic: t, partition: null };
  }
}

export function codeOf(e: unknown): number {
  const code = kafkaCodeOf(e);
  if (code === null) throw e;
  return code;
}

/** share.auto.offset.reset: where a share-partition without state starts. */
export function initialStart(shares: ShareService, groupId: string, p: Partition): () => number {
  return () => (shares.configs.of(groupId).autoOffsetReset === 'earliest' ? p.earliestOffset : p.highWatermark);
}

/** Applies acknowledgements to one share-partition: its error code and message. */
export async function acknowledge(
  b: BrokerServices, shares: ShareService, groupId: string, memberId: string, topicId: string, index: number, batches: AckBatch[],
): Promise<{ errorCode: number; errorMessage: string | null }> {
  const where = await locate(b, topicId, index);
  if (!where.partition) return { errorCode: where.errorCode, errorMessage: null };
  const p = where.partition;
  const limits = shares.limits(groupId);
  try {
    return await shares.partitions.run({ groupId, topicId, partition: index }, p.leaderEpoch, initialStart(shares, groupId, p), async (sp) => {
      const now = shares.clock.now();
      const expired = sp.expireLocks(now, limits);
      const r = sp.acknowledge(memberId, batches, now, limits);
      return { value: r, changed: expired || r.errorCode === ErrorCode.NONE };
    });
  } catch (e) {
    return { errorCode: codeOf(e), errorMessage: null };
  }
}

/** A closed (or replaced) share session: the records its member holds on the session's partitions are released. */
export async function releaseSession(b: BrokerServices, shares: ShareService, s: ShareSession): Promise<void> {
  const limits = shares.limits(s.groupId);
  await Promise.all([...s.partitions.values()].map(async ({ topicId, partition }) => {
    const where = await locate(b, topicId, partition);
    if (!where.partition) return;
    const p = where.partition;
    try {
      await shares.partitions.run({ groupId: s.groupId, topicId, partition }, p.leaderEpoch, initialStart(shares, s.groupId, p), async (sp) => {
        const now = shares.clock.now();
        const expired = sp.expireLocks(now, limits);
        return { value: undefined, changed: sp.releaseMember(s.memberId, limits) || expired };
      });
    } catch (e) {
      b.logger.warn('share session release failed', { group: s.groupId, member: s.memberId, err: String(e) });
    }
  }));
}
