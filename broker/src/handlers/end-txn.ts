// EndTxn (key 26), v0-v4.
//   v0-v1: commits or aborts the producer's transaction; v1 is answered before throttling.
//   v2: PRODUCER_FENCED may be answered (older versions get INVALID_PRODUCER_EPOCH).
//   v3: flexible encoding.
//   v4: TRANSACTION_ABORTABLE becomes a possible error (KIP-890).
// Needs WRITE on the transactional id. Kafka's v5 (KIP-890 part 2: a new epoch per
// transaction, returned in the answer) is not offered.
import { ErrorCode } from '../../../common/errors.js';
import { EndTxn } from '../protocol/messages/end-txn.js';
import { fencedFor, txnCoordinatorFor } from './support/txn-common.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';

/**
 * EndTxn: commit or abort. Answered once the outcome is stored (Prepare*) and
 * the markers are written or being retried. v5 (KIP-890 part 2, an epoch bump
 * per transaction) is not offered.
 */
export const endTxnHandler: HandlerOf<typeof EndTxn> = {
  api: EndTxn,
  minVersion: 0,
  maxVersion: 4,
  async handle(req, ctx, b) {
    if (!authorize(ctx, b, Op.WRITE, Resource.TRANSACTIONAL_ID, req.transactionalId)) return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED }; // Kafka: WRITE on the id
    const t = txnCoordinatorFor(b, req.transactionalId);
    if (typeof t === 'number') return { throttleTimeMs: 0, errorCode: t };
    const code = await t.endTxn(req.transactionalId, req.producerId, req.producerEpoch, req.committed);
    return { throttleTimeMs: 0, errorCode: fencedFor(code, ctx.apiVersion, 2) };
  },
};
