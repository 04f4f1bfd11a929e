// ListTransactions (key 66), v0-v1.
//   v0: the transactions of this broker's coordinator, filtered by state and producer
//       id (KIP-664); flexible encoding.
//   v1: a duration filter: only transactions running longer than it (KIP-994).
// Each broker answers for the coordinator slots it holds; unknown state filters are
// echoed back; only ids the principal may DESCRIBE are listed.
import { ListTransactions } from '../protocol/messages/list-transactions.js';
import { ErrorCode } from '../../../common/errors.js';
import { isTxnState } from '../transactions/txn-metadata.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';

/** ListTransactions: each broker answers for the coordinator slots it holds (admin clients ask every broker). */
export const listTransactionsHandler: HandlerOf<typeof ListTransactions> = {
  api: ListTransactions,
  minVersion: 0,
  maxVersion: 1,
  async handle(req, ctx, b) {
    const filters = req.stateFilters;
    const unknown = filters.filter((s) => !isTxnState(s));
    const reply = (errorCode: number, list: Array<{ transactionalId: string; producerId: number; state: string }>) => ({
      throttleTimeMs: 0, errorCode, unknownStateFilters: unknown,
      transactionStates: list.map((x) => ({ transactionalId: x.transactionalId, producerId: x.producerId, transactionState: x.state })),
    });
    if (!b.transactions) return reply(ErrorCode.COORDINATOR_NOT_AVAILABLE, []);
    const known = filters.filter((s) => !unknown.includes(s));
    // Only unknown filters: nothing can match.
    if (filters.length > 0 && known.length === 0) return reply(ErrorCode.NONE, []);
    const list = await b.transactions.list(known, req.producerIdFilters, ctx.apiVersion >= 1 ? req.durationFilter : -1);
    // Kafka lists only the ids the principal may DESCRIBE.
    return reply(ErrorCode.NONE, list.filter((x) => authorize(ctx, b, Op.DESCRIBE, Resource.TRANSACTIONAL_ID, x.transactionalId)));
  },
};
