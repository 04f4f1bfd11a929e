import { ErrorCode } from '../../../common/errors.js';
import { AddOffsetsToTxn } from '../protocol/messages/add-offsets-to-txn.js';
import { fencedFor, txnCoordinatorFor } from './support/txn-common.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize } from './support/authorize.js';

/** AddOffsetsToTxn: the group's `__consumer_offsets` partition joins the transaction (its marker completes the TxnOffsetCommits). */
export const addOffsetsToTxnHandler: HandlerOf<typeof AddOffsetsToTxn> = {
  api: AddOffsetsToTxn,
  minVersion: 0,
  maxVersion: 4,
  async handle(req, ctx, b) {
    // Kafka: WRITE on the transactional id, READ on the group.
    if (!authorize(ctx, b, Op.WRITE, Resource.TRANSACTIONAL_ID, req.transactionalId)) return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED };
    if (!authorize(ctx, b, Op.READ, Resource.GROUP, req.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
    const t = txnCoordinatorFor(b, req.transactionalId);
    if (typeof t === 'number') return { throttleTimeMs: 0, errorCode: t };
    const code = await t.addOffsets(req.transactionalId, req.producerId, req.producerEpoch, req.groupId);
    return { throttleTimeMs: 0, errorCode: fencedFor(code, ctx.apiVersion, 2) };
  },
};
