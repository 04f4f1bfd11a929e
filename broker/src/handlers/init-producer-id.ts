// InitProducerId (key 22), v0-v4.
//   v0-v1: a producer id and epoch for an idempotent or transactional producer; v1
//       is answered before throttling.
//   v2: flexible encoding.
//   v3: the producer's current id and epoch, to resume after an epoch error (KIP-360).
//   v4: PRODUCER_FENCED may be answered (older versions get INVALID_PRODUCER_EPOCH).
// A transactional id goes to its transaction coordinator (WRITE on the id); else
// IDEMPOTENT_WRITE on the cluster (or WRITE on some topic), and a new id from the
// store or, KIP-360, the given id with its epoch bumped.
import { InitProducerId } from '../protocol/messages/init-producer-id.js';
import { ErrorCode } from '../../../common/errors.js';
import { fencedFor, txnCoordinatorFor } from './support/txn-common.js';
import type { HandlerOf } from './support/types.js';
import { Op, Resource, authorize, authorizeIdempotentWrite } from './support/authorize.js';

const MAX_EPOCH = 32767;

export const initProducerIdHandler: HandlerOf<typeof InitProducerId> = {
  api: InitProducerId,
  minVersion: 0,
  maxVersion: 4,
  async handle(req, ctx, b) {
    const reply = (errorCode: number, producerId = -1, producerEpoch = -1) => ({ throttleTimeMs: 0, errorCode, producerId, producerEpoch });
    if (req.transactionalId !== null && req.transactionalId !== '') {
      if (!authorize(ctx, b, Op.WRITE, Resource.TRANSACTIONAL_ID, req.transactionalId)) return reply(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED); // Kafka: WRITE on the id
      // Transactional producers: the transaction coordinator of the id allocates and bumps.
      const t = txnCoordinatorFor(b, req.transactionalId);
      if (typeof t === 'number') return reply(t);
      const r = await t.initProducerId({ transactionalId: req.transactionalId, timeoutMs: req.transactionTimeoutMs, producerId: req.producerId, producerEpoch: req.producerEpoch });
      return reply(fencedFor(r.errorCode, ctx.apiVersion, 4), r.producerId, r.producerEpoch);
    }
    // Kafka: IDEMPOTENT_WRITE on the cluster, or WRITE on some topic.
    if (!authorizeIdempotentWrite(ctx, b)) return reply(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    // KIP-360: an idempotent producer may ask to bump its epoch after a sequence error.
    if (req.producerId >= 0 && req.producerEpoch >= 0 && req.producerEpoch < MAX_EPOCH - 1) {
      return reply(ErrorCode.NONE, req.producerId, req.producerEpoch + 1);
    }
    return reply(ErrorCode.NONE, await b.log.nextProducerId(), 0);
  },
};
