// EndTxn (key 26), v0-v5.
//   v0-v1: commits or aborts the producer's transaction; v1 is answered before throttling.
//   v2: PRODUCER_FENCED may be answered (older versions get INVALID_PRODUCER_EPOCH).
//   v3: flexible encoding.
//   v4: TRANSACTION_ABORTABLE becomes a possible error (KIP-890).
//   v5: transactions v2 (KIP-890 part 2): the coordinator bumps the producer epoch
//       at every end and answers with the producer id and epoch to go on with.
// Needs WRITE on the transactional id.
import { ErrorCode } from '../../../common/errors.js';
import { EndTxn } from '../protocol/messages/end-txn.js';
import { TXN_V2 } from '../transactions/txn-metadata.js';
import { fencedFor, txnCoordinatorFor } from './support/txn-common.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';

/**
 * EndTxn: commit or abort. Answered once the outcome is stored (Prepare*) and
 * the markers are written or being retried. v5 is Kafka's client transaction
 * version 2 (TransactionVersion.transactionVersionForEndTxn): an epoch bump per
 * transaction, the new epoch in the answer.
 */
export const endTxnHandler: HandlerOf<typeof EndTxn> = {
  api: EndTxn,
  minVersion: 0,
  maxVersion: 5,
  async handle(req, ctx, b) {
    const reply = (errorCode: number, producerId = -1, producerEpoch = -1) => ({ throttleTimeMs: 0, errorCode, producerId, producerEpoch });
    if (!authorize(ctx, b, Op.WRITE, Resource.TRANSACTIONAL_ID, req.transactionalId)) return reply(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED); // Kafka: WRITE on the id
    const t = txnCoordinatorFor(b, req.transactionalId);
    if (typeof t === 'number') return reply(t);
    const r = await t.endTxn(req.transactionalId, req.producerId, req.producerEpoch, req.committed, ctx.apiVersion >= 5 ? TXN_V2 : 0);
    return reply(fencedFor(r.errorCode, ctx.apiVersion, 2), r.producerId, r.producerEpoch);
  },
};
