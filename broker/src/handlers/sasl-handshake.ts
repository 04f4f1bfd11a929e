// SaslHandshake (key 17), v0-v1.
//   v0: picks the connection's SASL mechanism; raw SASL tokens follow.
//   v1: the tokens follow in SaslAuthenticate requests.
// Lists the enabled mechanisms. On a listener without SASL Kafka answers
// ILLEGAL_SASL_STATE.
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
