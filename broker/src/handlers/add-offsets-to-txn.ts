import { AddOffsetsToTxn } from '../protocol/messages/add-offsets-to-txn.js';
import { fencedFor, txnCoordinatorFor } from './txn-common.js';
import type { Handler } from './types.js';

/** AddOffsetsToTxn: the group's `__consumer_offsets` partition joins the transaction (its marker completes the TxnOffsetCommits). */
export const addOffsetsToTxnHandler: Handler = {
  api: AddOffsetsToTxn,
  minVersion: 0,
  maxVersion: 4,
  async handle(req, ctx, b) {
    const t = txnCoordinatorFor(b, req.transactionalId);
    if (typeof t === 'number') return { throttleTimeMs: 0, errorCode: t };
    const code = await t.addOffsets(req.transactionalId, req.producerId, req.producerEpoch, req.groupId);
    return { throttleTimeMs: 0, errorCode: fencedFor(code, ctx.apiVersion, 2) };
  },
};
