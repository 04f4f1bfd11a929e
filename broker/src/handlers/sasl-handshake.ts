import { SaslHandshake } from '../protocol/messages/sasl-handshake.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './types.js';

/** No SASL mechanism is enabled: answer so the client fails with a clear error. */
export const saslHandshakeHandler: Handler = {
  api: SaslHandshake,
  minVersion: 0,
  maxVersion: 1,
  async handle() {
    return { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms: [] };
  },
};
