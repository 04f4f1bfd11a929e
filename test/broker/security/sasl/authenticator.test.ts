// One connection's SASL state (Kafka's SaslServerAuthenticator rules):
// request gating, the handshake, PLAIN against static and SCRAM users, the
// pre-authentication frame limit, session expiry and re-authentication (KIP-368).
import { describe, expect, it } from 'vitest';
import { SaslAuthenticator } from '../../../../broker/src/security/sasl/authenticator.js';
import { credentialFromPassword, SCRAM_SHA_256, SCRAM_SHA_512 } from '../../../../broker/src/security/sasl/credentials.js';
import type { SaslSettings } from '../../../../broker/src/security/sasl/settings.js';
import { ANONYMOUS, newSession, type Session } from '../../../../broker/src/security/session.js';
import { ErrorCode } from '../../../../common/errors.js';
import { MemoryCredentialStore } from '../../support/memory-credential-store.js';

const METADATA = 3;
const PRODUCE = 0;
const API_VERSIONS = 18;
const SASL_HANDSHAKE = 17;
const SASL_AUTHENTICATE = 36;

const plain = (user: string, pw: string): Buffer => Buffer.from(`\u0000${user}\u0000${pw}`);

async function setup(over: Partial<SaslSettings> = {}): Promise<{ a: SaslAuthenticator; session: Session; clock: { t: number }; store: MemoryCredentialStore }> {
  const store = new MemoryCredentialStore();
  await store.alter([], [
    { user: 'scram512', mechanism: SCRAM_SHA_512, credential: await credentialFromPassword(SCRAM_SHA_512, 'pw-512', Buffer.from('salt-512'), 4096) },
    { user: 'scram256', mechanism: SCRAM_SHA_256, credential: await credentialFromPassword(SCRAM_SHA_256, 'pw-256', Buffer.from('salt-256'), 4096) },
  ]);
  const settings: SaslSettings = { enabledMechanisms: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'], reauthMs: 0, maxReceiveSize: 524288, plainUsers: new Map([['admin', 'admin-secret']]), failedAuthenticationDelayMs: 0, oauthbearer: null, ...over };
  const clock = { t: 1_000_000 };
  const session = newSession(7, '127.0.0.1', 'SASL_PLAINTEXT', 'SASL_PLAINTEXT');
  return { a: new SaslAuthenticator(session, settings, store, () => clock.t), session, clock, store };
}

describe('SASL gating before authentication', () => {
  it('lets only ApiVersions and SaslHandshake through; then only SaslAuthenticate (Kafka closes on anything else, unanswered)', async () => {
    const { a } = await setup();
    for (const k of [API_VERSIONS, SASL_HANDSHAKE]) expect(a.admit(k)).toBeNull();
    for (const k of [SASL_AUTHENTICATE, METADATA, PRODUCE]) expect(a.admit(k)).toMatch(/before SASL authentication completed/);
    expect(a.handshake('PLAIN', 1)).toEqual({ errorCode: ErrorCode.NONE, mechanisms: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] });
    expect(a.admit(SASL_AUTHENTICATE)).toBeNull();
    expect(a.admit(API_VERSIONS)).toMatch(/before SASL authentication/);
    expect(a.admit(METADATA)).toMatch(/before SASL authentication/);
  });

  it('the frame limit is sasl.server.max.receive.size until authenticated, then the listener limit', async () => {
    const { a } = await setup({ maxReceiveSize: 1000 });
    expect(a.maxFrameBytes(104857600)).toBe(1000);
    a.handshake('PLAIN', 1);
    expect(a.maxFrameBytes(104857600)).toBe(1000);
    await a.authenticate(plain('admin', 'admin-secret'), 2);
    expect(a.maxFrameBytes(104857600)).toBe(104857600);
  });

  it('an unknown mechanism is answered UNSUPPORTED_SASL_MECHANISM with the enabled list, and the connection closes', async () => {
    const { a } = await setup({ enabledMechanisms: ['SCRAM-SHA-512'] });
    expect(a.handshake('PLAIN', 1)).toEqual({ errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms: ['SCRAM-SHA-512'] });
    expect(a.closeAfterResponse).toBe(true);
    expect(a.admit(API_VERSIONS)).not.toBeNull();
  });

  it('without connections.max.reauth.ms, SaslHandshake and SaslAuthenticate after authentication are ILLEGAL_SASL_STATE and the connection stays', async () => {
    const { a, session } = await setup();
    a.handshake('PLAIN', 1);
    await a.authenticate(plain('admin', 'admin-secret'), 2);
    expect(a.handshake('PLAIN', 1)).toEqual({ errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] });
    expect(await a.authenticate(plain('admin', 'admin-secret'), 2)).toMatchObject({ errorCode: ErrorCode.ILLEGAL_SASL_STATE, errorMessage: 'SaslAuthenticate request received after successful authentication' });
    expect(a.closeAfterResponse).toBe(false);
    expect(a.admit(PRODUCE)).toBeNull();
    expect(session.principal).toBe('User:admin');
  });
});

describe('PLAIN credentials', () => {
  it('accepts JAAS static users and SCRAM users (either mechanism), setting the principal', async () => {
    for (const [user, pw] of [['admin', 'admin-secret'], ['scram512', 'pw-512'], ['scram256', 'pw-256']] as const) {
      const { a, session } = await setup();
      a.handshake('PLAIN', 1);
      expect(session.principal).toBe(ANONYMOUS);
      const r = await a.authenticate(plain(user, pw), 2);
      expect(r).toMatchObject({ errorCode: ErrorCode.NONE, errorMessage: '' });
      expect(session.principal).toBe(`User:${user}`);
      expect(a.admit(PRODUCE)).toBeNull();
      expect(a.closeAfterResponse).toBe(false);
    }
  });

  it("refuses a wrong password with SASL_AUTHENTICATION_FAILED and Kafka's message, then closes", async () => {
    for (const [user, pw] of [['admin', 'admin-secreT'], ['scram512', 'pw-256'], ['nobody', 'x']] as const) {
      const { a, session } = await setup();
      a.handshake('PLAIN', 1);
      const r = await a.authenticate(plain(user, pw), 2);
      expect(r).toMatchObject({ errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: 'Authentication failed: Invalid username or password' });
      expect(a.closeAfterResponse).toBe(true);
      expect(session.principal).toBe(ANONYMOUS);
      expect(a.admit(API_VERSIONS)).toMatch(/failed SASL authentication/);
    }
  });

  it('a credential store failure fails the exchange and closes the connection after the error answer', async () => {
    const { a, store } = await setup();
    store.get = async () => { throw new Error('redis down'); };
    a.handshake('PLAIN', 1);
    await expect(a.authenticate(plain('scram512', 'pw-512'), 2)).rejects.toThrow('redis down');
    expect(a.closeAfterResponse).toBe(true);
    expect(a.admit(API_VERSIONS)).toMatch(/failed SASL authentication/);
  });

  it('a user named in the JAAS config is checked against the JAAS password only, not a SCRAM credential of the same name', async () => {
    const { a, store } = await setup();
    await store.alter([], [{ user: 'admin', mechanism: SCRAM_SHA_512, credential: await credentialFromPassword(SCRAM_SHA_512, 'scram-admin-pw', Buffer.from('s'), 4096) }]);
    a.handshake('PLAIN', 1);
    expect((await a.authenticate(plain('admin', 'scram-admin-pw'), 2)).errorCode).toBe(ErrorCode.SASL_AUTHENTICATION_FAILED);
  });

  it('after SaslHandshake v0 the next frame is a raw token', async () => {
    const { a, session } = await setup();
    a.handshake('PLAIN', 0);
    expect(a.expectsRawToken).toBe(true);
    expect((await a.rawToken(plain('admin', 'admin-secret')))?.length).toBe(0);
    expect(session.principal).toBe('User:admin');
    expect(a.expectsRawToken).toBe(false);
    const b = (await setup()).a;
    b.handshake('PLAIN', 0);
    expect(await b.rawToken(plain('admin', 'nope'))).toBeNull();
  });
});

describe('session lifetime and re-authentication (connections.max.reauth.ms)', () => {
  it('reports SessionLifetimeMs on v1+, and closes at the first request after expiry', async () => {
    const { a, clock } = await setup({ reauthMs: 10_000 });
    a.handshake('PLAIN', 1);
    expect((await a.authenticate(plain('admin', 'admin-secret'), 1)).sessionLifetimeMs).toBe(10_000);
    clock.t += 10_000;
    expect(a.admit(PRODUCE)).toBeNull();
    clock.t += 1;
    expect(a.admit(PRODUCE)).toMatch(/SASL session of User:admin expired \(connections\.max\.reauth\.ms=10000\)/);
    expect(a.admit(SASL_HANDSHAKE)).toMatch(/expired/); // Kafka closes even a late re-authentication
  });

  it('v0 SaslAuthenticate gets no lifetime but the session still expires', async () => {
    const { a, clock } = await setup({ reauthMs: 5_000 });
    a.handshake('PLAIN', 1);
    expect((await a.authenticate(plain('admin', 'admin-secret'), 0)).sessionLifetimeMs).toBe(0);
    clock.t += 5_001;
    expect(a.admit(METADATA)).toMatch(/expired/);
  });

  it('re-authenticating before expiry starts a new session; other requests keep flowing meanwhile', async () => {
    const p = await setup({ reauthMs: 10_000 });
    p.a.handshake('PLAIN', 1);
    await p.a.authenticate(plain('scram512', 'pw-512'), 2);
    p.clock.t += 9_000;
    expect(p.a.handshake('PLAIN', 1).errorCode).toBe(ErrorCode.NONE);
    expect(p.a.admit(PRODUCE)).toBeNull();
    const r = await p.a.authenticate(plain('scram512', 'pw-512'), 2);
    expect(r).toMatchObject({ errorCode: ErrorCode.NONE, sessionLifetimeMs: 10_000 });
    p.clock.t += 9_000; // 18 s after the first authentication, 9 s after the second
    expect(p.a.admit(PRODUCE)).toBeNull();
    p.clock.t += 1_001;
    expect(p.a.admit(PRODUCE)).toMatch(/expired/);
    expect(p.session.principal).toBe('User:scram512');
  });

  it('re-authentication may not change the principal or the mechanism', async () => {
    const { a } = await setup({ reauthMs: 10_000 });
    a.handshake('PLAIN', 1);
    await a.authenticate(plain('admin', 'admin-secret'), 2);
    a.handshake('PLAIN', 1);
    const r = await a.authenticate(plain('scram512', 'pw-512'), 2);
    expect(r).toMatchObject({ errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: 'Cannot change principals during re-authentication from User:admin: User:scram512' });
    expect(a.closeAfterResponse).toBe(true);
    const b = (await setup({ reauthMs: 10_000 })).a;
    b.handshake('PLAIN', 1);
    await b.authenticate(plain('admin', 'admin-secret'), 2);
    expect(b.handshake('SCRAM-SHA-512', 1).errorCode).toBe(ErrorCode.ILLEGAL_SASL_STATE);
    expect(b.closeAfterResponse).toBe(true);
  });
});
