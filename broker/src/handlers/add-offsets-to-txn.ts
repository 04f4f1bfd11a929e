// AddOffsetsToTxn (key 25), v0-v4.
//   v0-v1: a transactional producer adds a group to its transaction, before it
//       commits offsets with TxnOffsetCommit; v1 is answered before throttling.
//   v2: PRODUCER_FENCED may be answered (older versions get INVALID_PRODUCER_EPOCH).
//   v3: flexible encoding (tagged fields).
//   v4: TRANSACTION_ABORTABLE becomes a possible error (KIP-890).
// Needs WRITE on the transactional id, then READ on the group; the id's coordinator
// adds the group's `__consumer_offsets` partition to the transaction.
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
