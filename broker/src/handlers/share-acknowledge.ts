// ShareAcknowledge (key 79), v1-v2.
//   v1: share groups (KIP-932; v0 was Kafka 4.0's early access): acknowledges
//       records a member acquired: ACCEPT (done), RELEASE (to be delivered
//       again, or archived at the delivery-count limit), REJECT (archived).
//       The request belongs to the member's share session: its epoch must be
//       the next one, and -1 closes the session after the acknowledgements
//       (what the member still holds is released).
//   v2: RENEW acknowledgements (the acquisition lock starts again, KIP-1222)
//       and the acquisition lock timeout in the answer.
// Needs READ on the group and on each topic.
import { ShareAcknowledge } from '../protocol/messages/share-acknowledge.js';
import { ErrorCode } from '../../../common/errors.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';
import { FINAL_EPOCH, INITIAL_EPOCH } from '../groups/share/share-sessions.js';
import { acknowledge, openShareRequest, releaseSession } from './support/share-common.js';

export const shareAcknowledgeHandler: HandlerOf<typeof ShareAcknowledge> = {
  api: ShareAcknowledge,
  minVersion: 1,
  maxVersion: 2,
  async handle(req, ctx, b) {
    const top = (errorCode: number, errorMessage: string | null = null) =>
      ({ throttleTimeMs: 0, errorCode, errorMessage, acquisitionLockTimeoutMs: 0, responses: [], nodeEndpoints: [] });
    const open = await openShareRequest(req, ctx, b);
    if (!open.ok) return top(open.errorCode, open.errorMessage);
    const { shares, groupId, memberId } = open;
    if (req.shareSessionEpoch === INITIAL_EPOCH) return top(ErrorCode.INVALID_SHARE_SESSION_EPOCH, 'A share session is not opened by ShareAcknowledge.');
    const r = shares.sessions.advance(groupId, memberId, req.shareSessionEpoch, shares.clock.now());
    if (!r.session) return top(r.errorCode);
    const responses = [];
    for (const t of req.topics) {
      const topic = await b.log.topicById(t.topicId);
      const denied = topic !== null && !authorize(ctx, b, Op.READ, Resource.TOPIC, topic.name);
      const partitions = [];
      for (const p of t.partitions) {
        const res = denied
          ? { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: null }
          : await acknowledge(b, shares, groupId, memberId, t.topicId, p.partitionIndex, p.acknowledgementBatches);
        partitions.push({ partitionIndex: p.partitionIndex, ...res, currentLeader: { leaderId: b.cluster.nodeId, leaderEpoch: -1 } });
      }
      responses.push({ topicId: t.topicId, partitions });
    }
    if (req.shareSessionEpoch === FINAL_EPOCH) {
      shares.sessions.close(groupId, memberId);
      await releaseSession(b, shares, r.session);
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, acquisitionLockTimeoutMs: shares.limits(groupId).lockMs, responses, nodeEndpoints: [] };
  },
};
