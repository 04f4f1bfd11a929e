// SaslHandshake (v0-1): picks the connection's SASL mechanism and lists the
// enabled ones. v0 means raw SASL tokens follow; v1, SaslAuthenticate
// requests. On a listener without SASL Kafka answers ILLEGAL_SASL_STATE.
import { SaslHandshake } from '../protocol/messages/sasl-handshake.js';
import { ErrorCode } from '../../../common/errors.js';
import type { HandlerOf } from './support/types.js';

export const saslHandshakeHandler: HandlerOf<typeof SaslHandshake> = {
  api: SaslHandshake,
  minVersion: 0,
  maxVersion: 1,
  async handle(req, ctx) {
    if (!ctx.sasl) return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] };
    return ctx.sasl.handshake(req.mechanism, ctx.apiVersion);
  },
};
