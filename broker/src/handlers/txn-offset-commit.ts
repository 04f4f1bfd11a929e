// TxnOffsetCommit (key 28), v0-v4.
//   v0-v1: offsets committed inside the producer's transaction; v1 is answered before
//       throttling.
//   v2: the leader epoch of each offset.
//   v3: flexible encoding; member id, generation and group.instance.id, so a zombie
//       member's commit is fenced (KIP-447).
//   v4: TRANSACTION_ABORTABLE becomes a possible error (KIP-890).
// Sent to the group's coordinator after AddOffsetsToTxn; the offsets stay pending
// until the transaction's marker reaches the group's `__consumer_offsets` partition.
import { TxnOffsetCommit } from '../protocol/messages/txn-offset-commit.js';
import { ErrorCode } from '../../../common/errors.js';
import { commitPartitions } from './support/group-common.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';

export const txnOffsetCommitHandler: HandlerOf<typeof TxnOffsetCommit> = {
  api: TxnOffsetCommit,
  minVersion: 0,
  maxVersion: 4,
  async handle(req, ctx, b) {
    const v = ctx.apiVersion;
    // Kafka: WRITE on the transactional id, READ on the group (every partition fails without them), READ on each topic.
    const refused = !authorize(ctx, b, Op.WRITE, Resource.TRANSACTIONAL_ID, req.transactionalId) ? ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
      : !authorize(ctx, b, Op.READ, Resource.GROUP, req.groupId) ? ErrorCode.GROUP_AUTHORIZATION_FAILED : null;
    return commitPartitions(
      ctx,
      b,
      req,
      refused,
      (topic, p) => ({ topic, partition: p.partitionIndex, offset: p.committedOffset, leaderEpoch: v >= 2 ? p.committedLeaderEpoch : -1, metadata: p.committedMetadata }),
      (offsets) =>
        b.groups.txnCommitOffsets({
          groupId: req.groupId,
          producerId: req.producerId,
          producerEpoch: req.producerEpoch,
          generationId: v >= 3 ? req.generationId : -1,
          memberId: v >= 3 ? req.memberId : '',
          groupInstanceId: v >= 3 ? req.groupInstanceId : null,
          offsets,
        }),
    );
  },
};
