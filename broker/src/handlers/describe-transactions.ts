// DescribeTransactions (key 65), v0.
//   v0: each transactional id's state, timeout, start time, producer and
//       partitions (KIP-664); flexible encoding.
// Needs DESCRIBE on each id; only partitions of topics the principal may DESCRIBE
// are listed. An id this broker does not coordinate is NOT_COORDINATOR.
import { DescribeTransactions } from '../protocol/messages/describe-transactions.js';
import { ErrorCode } from '../../../common/errors.js';
import { txnCoordinatorFor } from './support/txn-common.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';

export const describeTransactionsHandler: HandlerOf<typeof DescribeTransactions> = {
  api: DescribeTransactions,
  minVersion: 0,
  maxVersion: 0,
  async handle(req, ctx, b) {
    const ids = req.transactionalIds;
    const states = await Promise.all(ids.map(async (id) => {
      const none = (errorCode: number) => ({ errorCode, transactionalId: id, transactionState: '', transactionTimeoutMs: 0, transactionStartTimeMs: -1, producerId: -1, producerEpoch: -1, topics: [] });
      if (!authorize(ctx, b, Op.DESCRIBE, Resource.TRANSACTIONAL_ID, id)) return none(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED); // Kafka: DESCRIBE on the id
      const t = txnCoordinatorFor(b, id);
      if (typeof t === 'number') return none(t);
      const d = await t.describe(id);
      if (d.errorCode !== ErrorCode.NONE) return none(d.errorCode);
      const byTopic = new Map<string, number[]>();
      // Kafka lists only the partitions of topics the principal may DESCRIBE.
      for (const tp of d.partitions) if (authorize(ctx, b, Op.DESCRIBE, Resource.TOPIC, tp.topic)) byTopic.set(tp.topic, [...(byTopic.get(tp.topic) ?? []), tp.partition]);
      return {
        errorCode: ErrorCode.NONE, transactionalId: id, transactionState: d.state, transactionTimeoutMs: d.timeoutMs,
        transactionStartTimeMs: d.txnStartMs, producerId: d.producerId, producerEpoch: d.producerEpoch,
        topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })),
      };
    }));
    return { throttleTimeMs: 0, transactionStates: states };
  },
};
