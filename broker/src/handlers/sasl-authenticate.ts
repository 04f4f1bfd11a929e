// SaslAuthenticate (key 36), v0-v2.
//   v0: one SASL token each way, after SaslHandshake v1.
//   v1: the session lifetime (KIP-368, connections.max.reauth.ms).
//   v2: flexible encoding.
// A failure is answered with SASL_AUTHENTICATION_FAILED and Kafka's message, then
// the connection closes.
import { SaslAuthenticate } from '../protocol/messages/sasl-authenticate.js';
import { ErrorCode } from '../../../common/errors.js';
import { AUTHENTICATE_AFTER_SUCCESS } from '../security/sasl/authenticator.js';
import type { HandlerOf } from './support/types.js';

export const saslAuthenticateHandler: HandlerOf<typeof SaslAuthenticate> = {
  api: SaslAuthenticate,
  minVersion: 0,
  maxVersion: 2,
  async handle(req, ctx) {
    if (!ctx.sasl) {
      return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, errorMessage: AUTHENTICATE_AFTER_SUCCESS, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0 };
    }
    return ctx.sasl.authenticate(req.authBytes, ctx.apiVersion);
  },
};
