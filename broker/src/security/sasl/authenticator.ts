// One SASL connection's authentication state, sans-IO (Kafka's
// SaslServerAuthenticator): which requests may pass, the SaslHandshake and
// SaslAuthenticate steps, the session lifetime and re-authentication
// (KIP-368). The connection layer asks admit() before each request and
// closes the connection when it refuses; the handlers drive the exchange.
//
// Kafka's rules kept here:
// - before authentication only ApiVersions and SaslHandshake, then only
//   SaslAuthenticate, pass; any other request closes the connection unanswered;
// - SaslHandshake v0 is followed by raw SASL tokens (length-prefixed, no
//   Kafka header), v1 by SaslAuthenticate requests;
// - a failed authentication is answered, then the connection is closed;
// - with connections.max.reauth.ms > 0 the session expires that long after
//   authentication; the first request after that closes the connection. A
//   SaslHandshake + SaslAuthenticate (v1+) on the authenticated connection
//   starts a new session, with the same mechanism and the same principal.
//   Without connections.max.reauth.ms, those requests are answered
//   ILLEGAL_SASL_STATE and the connection stays;
// - a credential that expires (an OAUTHBEARER token's exp) ends the session
//   then at the latest: the session lifetime is the smaller of the two, as in
//   Kafka's calcCompletionTimesAndReturnSessionLifetimeMs, and such a session
//   may be re-authenticated even without connections.max.reauth.ms.
import { createHash } from 'node:crypto';
import { ErrorCode } from '../../../../common/errors.js';
import type { Session } from '../session.js';
import { constantTimeEqual, passwordMatches, SCRAM_SHA_256, SCRAM_SHA_512, scramMechanismByName, type CredentialStore } from './credentials.js';
import { SaslAuthenticationFailure, type SaslMechanismServer } from './mechanism.js';
import { PlainServer } from './plain.js';
import { ScramServer } from './scram.js';
import { OAUTHBEARER, OAuthBearerServer } from './oauthbearer.js';
import type { VerificationKeySource } from './jwks.js';
import type { SaslSettings } from './settings.js';

const API_VERSIONS = 18;
const SASL_HANDSHAKE = 17;
const SASL_AUTHENTICATE = 36;

/** Kafka's message for SaslAuthenticate on a connection that is authenticated (or has no SASL). */
export const AUTHENTICATE_AFTER_SUCCESS = 'SaslAuthenticate request received after successful authentication';

export interface HandshakeResult { errorCode: number; mechanisms: string[] }
export interface AuthenticateResult { errorCode: number; errorMessage: string | null; authBytes: Buffer; sessionLifetimeMs: number }

type Phase = 'handshake' | 'authenticate' | 'raw' | 'authenticated' | 'failed';

export class SaslAuthenticator {
  private phase: Phase = 'handshake';
  private server: SaslMechanismServer | null = null;
  /** The mechanism of the current (or first) session. */
  private mechanism: string | null = null;
  /** When the session expires (ms since epoch); null: never. */
  private expiresAt: number | null = null;
  /** What bounds the session: connections.max.reauth.ms or the credential's expiry. */
  private expiryCause = '';
  private reauthenticating = false;
  /** Set when the response being built must be the connection's last (failed authentication). */
  closeAfterResponse = false;
  /** Why the authentication failed, for the broker's log (may say more than the client is told). */
  failureReason: string | null = null;

  constructor(
    private readonly session: Session,
    private readonly settings: SaslSettings,
    private readonly credentials: CredentialStore,
    private readonly clock: () => number = Date.now,
    /** The listener's JWKS, when OAUTHBEARER is enabled there. */
    private readonly jwks: VerificationKeySource | null = null,
  ) {}

  /** A session is established (it may have expired). */
  get authenticated(): boolean { return this.phase === 'authenticated'; }

  /** How long the answer that ends a failed authentication is held back (connection.failed.authentication.delay.ms). */
  get failureDelayMs(): number { return this.settings.failedAuthenticationDelayMs; }

  /** After SaslHandshake v0 the next frames are raw SASL tokens. */
  get expectsRawToken(): boolean { return this.phase === 'raw'; }

  /** The largest request frame the connection may read now. */
  maxFrameBytes(authenticatedLimit: number): number {
    return this.authenticated ? authenticatedLimit : Math.min(authenticatedLimit, this.settings.maxReceiveSize);
  }

  /** null when a request of `apiKey` may be handled now; otherwise why the connection must close. */
  admit(apiKey: number): string | null {
    if (this.phase === 'failed') return 'request after failed SASL authentication';
    if (this.phase === 'authenticated') {
      if (this.expiresAt !== null && this.clock() > this.expiresAt) {
        return `SASL session of ${this.session.principal} expired (${this.expiryCause}) without re-authentication`;
      }
      return null;
    }
    if (this.phase === 'handshake' && (apiKey === API_VERSIONS || apiKey === SASL_HANDSHAKE)) return null;
    if (this.phase === 'authenticate' && apiKey === SASL_AUTHENTICATE) return null;
    return `request (api key ${apiKey}) before SASL authentication completed`;
  }

  handshake(mechanism: string, version: number): HandshakeResult {
    const mechanisms = [...this.settings.enabledMechanisms];
    if (this.phase === 'authenticated' && !this.reauthenticating) {
      // Without connections.max.reauth.ms there is no re-authentication: Kafka answers, the connection stays.
      // A session that expires anyway (the token's exp) may be renewed.
      if (this.expiresAt === null) return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] };
      // Re-authentication (KIP-368): SaslHandshake v1 then SaslAuthenticate v1+, same mechanism.
      if (version < 1 || mechanism !== this.mechanism) return this.refuseHandshake(ErrorCode.ILLEGAL_SASL_STATE, mechanisms);
      this.reauthenticating = true;
      this.server = this.newServer(mechanism);
      return { errorCode: ErrorCode.NONE, mechanisms };
    }
    if (this.phase !== 'handshake') return this.refuseHandshake(ErrorCode.ILLEGAL_SASL_STATE, mechanisms);
    if (!mechanisms.includes(mechanism)) return this.refuseHandshake(ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms);
    this.mechanism = mechanism;
    this.server = this.newServer(mechanism);
    this.phase = version === 0 ? 'raw' : 'authenticate';
    return { errorCode: ErrorCode.NONE, mechanisms };
  }

  /** Kafka answers an unusable handshake and closes the connection. */
  private refuseHandshake(errorCode: number, mechanisms: string[]): HandshakeResult {
    this.phase = 'failed';
    this.closeAfterResponse = true;
    return { errorCode, mechanisms };
  }

  async authenticate(token: Buffer, version: number): Promise<AuthenticateResult> {
    const server = this.server;
    if (this.phase === 'authenticated' && !this.reauthenticating) {
      // Kafka's answer (KafkaApis) to a SaslAuthenticate outside an exchange on an authenticated connection.
      return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, errorMessage: AUTHENTICATE_AFTER_SUCCESS, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0 };
    }
    if (!server || !(this.phase === 'authenticate' || this.reauthenticating)) {
      this.phase = 'failed';
      this.closeAfterResponse = true;
      return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, errorMessage: 'Unexpected SaslAuthenticate request: no SASL handshake in progress', authBytes: Buffer.alloc(0), sessionLifetimeMs: 0 };
    }
    try {
      const out = await server.evaluate(token);
      // Kafka answers success with an empty (not null) message.
      if (!server.complete) return { errorCode: ErrorCode.NONE, errorMessage: '', authBytes: out, sessionLifetimeMs: 0 };
      const lifetimeMs = this.establish(server);
      return { errorCode: ErrorCode.NONE, errorMessage: '', authBytes: out, sessionLifetimeMs: version >= 1 ? lifetimeMs : 0 };
    } catch (e) {
      this.phase = 'failed';
      this.server = null;
      this.closeAfterResponse = true;
      this.failureReason = server.rejection ?? (e instanceof Error ? e.message : String(e));
      // Anything else (the credential store unreachable) is answered as the handler's error, and closes too.
      if (!(e instanceof SaslAuthenticationFailure)) throw e;
      return { errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: e.message, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0 };
    }
  }

  /** One raw token after SaslHandshake v0: the server's token, or null to close (Kafka closes on any failure there). */
  async rawToken(token: Buffer): Promise<Buffer | null> {
    const server = this.server;
    if (!server || this.phase !== 'raw') return null;
    try {
      const out = await server.evaluate(token);
      if (server.complete) this.establish(server);
      return out;
    } catch (e) {
      if (!(e instanceof SaslAuthenticationFailure)) throw e;
      this.phase = 'failed';
      return null;
    }
  }

  /** Starts the session; returns its lifetime in ms (0: unbounded). */
  private establish(server: SaslMechanismServer): number {
    const principal = `User:${server.username}`;
    if (this.reauthenticating && principal !== this.session.principal) {
      throw new SaslAuthenticationFailure(`Cannot change principals during re-authentication from ${this.session.principal}: ${principal}`);
    }
    this.session.principal = principal;
    this.phase = 'authenticated';
    this.reauthenticating = false;
    this.server = null;
    const now = this.clock();
    const credentialMs = server.credentialExpiresAtMs != null ? Math.max(0, server.credentialExpiresAtMs - now) : null;
    const maxMs = this.settings.reauthMs > 0 ? this.settings.reauthMs : null;
    const lifetimeMs = credentialMs === null ? maxMs : maxMs === null ? credentialMs : Math.min(credentialMs, maxMs);
    this.expiresAt = lifetimeMs === null ? null : now + lifetimeMs;
    this.expiryCause = lifetimeMs === maxMs ? `connections.max.reauth.ms=${this.settings.reauthMs}` : 'the credential expired';
    return lifetimeMs ?? 0;
  }

  private newServer(mechanism: string): SaslMechanismServer {
    if (mechanism === 'PLAIN') return new PlainServer((u, p) => this.plainPasswordOk(u, p));
    if (mechanism === OAUTHBEARER) {
      if (!this.jwks || !this.settings.oauthbearer) throw new Error('OAUTHBEARER enabled without its JWKS');
      return new OAuthBearerServer(this.jwks, this.settings.oauthbearer, this.clock, this.reauthenticating);
    }
    const scram = scramMechanismByName(mechanism);
    if (!scram) throw new Error(`no SASL server for ${mechanism}`);
    return new ScramServer(scram, (user, m) => this.credentials.get(user, m), undefined, this.reauthenticating);
  }

  /** PLAIN: the JAAS config's static users first, then the SCRAM users (either mechanism's credential). */
  private async plainPasswordOk(user: string, password: string): Promise<boolean> {
    const fixed = this.settings.plainUsers.get(user);
    if (fixed !== undefined) return constantTimeEqual(sha256(fixed), sha256(password));
    for (const m of [SCRAM_SHA_512, SCRAM_SHA_256]) {
      const cred = await this.credentials.get(user, m);
      if (cred) return passwordMatches(m, password, cred);
    }
    return false;
  }
}

/** Fixed-length digests, so that comparing them leaks neither content nor length. */
function sha256(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}
