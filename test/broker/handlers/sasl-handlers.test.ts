// SaslHandshake and SaslAuthenticate on a listener without SASL: Kafka answers ILLEGAL_SASL_STATE.
import { describe, expect, it } from 'vitest';
import { saslHandshakeHandler } from '../../../broker/src/handlers/sasl-handshake.js';
import { saslAuthenticateHandler } from '../../../broker/src/handlers/sasl-authenticate.js';
import type { BrokerServices, RequestContext } from '../../../broker/src/handlers/support/types.js';
import { newSession } from '../../../broker/src/security/session.js';
import { ErrorCode } from '../../../common/errors.js';

const ctx = (apiKey: number, apiVersion: number): RequestContext => ({ apiKey, apiVersion, correlationId: 1, clientId: 't', session: newSession(1, '127.0.0.1') });
const broker = {} as BrokerServices;

describe('SASL APIs on a PLAINTEXT listener', () => {
  it('SaslHandshake is ILLEGAL_SASL_STATE with no mechanisms', async () => {
    expect(await saslHandshakeHandler.handle({ mechanism: 'PLAIN' }, ctx(17, 1), broker)).toEqual({ errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] });
  });

  it('SaslAuthenticate is ILLEGAL_SASL_STATE', async () => {
    const r = await saslAuthenticateHandler.handle({ authBytes: Buffer.from('\u0000a\u0000b') }, ctx(36, 2), broker);
    expect(r).toMatchObject({ errorCode: ErrorCode.ILLEGAL_SASL_STATE, errorMessage: 'SaslAuthenticate request received after successful authentication' });
  });
});
