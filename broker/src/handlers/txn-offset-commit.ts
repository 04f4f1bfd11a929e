// TxnOffsetCommit: sent by a transactional producer to the group's
// coordinator after AddOffsetsToTxn; the offsets stay pending until the
// transaction's marker reaches the group's `__consumer_offsets` partition.
import { TxnOffsetCommit } from '../protocol/messages/txn-offset-commit.js';
import { ErrorCode } from '../../../common/errors.js';
import type { CommitPartition } from '../groups/coordinator.js';
import { coordinatesGroup, groupErrorCode } from './group-common.js';
import type { HandlerOf } from './types.js';
import { Op, Resource, authorize } from './authorize.js';


export const txnOffsetCommitHandler: HandlerOf<typeof TxnOffsetCommit> = {
  api: TxnOffsetCommit,
  minVersion: 0,
  maxVersion: 4,
  async handle(req, ctx, b) {
    const v = ctx.apiVersion;
    const topics = req.topics;
    const codes: number[][] = topics.map((t) => t.partitions.map(() => ErrorCode.NONE));
    const respond = () => ({
      throttleTimeMs: 0,
      topics: topics.map((t, i) => ({ name: t.name, partitions: t.partitions.map((p, j) => ({ partitionIndex: p.partitionIndex, errorCode: codes[i]![j]! })) })),
    });
    const fillAll = (code: number): void => { for (const c of codes) c.fill(code); };
    // Kafka: WRITE on the transactional id, READ on the group (every partition fails without them), READ on each topic.
    const refused = !authorize(ctx, b, Op.WRITE, Resource.TRANSACTIONAL_ID, req.transactionalId) ? ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
      : !authorize(ctx, b, Op.READ, Resource.GROUP, req.groupId) ? ErrorCode.GROUP_AUTHORIZATION_FAILED : null;
    if (refused !== null) {
      fillAll(refused);
      return respond();
    }
    if (!coordinatesGroup(b, req.groupId)) {
      fillAll(ErrorCode.NOT_COORDINATOR);
      return respond();
    }
    const offsets: CommitPartition[] = [];
    const slots: Array<[number, number]> = [];
    for (let i = 0; i < topics.length; i++) {
      const t = topics[i]!;
      const topic = b.log.cachedTopic(t.name) ?? (await b.log.topic(t.name));
      const topicDenied = !authorize(ctx, b, Op.READ, Resource.TOPIC, t.name);
      t.partitions.forEach((p, j) => {
        if (topicDenied) {
          codes[i]![j] = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
          return;
        }
        if (!topic || p.partitionIndex < 0 || p.partitionIndex >= topic.partitions) {
          codes[i]![j] = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
          return;
        }
        offsets.push({ topic: t.name, partition: p.partitionIndex, offset: p.committedOffset, leaderEpoch: v >= 2 ? p.committedLeaderEpoch : -1, metadata: p.committedMetadata });
        slots.push([i, j]);
      });
    }
    if (offsets.length === 0) return respond();
    try {
      const results = await b.groups.txnCommitOffsets({
        groupId: req.groupId,
        producerId: req.producerId,
        producerEpoch: req.producerEpoch,
        generationId: v >= 3 ? req.generationId : -1,
        memberId: v >= 3 ? req.memberId : '',
        groupInstanceId: v >= 3 ? req.groupInstanceId : null,
        offsets,
      });
      results.forEach((code, k) => { const [i, j] = slots[k]!; codes[i]![j] = code; });
    } catch (e) {
      const code = groupErrorCode(e);
      for (const [i, j] of slots) codes[i]![j] = code;
    }
    return respond();
  },
};
