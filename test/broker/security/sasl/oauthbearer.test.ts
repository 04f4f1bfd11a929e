// SASL/OAUTHBEARER exchanges as Kafka's OAuthBearerSaslServer runs them
// (RFC 7628 framing, the invalid_token JSON then SASL_AUTHENTICATION_FAILED),
// and the session they open (KIP-368: lifetime bounded by the token's exp).
import { describe, expect, it } from 'vitest';
import { INVALID_TOKEN_RESPONSE, OAuthBearerServer, parseClientInitialResponse } from '../../../../broker/src/security/sasl/oauthbearer.js';
import { SaslAuthenticator } from '../../../../broker/src/security/sasl/authenticator.js';
import { parseJwks, type VerificationKeySource } from '../../../../broker/src/security/sasl/jwks.js';
import { SaslAuthenticationFailure } from '../../../../broker/src/security/sasl/mechanism.js';
import type { JwtValidation } from '../../../../broker/src/security/sasl/jwt.js';
import type { SaslSettings } from '../../../../broker/src/security/sasl/settings.js';
import { newSession } from '../../../../broker/src/security/session.js';
import { ErrorCode } from '../../../../common/errors.js';
import { MemoryCredentialStore } from '../../support/memory-credential-store.js';
import { claimsFor, clientInitialResponse, jwksOf, makeSigningKey, signJwt } from '../../../helpers/jwt.js';

const NOW = 1_800_000_000_000;
const V: JwtValidation = { expectedIssuer: 'https://idp.test', expectedAudience: ['runnel'], subClaimName: 'sub', scopeClaimName: 'scope', clockSkewSeconds: 30 };
const key = makeSigningKey('k1');
const KEYS = await parseJwks(jwksOf([key]));
const SRC: VerificationKeySource = { keys: async () => KEYS };
const GENERIC = 'Authentication failed during authentication due to invalid credentials with SASL mechanism OAUTHBEARER';

describe('RFC 7628 client initial response (Kafka OAuthBearerClientInitialResponse grammar)', () => {
  it('parses the token, the authzid and the SASL extensions', () => {
    expect(parseClientInitialResponse(Buffer.from('n,,\u0001auth=Bearer abc.def.ghi\u0001\u0001'))).toEqual({ authorizationId: '', token: 'abc.def.ghi', extensions: new Map() });
    const m = parseClientInitialResponse(clientInitialResponse('a.b.c', { traceId: '123', logicalCluster: 'lkc=1' }, 'alice'))!;
    expect(m).toEqual({ authorizationId: 'alice', token: 'a.b.c', extensions: new Map([['traceId', '123'], ['logicalCluster', 'lkc=1']]) });
    expect(parseClientInitialResponse(Buffer.from('n,,\u0001auth=bearer t0k=\u0001\u0001'))!.token).toBe('t0k=');
  });

  it('refuses other forms: no gs2 header, no auth, another scheme, a missing final \\x01, a bad token character', () => {
    for (const bad of [
      'auth=Bearer a.b.c\u0001\u0001',
      'n,,\u0001\u0001',
      'n,,\u0001auth=Basic dXNlcjpwdw==\u0001\u0001',
      'n,,\u0001auth=Bearer a.b.c\u0001',
      'n,,\u0001auth=Bearer a.b.c!\u0001\u0001',
      'y,,\u0001auth=Bearer a.b.c\u0001\u0001',
    ]) expect(parseClientInitialResponse(Buffer.from(bad)), JSON.stringify(bad)).toBeNull();
  });
});

describe('OAuthBearerServer', () => {
  it('a valid token completes at once: empty server message, principal from sub, credential expiry from exp', async () => {
    const s = new OAuthBearerServer(SRC, V, () => NOW);
    expect(await s.evaluate(clientInitialResponse(signJwt(key, claimsFor('alice', NOW))))).toEqual(Buffer.alloc(0));
    expect(s).toMatchObject({ complete: true, username: 'alice', credentialExpiresAtMs: NOW + 3_600_000 });
  });

  it('an invalid token: the server answers {"status":"invalid_token"}, then the client\'s \\x01 ends the exchange with that text', async () => {
    const s = new OAuthBearerServer(SRC, V, () => NOW);
    const out = await s.evaluate(clientInitialResponse(signJwt(key, claimsFor('alice', NOW, { aud: 'elsewhere' }))));
    expect(out.toString()).toBe(INVALID_TOKEN_RESPONSE);
    expect(JSON.parse(out.toString())).toEqual({ status: 'invalid_token' });
    expect(s.complete).toBe(false);
    expect(s.rejection).toBe('audience "elsewhere" is none of the expected runnel');
    await expect(s.evaluate(Buffer.from([1]))).rejects.toThrow(new SaslAuthenticationFailure(INVALID_TOKEN_RESPONSE));
  });

  it('a malformed message fails at once with Kafka\'s generic message; so does \\x01 without a prior error', async () => {
    await expect(new OAuthBearerServer(SRC, V, () => NOW).evaluate(Buffer.from('n,,auth=Bearer x'))).rejects.toThrow(GENERIC);
    await expect(new OAuthBearerServer(SRC, V, () => NOW).evaluate(Buffer.from([1]))).rejects.toThrow(GENERIC);
  });

  it('an authzid other than the token\'s subject fails with Kafka\'s message', async () => {
    const s = new OAuthBearerServer(SRC, V, () => NOW);
    await expect(s.evaluate(clientInitialResponse(signJwt(key, claimsFor('alice', NOW)), {}, 'admin')))
      .rejects.toThrow("Authentication failed: Client requested an authorization id (admin) that is different from the token's principal name (alice)");
  });
});

describe('OAUTHBEARER sessions in the authenticator (SaslHandshake + SaslAuthenticate)', () => {
  const setup = (reauthMs: number): { a: SaslAuthenticator; clock: { t: number }; session: ReturnType<typeof newSession> } => {
    const settings: SaslSettings = { enabledMechanisms: ['OAUTHBEARER'], reauthMs, maxReceiveSize: 524288, plainUsers: new Map(), failedAuthenticationDelayMs: 0, oauthbearer: { ...V, jwksEndpointUrl: 'file:///unused', jwksRefreshMs: 3_600_000 } };
    const clock = { t: NOW };
    const session = newSession(3, '127.0.0.1', 'SASL_PLAINTEXT', 'SASL_PLAINTEXT');
    return { a: new SaslAuthenticator(session, settings, new MemoryCredentialStore(), () => clock.t, SRC), clock, session };
  };

  it('principal User:<sub>; session lifetime = min(connections.max.reauth.ms, time to exp), as Kafka computes it', async () => {
    const short = setup(60_000);
    short.a.handshake('OAUTHBEARER', 1);
    const r = await short.a.authenticate(clientInitialResponse(signJwt(key, claimsFor('alice', NOW, {}, 600))), 2);
    expect(r).toEqual({ errorCode: ErrorCode.NONE, errorMessage: '', authBytes: Buffer.alloc(0), sessionLifetimeMs: 60_000 });
    expect(short.session.principal).toBe('User:alice');
    const long = setup(3_600_000);
    long.a.handshake('OAUTHBEARER', 1);
    expect((await long.a.authenticate(clientInitialResponse(signJwt(key, claimsFor('bob', NOW, {}, 600))), 2)).sessionLifetimeMs).toBe(600_000);
  });

  it('without connections.max.reauth.ms the token\'s exp still ends the session, and re-authentication is allowed', async () => {
    const { a, clock, session } = setup(0);
    a.handshake('OAUTHBEARER', 1);
    expect((await a.authenticate(clientInitialResponse(signJwt(key, claimsFor('alice', NOW, {}, 120))), 1)).sessionLifetimeMs).toBe(120_000);
    clock.t += 100_000;
    expect(a.admit(0)).toBeNull();
    expect(a.handshake('OAUTHBEARER', 1).errorCode).toBe(ErrorCode.NONE);
    const again = await a.authenticate(clientInitialResponse(signJwt(key, claimsFor('alice', clock.t, {}, 300))), 2);
    expect(again).toMatchObject({ errorCode: ErrorCode.NONE, sessionLifetimeMs: 300_000 });
    clock.t += 299_000;
    expect(a.admit(0)).toBeNull();
    clock.t += 2_000;
    expect(a.admit(0)).toBe('SASL session of User:alice expired (the credential expired) without re-authentication');
    expect(session.principal).toBe('User:alice');
  });

  it('a refused token: NONE with the JSON error, then SASL_AUTHENTICATION_FAILED with the same text, and the connection closes', async () => {
    const { a, session } = setup(0);
    a.handshake('OAUTHBEARER', 1);
    const other = makeSigningKey('k1');
    const first = await a.authenticate(clientInitialResponse(signJwt(other, claimsFor('alice', NOW))), 2);
    expect(first).toEqual({ errorCode: ErrorCode.NONE, errorMessage: '', authBytes: Buffer.from(INVALID_TOKEN_RESPONSE), sessionLifetimeMs: 0 });
    expect(a.closeAfterResponse).toBe(false);
    expect(a.admit(36)).toBeNull();
    const second = await a.authenticate(Buffer.from([1]), 2);
    expect(second).toEqual({ errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: INVALID_TOKEN_RESPONSE, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0 });
    expect(a.closeAfterResponse).toBe(true);
    expect(a.failureReason).toBe('invalid JWT signature');
    expect(session.principal).toBe('User:ANONYMOUS');
  });

  it('re-authentication must keep the principal', async () => {
    const { a } = setup(60_000);
    a.handshake('OAUTHBEARER', 1);
    await a.authenticate(clientInitialResponse(signJwt(key, claimsFor('alice', NOW))), 2);
    a.handshake('OAUTHBEARER', 1);
    const r = await a.authenticate(clientInitialResponse(signJwt(key, claimsFor('mallory', NOW))), 2);
    expect(r).toMatchObject({ errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: 'Cannot change principals during re-authentication from User:alice: User:mallory' });
  });
});
