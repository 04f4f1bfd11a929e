// TxnOffsetCommit (key 28), v0-v5.
//   v0-v1: offsets committed inside the producer's transaction; v1 is answered before
//       throttling.
//   v2: the leader epoch of each offset.
//   v3: flexible encoding; member id, generation and group.instance.id, so a zombie
//       member's commit is fenced (KIP-447).
//   v4: TRANSACTION_ABORTABLE becomes a possible error (KIP-890).
//   v5: transactions v2 (KIP-890 part 2): no AddOffsetsToTxn before it; the group's
//       `__consumer_offsets` partition is added to the transaction here (Kafka's
//       TransactionSupportedOperation ADD_PARTITION).
// Sent to the group's coordinator after AddOffsetsToTxn (v0-v4); the offsets stay
// pending until the transaction's marker reaches the group's `__consumer_offsets`
// partition.
import { TxnOffsetCommit } from '../protocol/messages/txn-offset-commit.js';
import { ErrorCode } from '../../../common/errors.js';
import { OFFSETS_TOPIC } from '../log/internal-topics.js';
import { commitPartitions } from './support/group-common.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';

export const txnOffsetCommitHandler: HandlerOf<typeof TxnOffsetCommit> = {
  api: TxnOffsetCommit,
  minVersion: 0,
  maxVersion: 5,
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
      async (offsets) => {
        if (v >= 5) {
          // The group's partition joins the transaction before any offset is kept pending: a refusal
          // (CONCURRENT_TRANSACTIONS while the previous transaction completes, PRODUCER_FENCED...) fails every partition.
          const code = await b.txn.addPartition(req.transactionalId, req.producerId, req.producerEpoch, { topic: OFFSETS_TOPIC, partition: b.cluster.coordinatorSlot(req.groupId) });
          if (code !== ErrorCode.NONE) return offsets.map(() => code);
        }
        return b.groups.txnCommitOffsets({
          groupId: req.groupId,
          producerId: req.producerId,
          producerEpoch: req.producerEpoch,
          generationId: v >= 3 ? req.generationId : -1,
          memberId: v >= 3 ? req.memberId : '',
          groupInstanceId: v >= 3 ? req.groupInstanceId : null,
          offsets,
        });
      },
    );
  },
};
