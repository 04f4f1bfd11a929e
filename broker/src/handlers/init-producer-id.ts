import { InitProducerId } from '../protocol/messages/init-producer-id.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './types.js';

const MAX_EPOCH = 32767;

export const initProducerIdHandler: Handler = {
  api: InitProducerId,
  minVersion: 0,
  maxVersion: 4,
  async handle(req, _ctx, b) {
    const reply = (errorCode: number, producerId = -1, producerEpoch = -1) => ({ throttleTimeMs: 0, errorCode, producerId, producerEpoch });
    if (req.transactionalId !== null) {
      // Transactions are not implemented; fail clearly instead of pretending.
      b.logger.warn('transactional producer rejected', { transactionalId: req.transactionalId });
      return reply(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    }
    // KIP-360: an idempotent producer may ask to bump its epoch after a sequence error.
    if (req.producerId >= 0 && req.producerEpoch >= 0 && req.producerEpoch < MAX_EPOCH - 1) {
      return reply(ErrorCode.NONE, req.producerId, req.producerEpoch + 1);
    }
    return reply(ErrorCode.NONE, await b.store.nextProducerId(), 0);
  },
};
